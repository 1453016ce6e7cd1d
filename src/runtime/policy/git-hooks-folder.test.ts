import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { coreHooksPath, gitPlacesOf } from './git-hooks-folder.ts'

describe('coreHooksPath', () => {
  it.each([
    ['[core]\n\thooksPath = tools/hooks\n', 'tools/hooks'],
    ['[core]\n\thooksPath = "my hooks"\n', 'my hooks'],
    ['[CORE]\n\tHOOKSPATH=.hooks\n', '.hooks'],
    ['[core]\n\thooksPath = a\n[core]\n\thooksPath = b\n', 'b'],
    // As git reads them: a comment after the value, a key on the section's
    // line, quotes around part of a value and escapes inside them.
    ['[core]\n\thooksPath = tools/hooks ; moved by the team\n', 'tools/hooks'],
    ['[core]\n\thooksPath = tools/hooks # moved\n', 'tools/hooks'],
    ['[core] hooksPath = inline/hooks\n', 'inline/hooks'],
    ['[core]\n\thooksPath = "a;b #c" ; comment\n', 'a;b #c'],
    ['[core]\n\thooksPath = my" "hooks\n', 'my hooks'],
    ['[core]\n\thooksPath = "say \\"hi\\""\n', 'say "hi"'],
  ])('reads %j as %s', (config, expected) => {
    expect(coreHooksPath(config)).toBe(expected)
  })

  it('reads no hooksPath outside the [core] section', () => {
    expect(coreHooksPath('[alias]\n\thooksPath = x\n')).toBeNull()
    expect(coreHooksPath('[alias] hooksPath = x\n')).toBeNull()
    expect(coreHooksPath('[core]\n\tbare = false\n[user]\n\thooksPath = x\n')).toBeNull()
  })
})

describe('gitPlacesOf', () => {
  let root: string
  const xdg = process.env.XDG_CONFIG_HOME
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-git-places-')))
    mkdirSync(join(root, 'ws/.git'), { recursive: true })
    mkdirSync(join(root, 'xdg/git'), { recursive: true })
    process.env.XDG_CONFIG_HOME = join(root, 'xdg')
  })
  afterEach(() => {
    if (xdg === undefined) delete process.env.XDG_CONFIG_HOME
    else process.env.XDG_CONFIG_HOME = xdg
    rmSync(root, { recursive: true, force: true })
  })

  it("reads core.hooksPath from the person's own config and the repository's, keeping both", () => {
    writeFileSync(join(root, 'xdg/git/config'), '[core]\n\thooksPath = team-hooks\n')
    expect(gitPlacesOf(join(root, 'ws'))?.hooksFolders).toEqual([join(root, 'ws/team-hooks')])
    writeFileSync(join(root, 'ws/.git/config'), '[core]\n\thooksPath = own-hooks\n')
    // git runs the repository's; the person's is kept too, as is every
    // value read (see the next test).
    expect(gitPlacesOf(join(root, 'ws'))?.hooksFolders).toEqual([
      join(root, 'ws/team-hooks'),
      join(root, 'ws/own-hooks'),
    ])
  })

  it('keeps the hooks folder an include on a condition that does not hold would seem to replace', () => {
    // git runs `real-hooks` here (the condition names another folder);
    // taking the last value read as git's would leave it to any door.
    writeFileSync(
      join(root, 'ws/.git/config'),
      '[core]\n\thooksPath = real-hooks\n[includeIf "gitdir:/elsewhere/"]\n\tpath = ../decoy.config\n',
    )
    writeFileSync(join(root, 'ws/decoy.config'), '[core]\n\thooksPath = decoy-hooks\n')
    expect(gitPlacesOf(join(root, 'ws'))?.hooksFolders).toEqual([
      join(root, 'ws/real-hooks'),
      join(root, 'ws/decoy-hooks'),
    ])
  })

  it('follows includes from the including file, and ends a loop of them', () => {
    writeFileSync(join(root, 'ws/.git/config'), '[include]\n\tpath = ../a.config\n')
    writeFileSync(join(root, 'ws/a.config'), '[include]\n\tpath = b.config\n')
    writeFileSync(
      join(root, 'ws/b.config'),
      '[core]\n\thooksPath = h\n[include]\n\tpath = a.config\n',
    )
    const places = gitPlacesOf(join(root, 'ws'))
    expect(places?.hooksFolders).toEqual([join(root, 'ws/h')])
    expect(new Set(places?.configFiles)).toEqual(
      new Set([join(root, 'ws/a.config'), join(root, 'ws/b.config')]),
    )
  })

  it('reads the configs the environment names in place of the system and the person', () => {
    const saved = { system: process.env.GIT_CONFIG_SYSTEM, global: process.env.GIT_CONFIG_GLOBAL }
    try {
      writeFileSync(join(root, 'system.config'), '[core]\n\thooksPath = site-hooks\n')
      writeFileSync(join(root, 'global.config'), '[core]\n\thooksPath = my-hooks\n')
      process.env.GIT_CONFIG_SYSTEM = join(root, 'system.config')
      process.env.GIT_CONFIG_GLOBAL = join(root, 'global.config')
      expect(gitPlacesOf(join(root, 'ws'))?.hooksFolders).toEqual([
        join(root, 'ws/site-hooks'),
        join(root, 'ws/my-hooks'),
      ])
    } finally {
      for (const [name, value] of [
        ['GIT_CONFIG_SYSTEM', saved.system],
        ['GIT_CONFIG_GLOBAL', saved.global],
      ] as const) {
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
    }
  })

  it('names an included file that does not exist yet: git reads it once it does', () => {
    writeFileSync(join(root, 'ws/.git/config'), '[include]\n\tpath = ../local.config\n')
    expect(gitPlacesOf(join(root, 'ws'))?.configFiles).toEqual([join(root, 'ws/local.config')])
  })

  it('names the git folder a .git file points to, and none without a repository', () => {
    rmSync(join(root, 'ws/.git'), { recursive: true })
    mkdirSync(join(root, 'ws/.store/app.git'), { recursive: true })
    writeFileSync(join(root, 'ws/.git'), 'gitdir: .store/app.git\n')
    expect(gitPlacesOf(join(root, 'ws'))?.gitFolder).toBe(join(root, 'ws/.store/app.git'))
    expect(gitPlacesOf(join(root, 'xdg'))).toBeNull()
  })
})

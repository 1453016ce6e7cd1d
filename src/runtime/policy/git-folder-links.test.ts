import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { gitPlacesOf } from './git-hooks-folder.ts'
import { personOnlyReason, type ActionTouch } from './person-only.ts'
import { personOnlyPathsInRoots } from './read-only-walk.ts'

// What git reaches through a link out of a repository's git folder is one
// of the repository's places (git-folder-links.ts), for every caller of
// `gitPlacesOf`: the sandbox's walk, the made-files watch and the doors.

describe('git places reached through links out of the git folder', () => {
  let root: string
  let ws: string
  const xdg = process.env.XDG_CONFIG_HOME
  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-git-links-')))
    ws = join(root, 'ws')
    mkdirSync(join(ws, '.git/hooks'), { recursive: true })
    mkdirSync(join(ws, 'scripts'))
    mkdirSync(join(root, 'xdg'))
    process.env.XDG_CONFIG_HOME = join(root, 'xdg')
  })
  afterEach(() => {
    if (xdg === undefined) delete process.env.XDG_CONFIG_HOME
    else process.env.XDG_CONFIG_HOME = xdg
    rmSync(root, { recursive: true, force: true })
  })

  it('names nothing more for a git folder that holds its own config and hooks', () => {
    writeFileSync(join(ws, '.git/config'), '[core]\n\tbare = false\n')
    writeFileSync(join(ws, '.git/hooks/pre-commit'), '#!/bin/sh\n')
    const places = gitPlacesOf(ws)
    expect(places?.configFiles).toEqual([])
    expect(places?.hooksFolders).toEqual([])
    expect(places?.programs).toEqual([])
  })

  it('keeps the real path of a config that .git/config links to, and reads it', () => {
    writeFileSync(join(ws, 'scripts/gitconfig'), '[core]\n\thooksPath = team-hooks\n')
    symlinkSync('../scripts/gitconfig', join(ws, '.git/config'))
    const places = gitPlacesOf(ws)
    expect(places?.configFiles).toEqual([join(ws, 'scripts/gitconfig')])
    expect(places?.hooksFolders).toEqual([join(ws, 'team-hooks')])
  })

  it('keeps config.worktree and info/attributes reached through links', () => {
    mkdirSync(join(ws, '.git/info'))
    symlinkSync('../scripts/wt', join(ws, '.git/config.worktree'))
    symlinkSync('../../scripts/attributes', join(ws, '.git/info/attributes'))
    expect(gitPlacesOf(ws)?.configFiles).toEqual([
      join(ws, 'scripts/wt'),
      join(ws, 'scripts/attributes'),
    ])
  })

  it('keeps the folder .git/hooks links to as a hooks folder', () => {
    rmSync(join(ws, '.git/hooks'), { recursive: true })
    mkdirSync(join(ws, 'git-hooks'))
    symlinkSync('../git-hooks', join(ws, '.git/hooks'))
    expect(gitPlacesOf(ws)?.hooksFolders).toEqual([join(ws, 'git-hooks')])
  })

  it('keeps what a hook that is a link leads to, made yet or not, as a program git runs', () => {
    writeFileSync(join(ws, 'scripts/pre-commit'), '#!/bin/sh\n')
    symlinkSync('../../scripts/pre-commit', join(ws, '.git/hooks/pre-commit'))
    symlinkSync('../../scripts/pre-push', join(ws, '.git/hooks/pre-push'))
    const programs = gitPlacesOf(ws)?.programs.map((program) => program.path)
    expect(programs?.sort()).toEqual([join(ws, 'scripts/pre-commit'), join(ws, 'scripts/pre-push')])
  })

  it('keeps what a link in a core.hooksPath folder leads to', () => {
    writeFileSync(join(ws, '.git/config'), '[core]\n\thooksPath = .githooks\n')
    mkdirSync(join(ws, '.githooks'))
    symlinkSync('../scripts/commit-msg', join(ws, '.githooks/commit-msg'))
    const programs = gitPlacesOf(ws)?.programs.map((program) => program.path)
    expect(programs).toEqual([join(ws, 'scripts/commit-msg')])
  })

  it('has every door ask the person for a write of a linked hook’s script or config', () => {
    writeFileSync(join(ws, 'scripts/pre-commit'), '#!/bin/sh\n')
    symlinkSync('../../scripts/pre-commit', join(ws, '.git/hooks/pre-commit'))
    writeFileSync(join(ws, 'scripts/gitconfig'), '[core]\n\tbare = false\n')
    symlinkSync('../scripts/gitconfig', join(ws, '.git/config'))
    const write = (file: string): ActionTouch => ({
      toolName: 'write_file',
      arguments: { path: file, content: 'x' },
      workspace: ws,
    })
    expect(personOnlyReason(write('scripts/pre-commit'))).toMatchObject({ class: 'git' })
    expect(personOnlyReason(write('scripts/gitconfig'))).toMatchObject({ class: 'git' })
    expect(personOnlyReason(write('scripts/build.sh'))).toBeNull()
  })

  it('has the sandbox keep a linked hook’s script read-only, as it keeps .git', () => {
    writeFileSync(join(ws, 'scripts/pre-commit'), '#!/bin/sh\n')
    symlinkSync('../../scripts/pre-commit', join(ws, '.git/hooks/pre-commit'))
    expect(personOnlyPathsInRoots([ws]).paths).toEqual([
      join(ws, '.git'),
      join(ws, 'scripts/pre-commit'),
    ])
  })
})

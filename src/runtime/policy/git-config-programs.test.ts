import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { filesNamedByProgram, runsProgram } from './git-config-programs.ts'
import { gitPlacesOf } from './git-hooks-folder.ts'
import { personOnlyReason, type ActionTouch } from './person-only.ts'
import { personOnlyPathsIn } from './read-only-walk.ts'
import { realGit } from '../../../tests/support/real-git.ts'

describe('the settings whose value git runs', () => {
  it.each([
    ['core', 'fsmonitor', true],
    ['core', 'sshcommand', true],
    ['filter', 'clean', true],
    ['diff', 'textconv', true],
    ['alias', 'anything', true],
    ['credential', 'helper', true],
    ['gpg', 'program', true],
    ['core', 'alternaterefscommand', true],
    ['help', 'browser', true],
    ['instaweb', 'httpd', true],
    ['hook', 'command', true],
    ['core', 'autocrlf', false],
    ['user', 'name', false],
    ['remote', 'url', false],
  ])('%s.%s: %s', (section, key, runs) => {
    expect(runsProgram(section, key)).toBe(runs)
  })
})

describe('the files a program setting names', () => {
  it.each([
    ['tools/fsmonitor.sh', ['tools/fsmonitor.sh']],
    ['!tools/lint.sh --fix src/', ['tools/lint.sh', 'src/']],
    ['./scripts/clean.sh %f', ['./scripts/clean.sh']],
    ['python3 tools/conv.py', ['tools/conv.py']],
    ['store --file=~/.git-creds', ['~/.git-creds']],
    ['sh -c "tools/a.sh; tools/b.sh"', ['tools/a.sh', 'tools/b.sh']],
    // A program found on the PATH, options and URLs name no file here.
    ['git-lfs filter-process', []],
    ['delta --dark', []],
    ['!open https://example.com/x', []],
  ])('%s', (value, files) => {
    expect(filesNamedByProgram(value)).toEqual(files)
  })
})

// Checked against real git: each script runs when the person uses git in
// the repository, from anywhere in it.
describe('a script in the workspace that a config names as a program', () => {
  let root: string
  let ws: string
  const mark = () => join(root, 'ran')

  const git = (cwd: string, ...args: string[]) => realGit(root, cwd, ...args)

  function script(name: string, said: string, then = ''): void {
    writeFileSync(join(ws, 'tools', name), `#!/bin/sh\necho ${said} >> '${mark()}'\n${then}`, {
      mode: 0o755,
    })
  }

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-git-programs-')))
    ws = join(root, 'ws')
    mkdirSync(join(ws, 'tools'), { recursive: true })
    mkdirSync(join(ws, 'sub'))
    git(ws, 'init', '-q')
    git(ws, 'config', 'core.fsmonitor', 'tools/fsmonitor.sh')
    git(ws, 'config', 'alias.lint', '!tools/lint.sh')
    git(ws, 'config', 'filter.x.clean', './tools/clean.sh')
    script('fsmonitor.sh', 'fsmonitor')
    script('lint.sh', 'alias')
    script('clean.sh', 'filter', 'cat\n')
    writeFileSync(join(ws, '.gitattributes'), '*.txt filter=x\n')
  })
  afterEach(() => {
    rmSync(root, { recursive: true, force: true })
  })

  const write = (path: string): ActionTouch => ({
    toolName: 'write_file',
    arguments: { path, content: 'x' },
    workspace: ws,
  })

  it('is run by git', () => {
    writeFileSync(join(ws, 'a.txt'), 'hi\n')
    git(join(ws, 'sub'), 'status')
    git(join(ws, 'sub'), 'lint')
    git(ws, 'add', 'a.txt')
    const ran = readFileSync(mark(), 'utf8').split('\n')
    expect(ran).toEqual(expect.arrayContaining(['fsmonitor', 'alias', 'filter']))
  })

  it("is one of git's places, with the setting that names it", () => {
    expect(gitPlacesOf(ws)?.programs).toEqual([
      { path: join(ws, 'tools/fsmonitor.sh'), setting: 'core.fsmonitor' },
      { path: join(ws, 'tools/lint.sh'), setting: 'alias.lint' },
      { path: join(ws, 'tools/clean.sh'), setting: 'filter.clean' },
    ])
  })

  it.each(['tools/fsmonitor.sh', 'tools/lint.sh', 'tools/clean.sh'])(
    'needs the person for a write to %s, or a command that writes it',
    (path) => {
      expect(personOnlyReason(write(path))).toMatchObject({
        class: 'git',
        reason: expect.stringContaining('git runs it'),
      })
      expect(
        personOnlyReason({
          toolName: 'agent_command',
          arguments: { command: `cp /tmp/x ${path}` },
          workspace: ws,
        }),
      ).toMatchObject({ class: 'git' })
    },
  )

  it('leaves the rest of the folder, and a folder a value names, to the grants', () => {
    git(ws, 'config', 'alias.build', '!cd tools && make')
    expect(personOnlyReason(write('tools/notes.md'))).toBeNull()
    const walked = personOnlyPathsIn(ws).paths
    expect(walked).toEqual(expect.arrayContaining([join(ws, 'tools/fsmonitor.sh')]))
    expect(walked).not.toContain(join(ws, 'tools'))
  })

  it('is kept when it is not there yet: making it is changing what git runs', () => {
    rmSync(join(ws, 'tools/lint.sh'))
    expect(existsSync(join(ws, 'tools/lint.sh'))).toBe(false)
    expect(personOnlyReason(write('tools/lint.sh'))).toMatchObject({ class: 'git' })
    expect(personOnlyPathsIn(ws).paths).toContain(join(ws, 'tools/lint.sh'))
  })
})

import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { personOnlyReason, type ActionTouch } from './person-only.ts'
import { personOnlyPathsIn, READ_ONLY_WALK_ENTRIES } from './read-only-walk.ts'

// A repository nested in the workspace, or a bare one, may name a hooks
// folder outside itself (`core.hooksPath = ../../shared-hooks`): git then
// runs the hooks there when the person commits in it, or pushes to it.
// No door may write them, and the sandbox keeps them read-only.

let root: string
let workspace: string

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-hooks-elsewhere-')))
  workspace = join(root, 'ws')
  mkdirSync(join(workspace, 'shared-hooks'), { recursive: true })
  mkdirSync(join(workspace, 'backup-hooks'))
  mkdirSync(join(workspace, 'third_party/tool'), { recursive: true })
  mkdirSync(join(workspace, 'scripts'))
  git(join(workspace, 'third_party/tool'), 'init', '-q')
  git(join(workspace, 'third_party/tool'), 'config', 'core.hooksPath', '../../shared-hooks')
  git(workspace, 'init', '-q', '--bare', 'backup')
  git(join(workspace, 'backup'), 'config', 'core.hooksPath', '../backup-hooks')
})
afterEach(() => {
  rmSync(root, { recursive: true, force: true })
})

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: { ...process.env, GIT_CEILING_DIRECTORIES: root },
  }).toString()
}

// Each is made inside its test: the workspace is made fresh for each.
const write = (path: string) => (): ActionTouch => ({
  toolName: 'write_file',
  arguments: { path, content: 'x' },
  workspace,
})
const command = (line: string) => (): ActionTouch => ({
  toolName: 'agent_command',
  arguments: { command: line },
  workspace,
})

describe('a hooks folder a nested or bare repository names outside itself', () => {
  it('is where git runs their hooks', () => {
    for (const [hook, folder] of [
      ['shared-hooks/pre-commit', 'third_party/tool'],
      ['backup-hooks/post-update', 'backup'],
    ] as const) {
      const ran = join(root, `ran-${hook.replace('/', '-')}`)
      writeFileSync(join(workspace, hook), `#!/bin/sh\ntouch ${ran}\n`)
      chmodSync(join(workspace, hook), 0o755)
      git(join(workspace, folder), 'hook', 'run', hook.split('/')[1]!)
      expect(existsSync(ran)).toBe(true)
    }
  })

  it.each([
    ['a write of a hook there', write('shared-hooks/pre-commit')],
    ["a write of the bare repository's hook", write('backup-hooks/post-update')],
    ['a hook name of another case', write('shared-hooks/PRE-COMMIT')],
    ['a copy of a hook into the folder', command('cp ../pre-commit shared-hooks/')],
    ['a copy into the bare one', command('cp x backup-hooks/post-update')],
  ])('needs a person: %s', (_name, touch) => {
    expect(personOnlyReason(touch())).toMatchObject({ class: 'git' })
  })

  it.each([
    ['a hook-named file in a folder no config names', write('scripts/pre-commit')],
    ['another file in the folder', write('shared-hooks/README.md')],
    ['a copy out of it', command('cp shared-hooks/README.md docs/')],
  ])('does not need a person: %s', (_name, touch) => {
    expect(personOnlyReason(touch())).toBeNull()
  })

  it('is kept read-only by the sandbox, as each repository is', () => {
    const { paths } = personOnlyPathsIn(workspace)
    expect(paths).toEqual(
      expect.arrayContaining([
        join(workspace, 'shared-hooks'),
        join(workspace, 'backup-hooks'),
        join(workspace, 'backup'),
        join(workspace, 'third_party/tool/.git'),
      ]),
    )
    expect(paths).not.toContain(join(workspace, 'scripts'))
  })

  it('a hook-named file in a workspace too large to walk whole needs a person', () => {
    mkdirSync(join(workspace, 'many'))
    for (let index = 0; index <= READ_ONLY_WALK_ENTRIES; index += 1) {
      writeFileSync(join(workspace, 'many', `f${index}`), '')
    }
    expect(personOnlyReason(write('scripts/pre-commit')())).toMatchObject({ class: 'unwalked' })
    expect(personOnlyReason(command('cp x scripts/update')())).toMatchObject({ class: 'unwalked' })
    expect(personOnlyReason(write('scripts/build.sh')())).toBeNull()
    // A hook's name right in the workspace is where a word lands, and no
    // hooks folder: not walked for.
    expect(personOnlyReason(command('apt-get update')())).toBeNull()
    expect(personOnlyReason(command('git submodule update --init')())).toBeNull()
    expect(personOnlyReason(write('update')())).toBeNull()
  })
})

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
import {
  inGitFolder,
  personOnlyPathsIn,
  personOnlyPathsInRoots,
  READ_ONLY_WALK_ENTRIES,
} from './read-only-walk.ts'

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
    // `update` right in the workspace, as the file a write names, or any
    // other hook's name there, is walked for. (An agent's command of any
    // words needs the person there: a link past the walk may lead to
    // credentials, credentials-held.ts.)
    expect(personOnlyReason(command('apt-get update')())).toMatchObject({
      class: 'links-unchecked',
    })
    expect(personOnlyReason(write('update')())).toMatchObject({ class: 'unwalked' })
    expect(personOnlyReason(write('pre-commit')())).toMatchObject({ class: 'unwalked' })
  })
})

describe('a hooks folder that is a folder a command may write, or a folder in a git folder', () => {
  const run = (argv: string[], writableRoots: string[]) => (): ActionTouch => ({
    toolName: 'run_command',
    arguments: { argv },
    workspace,
    writableRoots,
  })

  it('a nested repository naming the workspace itself: git runs the hooks at its top', () => {
    git(join(workspace, 'third_party/tool'), 'config', 'core.hooksPath', '../..')
    const ran = join(root, 'ran-top')
    writeFileSync(join(workspace, 'pre-commit'), `#!/bin/sh\ntouch ${ran}\n`)
    chmodSync(join(workspace, 'pre-commit'), 0o755)
    git(join(workspace, 'third_party/tool'), 'hook', 'run', 'pre-commit')
    expect(existsSync(ran)).toBe(true)
    // Every door: a write of it, a copy onto it, however it is spelled.
    expect(personOnlyReason(write('pre-commit')())).toMatchObject({ class: 'git' })
    expect(personOnlyReason(write('POST-CHECKOUT')())).toMatchObject({ class: 'git' })
    expect(personOnlyReason(command('cp x post-checkout')())).toMatchObject({ class: 'git' })
    // The sandbox keeps each hook's name at the top read-only, made or not,
    // and nothing else there.
    const { paths } = personOnlyPathsIn(workspace)
    expect(paths).toEqual(
      expect.arrayContaining([join(workspace, 'pre-commit'), join(workspace, 'post-checkout')]),
    )
    expect(paths).not.toContain(workspace)
    expect(personOnlyReason(write('README.md')())).toBeNull()
    // `update`, an everyday word, is not walked for at the top as a word
    // (it runs only in a repository that receives a push), but is as the
    // file a write tool names.
    expect(personOnlyReason(command('apt-get update')())).toBeNull()
    expect(personOnlyReason(write('update')())).toMatchObject({ class: 'git' })
  })

  it('a hook name at the top asks nothing where no config names the top', () => {
    expect(personOnlyReason(write('pre-commit')())).toBeNull()
    expect(personOnlyReason(command('pre-commit run --all-files')())).toBeNull()
    expect(personOnlyPathsIn(workspace).paths).not.toContain(join(workspace, 'pre-commit'))
  })

  it("another writable root holding a nested repository's hooks folder keeps it read-only", () => {
    const other = join(root, 'other')
    mkdirSync(join(other, 'hooks'), { recursive: true })
    git(join(workspace, 'third_party/tool'), 'config', 'core.hooksPath', join(other, 'hooks'))
    expect(personOnlyPathsIn(workspace).elsewhere).toContain(join(other, 'hooks'))
    expect(personOnlyPathsInRoots([workspace, other]).paths).toContain(join(other, 'hooks'))
    // The other root itself as the hooks folder: its hooks' names.
    git(join(workspace, 'third_party/tool'), 'config', 'core.hooksPath', other)
    const { paths } = personOnlyPathsInRoots([workspace, other])
    expect(paths).toContain(join(other, 'pre-commit'))
    expect(paths).not.toContain(other)
    // A door sees a path there as git's too.
    git(join(workspace, 'third_party/tool'), 'config', 'core.hooksPath', join(other, 'hooks'))
    expect(personOnlyReason(command(`cp x ${join(other, 'hooks/pre-commit')}`)())).toMatchObject({
      class: 'git',
    })
  })

  it('a folder in a git folder, by any name, cannot be kept and needs a person', () => {
    const bareHooks = join(workspace, 'backup/hooks')
    mkdirSync(bareHooks, { recursive: true })
    mkdirSync(join(root, 'gitdirs'))
    git(root, 'init', '-q', '--separate-git-dir', join(root, 'gitdirs/app'), join(root, 'app'))
    for (const folder of [bareHooks, join(root, 'gitdirs/app'), join(workspace, '.git')]) {
      if (!existsSync(folder)) git(workspace, 'init', '-q')
      expect(inGitFolder(folder)).toBe(true)
      expect(personOnlyPathsInRoots([workspace, folder]).inGitFolder).toBe(folder)
      expect(personOnlyReason(run(['make'], [workspace, folder])())).toMatchObject({ class: 'git' })
    }
    expect(inGitFolder(join(root, 'app'))).toBe(false)
    expect(inGitFolder(workspace)).toBe(false)
    expect(personOnlyReason(run(['make'], [workspace])())).toBeNull()
  })
})

describe("another repository's git places, outside the workspace", () => {
  it('are git’s at every door, as the workspace’s own are', () => {
    // A checkout beside the workspace whose config moves its hooks, a bare
    // repository and a separate git folder: a widened folder, a webhook's
    // allow or a command may reach each.
    const other = join(root, 'other')
    mkdirSync(join(other, 'tools/hooks'), { recursive: true })
    git(other, 'init', '-q')
    git(other, 'config', 'core.hooksPath', 'tools/hooks')
    git(root, 'init', '-q', '--bare', 'remote.git')
    mkdirSync(join(root, 'gitdirs'))
    git(root, 'init', '-q', '--separate-git-dir', join(root, 'gitdirs/app'), join(root, 'app'))
    for (const target of [
      join(other, 'tools/hooks/pre-commit'),
      join(other, 'tools/hooks/build.sh'),
      join(root, 'remote.git/hooks/post-update'),
      join(root, 'remote.git/config'),
      join(root, 'gitdirs/app/config'),
    ]) {
      expect(personOnlyReason(write(target)()), target).toMatchObject({ class: 'git' })
      expect(personOnlyReason(command(`cp x ${target}`)()), target).toMatchObject({ class: 'git' })
    }
    for (const target of [join(other, 'README.md'), join(root, 'app/main.c'), '/dev/null']) {
      expect(personOnlyReason(write(target)()), target).toBeNull()
    }
  })
})

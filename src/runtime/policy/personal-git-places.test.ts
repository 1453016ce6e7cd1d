import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { realGit } from '../../../tests/support/real-git.ts'
import { personalGitPlaces } from './git-hooks-folder.ts'
import { personOnlyReason, type ActionTouch } from './person-only.ts'
import { personOnlyPathsInRoots } from './read-only-walk.ts'

// The person's own git config (`~/.gitconfig`, here through
// $GIT_CONFIG_GLOBAL) names places git uses in every repository of theirs:
// a global hooks folder runs at every commit, a template folder is copied,
// hooks and all, into every repository git makes or clones. They are git's
// from any workspace, in a repository or not.

let root: string
let ws: string
const saved = process.env.GIT_CONFIG_GLOBAL

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-personal-git-')))
  ws = join(root, 'ws')
  for (const folder of ['ws', 'global-hooks', 'template/hooks', 'elsewhere']) {
    mkdirSync(join(root, folder), { recursive: true })
  }
  writeFileSync(
    join(root, 'global.config'),
    `[core]\n\thooksPath = ${root}/global-hooks\n\tattributesFile = ${root}/attributes\n` +
      `[init]\n\ttemplateDir = ${root}/template\n[alias]\n\trelative = !tools/x.sh\n`,
  )
  process.env.GIT_CONFIG_GLOBAL = join(root, 'global.config')
})
afterEach(() => {
  if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL
  else process.env.GIT_CONFIG_GLOBAL = saved
  rmSync(root, { recursive: true, force: true })
})

const write = (path: string): ActionTouch => ({
  toolName: 'write_file',
  arguments: { path, content: 'x' },
  workspace: ws,
})

describe("the person's own git config", () => {
  it('names places git uses with no repository at hand, absolute ones only', () => {
    expect(personalGitPlaces()).toMatchObject({
      hooksFolders: [join(root, 'global-hooks')],
      templateFolders: [join(root, 'template')],
      configFiles: [join(root, 'attributes')],
      // `tools/x.sh` is taken from a repository's top: none here.
      programs: [],
    })
  })

  it('is what git uses: the global hooks run at a commit, the template is copied', () => {
    // realGit reads no personal config; the one here is named again.
    const git = (cwd: string, ...args: string[]) =>
      realGit(root, cwd, '-c', `include.path=${join(root, 'global.config')}`, ...args)
    writeFileSync(join(root, 'template/hooks/post-checkout'), '#!/bin/sh\n', { mode: 0o755 })
    const repo = join(root, 'repo')
    mkdirSync(repo)
    git(repo, 'init', '-q')
    expect(existsSync(join(repo, '.git/hooks/post-checkout'))).toBe(true)
    writeFileSync(join(root, 'global-hooks/pre-commit'), `#!/bin/sh\ntouch '${root}/ran'\n`, {
      mode: 0o755,
    })
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'x')
    expect(existsSync(join(root, 'ran'))).toBe(true)
  })

  it.each([
    ['a hook in the global hooks folder', 'global-hooks/pre-commit'],
    ['a hook in the template folder', 'template/hooks/commit-msg'],
    ['the attributes file', 'attributes'],
  ])('makes %s need the person from a workspace in no repository', (_, path) => {
    expect(personOnlyReason(write(join(root, path)))).toMatchObject({ class: 'git' })
    expect(personOnlyReason(write(join(root, 'elsewhere/notes.md')))).toBeNull()
  })

  it('is kept read-only in a folder a command may write, with no repository in it', () => {
    const { paths } = personOnlyPathsInRoots([ws, root])
    expect(paths).toEqual(
      expect.arrayContaining([join(root, 'global-hooks'), join(root, 'template')]),
    )
    expect(paths).not.toContain(join(root, 'elsewhere'))
  })
})

import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { gitPlacesOf } from './git-hooks-folder.ts'
import { personOnlyReason, type ActionTouch } from './person-only.ts'
import { personOnlyPathsIn } from './read-only-walk.ts'
import { realGit } from '../../../tests/support/real-git.ts'

// A linked worktree (`git worktree add`) is where agents are commonly run,
// one per task. Its git folder (`.git/worktrees/<name>`) holds only its
// HEAD and index: git reads the repository's config from the folder its
// `commondir` names, so the main checkout's `core.hooksPath` moves the
// worktree's hooks too, to a folder taken from the worktree's own top.
// Checked against real git: the hook there runs at the next commit.

let root: string
let repo: string

function git(cwd: string, ...args: string[]): string {
  return realGit(root, cwd, ...args)
}

/** A hook at `hooks` (relative to `checkout`) that leaves a mark when git
 *  runs it. */
function layHook(checkout: string, hooks: string): string {
  const mark = join(root, `ran-${hooks.replaceAll('/', '-')}`)
  mkdirSync(join(checkout, hooks), { recursive: true })
  writeFileSync(join(checkout, hooks, 'pre-commit'), `#!/bin/sh\ntouch '${mark}'\n`, {
    mode: 0o755,
  })
  return mark
}

/** A worktree added at `worktree`, with a hook at `scripts/hooks`; with
 *  `commit`, git commits there and the hook is shown to run. */
function addWorktree(worktree: string, commit = false): void {
  git(repo, 'worktree', 'add', '-q', worktree)
  const mark = layHook(worktree, 'scripts/hooks')
  if (!commit) return
  git(worktree, 'commit', '-q', '--allow-empty', '-m', 'second')
  expect(existsSync(mark)).toBe(true)
}

const write = (workspace: string, path: string): ActionTouch => ({
  toolName: 'write_file',
  arguments: { path, content: 'x' },
  workspace,
})
const command = (workspace: string, line: string): ActionTouch => ({
  toolName: 'agent_command',
  arguments: { command: line },
  workspace,
})

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-worktree-hooks-')))
  repo = join(root, 'repo')
  mkdirSync(repo)
  git(repo, 'init', '-q')
  git(repo, 'config', 'core.hooksPath', 'scripts/hooks')
  git(repo, 'commit', '-q', '--allow-empty', '-m', 'first')
})
afterEach(() => {
  rmSync(root, { recursive: true, force: true })
})

describe('a linked worktree', () => {
  it('shares the main checkout git folder and its hooks folder, from its own top', () => {
    const worktree = join(root, 'task-1')
    addWorktree(worktree, true)

    const places = gitPlacesOf(worktree)
    expect(places?.gitFolder).toBe(join(repo, '.git/worktrees/task-1'))
    expect(places?.commonFolder).toBe(join(repo, '.git'))
    expect(places?.hooksFolders).toEqual([join(worktree, 'scripts/hooks')])
  })

  it.each([
    ['a write to a hook', (ws: string) => write(ws, 'scripts/hooks/pre-commit')],
    [
      'a write of another file in the hooks folder',
      (ws: string) => write(ws, 'scripts/hooks/lib.sh'),
    ],
    ['a command that writes a hook', (ws: string) => command(ws, 'cp x scripts/hooks/pre-push')],
  ])('needs the person for %s in the worktree', (_, touch) => {
    const worktree = join(root, 'task-1')
    addWorktree(worktree)
    expect(personOnlyReason(touch(worktree))).toMatchObject({ class: 'git' })
    expect(personOnlyReason(write(worktree, 'scripts/notes.md'))).toBeNull()
  })

  it("is kept read-only by the sandbox's walk, the worktree's hooks folder with it", () => {
    const worktree = join(root, 'task-1')
    addWorktree(worktree)
    const walked = personOnlyPathsIn(worktree)
    expect(walked.paths).toContain(join(worktree, 'scripts/hooks'))
    expect(walked.elsewhere).toEqual(
      expect.arrayContaining([join(repo, '.git/worktrees/task-1'), join(repo, '.git')]),
    )
  })

  it('nested in the checkout it was made from (an agent tool’s own folder of worktrees)', () => {
    const worktree = join(repo, '.agents/worktrees/task-2')
    addWorktree(worktree, true)

    const nested = '.agents/worktrees/task-2/scripts/hooks'
    expect(personOnlyReason(write(repo, `${nested}/pre-commit`))).toMatchObject({ class: 'git' })
    expect(personOnlyReason(write(repo, `${nested}/lib.sh`))).toMatchObject({ class: 'git' })
    expect(personOnlyPathsIn(repo).paths).toContain(join(repo, nested))
  })

  it('of a bare repository under another name: its git folder is the bare one', () => {
    // The layout of a bare clone with its worktrees beside it:
    // `project/.bare`, `project/.git` naming it, `project/main`.
    const project = join(root, 'project')
    mkdirSync(project)
    git(project, 'clone', '-q', '--bare', repo, '.bare')
    writeFileSync(join(project, '.git'), 'gitdir: ./.bare\n')
    const worktree = join(project, 'main')
    git(project, 'worktree', 'add', '-q', worktree)
    const places = gitPlacesOf(worktree)
    expect(places?.commonFolder).toBe(join(project, '.bare'))
    for (const path of ['../.bare/config', '../.bare/hooks/pre-commit']) {
      expect(personOnlyReason(write(worktree, path))).toMatchObject({ class: 'git' })
    }
  })
})

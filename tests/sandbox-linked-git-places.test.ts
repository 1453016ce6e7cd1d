import { existsSync } from 'node:fs'
import { chmod, mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { sandboxedRun } from '../src/runtime/sandbox/test-support/sandboxed-run.ts'
import { sandboxScratch } from '../src/runtime/sandbox/test-support/sandbox-scratch.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'
import { realGit } from './support/real-git.ts'

// A repository whose hook is a link to a tracked script (`ln -s
// ../../scripts/pre-commit .git/hooks/pre-commit`, a common setup), whose
// hooks folder is a link into the checkout, or whose `.git/config` is. The
// sandbox keeps `.git` read-only by its path; git follows the links out of
// it, so what they lead to is kept read-only too (git-folder-links.ts), and
// what a command puts there around the binds is moved aside. Real
// bubblewrap, real git, real files under /var/tmp.

const HAS_BWRAP = await bubblewrapRequired()

const scratch = sandboxScratch('assent-linked-git-')
const { sandbox } = scratch

/** A fresh repository, and where a program the agent wrote would leave
 *  its mark if the person's git ran it. */
async function freshRepository(): Promise<{ workspace: string; marker: string }> {
  const { workspace, count } = await scratch.freshWorkspace()
  realGit(scratch.base(), workspace, 'init', '-q')
  return { workspace, marker: path.join(scratch.base(), `ran-${count}`) }
}

/** A shell script that leaves `marker` when it runs. */
const leaves = (marker: string) => `#!/bin/sh\\necho ran > ${marker}\\n`

/** The person's next commit, outside any sandbox (a hook that fails to
 *  run fails the commit, which changes nothing here). */
function personCommits(workspace: string): void {
  try {
    realGit(scratch.base(), workspace, 'commit', '-q', '--allow-empty', '-m', 'x')
  } catch {
    // The commit failing is fine: what matters is what ran.
  }
}

async function linkedHook(workspace: string): Promise<void> {
  await mkdir(path.join(workspace, 'scripts'))
  await writeFile(path.join(workspace, 'scripts', 'pre-commit'), '#!/bin/sh\nexit 0\n')
  await chmod(path.join(workspace, 'scripts', 'pre-commit'), 0o755)
  await symlink('../../scripts/pre-commit', path.join(workspace, '.git', 'hooks', 'pre-commit'))
}

describe.runIf(HAS_BWRAP)('git places reached through links out of .git', () => {
  it('keeps the script a hook links to read-only, and the person’s commit runs nothing the command wrote', async () => {
    const { workspace, marker } = await freshRepository()
    await linkedHook(workspace)
    const { sh } = sandboxedRun(() => ({ workspace, sandbox: sandbox() }))
    // The command names no git place at all.
    const result = await sh(`printf '${leaves(marker)}' > scripts/pre-commit`, 'workspace-write')
    expect(result.ok).toBe(false)
    expect(result.output).toMatch(/Read-only/)
    personCommits(workspace)
    expect(existsSync(marker), 'the person’s git ran the hook the command wrote').toBe(false)
  })

  it('moves aside a script put where a hook links after the folder holding it was renamed', async () => {
    const { workspace, marker } = await freshRepository()
    await linkedHook(workspace)
    const { sh } = sandboxedRun(() => ({ workspace, sandbox: sandbox() }))
    const result = await sh(
      `mv scripts scripts.old && mkdir scripts && printf '${leaves(marker)}' > scripts/pre-commit && chmod +x scripts/pre-commit`,
      'workspace-write',
    )
    expect(result.code, result.output).toBe('person_only_made')
    expect(result.output).toContain(path.join(workspace, 'scripts', 'pre-commit'))
    personCommits(workspace)
    expect(existsSync(marker), 'the person’s git ran the hook the command put there').toBe(false)
  })

  it('keeps a hooks folder that .git/hooks links to read-only', async () => {
    const { workspace, marker } = await freshRepository()
    await rename(path.join(workspace, '.git', 'hooks'), path.join(workspace, 'git-hooks'))
    await symlink('../git-hooks', path.join(workspace, '.git', 'hooks'))
    const { sh } = sandboxedRun(() => ({ workspace, sandbox: sandbox() }))
    const result = await sh(
      `printf '${leaves(marker)}' > git-hooks/pre-commit && chmod +x git-hooks/pre-commit`,
      'workspace-write',
    )
    expect(result.ok).toBe(false)
    expect(result.output).toMatch(/Read-only/)
    personCommits(workspace)
    expect(existsSync(marker), 'the person’s git ran the hook the command wrote').toBe(false)
  })

  it('keeps a config that .git/config links to read-only, and the person’s git runs no program the command named', async () => {
    const { workspace, marker } = await freshRepository()
    await mkdir(path.join(workspace, 'tools'))
    const config = path.join(workspace, '.git', 'config')
    await writeFile(path.join(workspace, 'tools', 'gitconfig'), await readFile(config))
    await rm(config)
    await symlink('../tools/gitconfig', config)
    const { sh } = sandboxedRun(() => ({ workspace, sandbox: sandbox() }))
    const result = await sh(
      `printf '[core]\\n\\tfsmonitor = "echo ran > ${marker}; false"\\n' >> tools/gitconfig`,
      'workspace-write',
    )
    expect(result.ok).toBe(false)
    expect(result.output).toMatch(/Read-only/)
    realGit(scratch.base(), workspace, 'status', '--short')
    expect(existsSync(marker), 'the person’s git ran the program the command named').toBe(false)
  })
})

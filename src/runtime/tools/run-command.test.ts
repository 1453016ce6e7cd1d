import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, realpath, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BASE_AGENT_ENVIRONMENT } from '../../contracts/agents-config.ts'
import { CommandSandbox } from '../sandbox/command-sandbox.ts'
import { runCommandTool } from './run-command.ts'
import { MAX_TOOL_OUTPUT_BYTES } from './tool-types.ts'
import type { ToolContext } from './tool-types.ts'
import { WAIT_TIMEOUT_MS, scaledMs } from '../../../scripts/test-timing.ts'

let ws: string
const node = process.execPath

beforeEach(async () => {
  ws = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-run-')))
})

afterEach(async () => {
  await rm(ws, { recursive: true, force: true })
})

// The process handling (output, timeouts, the whole tree killed, the
// environment) is the same in and out of the sandbox; it is tested here in
// full access, where the test can see the command's processes by their
// pids. command-sandbox.test.ts runs commands in the sandbox.
const fullAccess = new CommandSandbox({ assentPrivate: [] })

const ctx = (extra: Partial<ToolContext> = {}): ToolContext => ({
  workspace: ws,
  resolvedPaths: [ws],
  // The runtime's limit in these tests: a ceiling no test command should
  // reach, even when starting `node` takes seconds on a busy machine.
  timeoutMs: scaledMs(60_000),
  command: { sandbox: fullAccess, sandboxMode: 'danger-full-access', extraWritableRoots: [] },
  ...extra,
})

/** Dead, or a zombie waiting for a reaper that may not exist in a container. */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return true
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')
  } catch {
    return true
  }
}

describe('run_command', () => {
  it('captures stdout and stderr and the exit code', async () => {
    const script = 'process.stdout.write("out;"); process.stderr.write("err"); process.exit(3)'
    const result = await runCommandTool.run({ argv: [node, '-e', script] }, ctx())
    expect(result.ok).toBe(false)
    expect(result.exitCode).toBe(3)
    expect(result.code).toBe('nonzero_exit')
    expect(result.output).toContain('out;')
    expect(result.output).toContain('err')
  })

  it('reports success for exit code 0', async () => {
    const result = await runCommandTool.run({ argv: [node, '-e', 'console.log("fine")'] }, ctx())
    expect(result).toEqual({ ok: true, output: 'fine\n', exitCode: 0 })
  })

  it('uses no shell by default, so $HOME stays literal', async () => {
    const result = await runCommandTool.run({ argv: ['echo', '$HOME'] }, ctx())
    expect(result.output.trim()).toBe('$HOME')
  })

  it('expands through the shell only when asked', async () => {
    const result = await runCommandTool.run({ argv: ['echo', '$HOME'], shell: true }, ctx())
    expect(result.output.trim()).toBe(process.env.HOME)
  })

  it('runs in the checked directory, not the raw cwd argument', async () => {
    const result = await runCommandTool.run(
      { argv: [node, '-e', 'console.log(process.cwd())'], cwd: '/' },
      ctx(),
    )
    expect(result.output.trim()).toBe(ws)
  })

  it('kills a command that outlives its timeout and says so', async () => {
    // The command never ends by itself: only the timeout can end the run.
    const result = await runCommandTool.run(
      { argv: [node, '-e', 'setInterval(()=>{},1000)'], timeoutMs: 300 },
      ctx(),
    )
    expect(result).toMatchObject({ ok: false, code: 'timeout', exitCode: null })
    expect(result.output).toContain('timed out after 300 ms')
  })

  it('kills the whole process tree when it stops a command', async () => {
    // Stopped once the grandchild exists (an event), not after a guess at
    // how long starting two `node` processes takes: timeout and abort stop
    // a command through the same kill of its process group.
    const pidFile = path.join(ws, 'grandchild.pid')
    const script = [
      'const c = require("child_process").spawn(process.execPath,',
      '  ["-e", "setInterval(()=>{},1000)"], { stdio: "ignore" });',
      `require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(c.pid));`,
      'setInterval(()=>{},1000)',
    ].join('\n')
    const controller = new AbortController()
    const running = runCommandTool.run(
      { argv: [node, '-e', script] },
      ctx({ signal: controller.signal }),
    )
    const grandchild = () => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : 0)
    await expect.poll(grandchild, { timeout: WAIT_TIMEOUT_MS }).toBeGreaterThan(0)
    const pid = grandchild()
    controller.abort()
    expect((await running).code).toBe('aborted')
    await expect.poll(() => isGone(pid), { timeout: WAIT_TIMEOUT_MS }).toBe(true)
  })

  it('never lets a call extend the runtime limit', async () => {
    const result = await runCommandTool.run(
      { argv: [node, '-e', 'setInterval(()=>{},1000)'], timeoutMs: 600_000 },
      ctx({ timeoutMs: 300 }),
    )
    expect(result.code).toBe('timeout')
    expect(result.output).toContain('300 ms')
  })

  it('kills the command when the caller aborts', async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 200)
    const result = await runCommandTool.run(
      { argv: [node, '-e', 'setInterval(()=>{},1000)'] },
      ctx({ signal: controller.signal }),
    )
    expect(result).toMatchObject({ ok: false, code: 'aborted' })
  })

  it('caps the captured output and says how much it dropped', async () => {
    const total = MAX_TOOL_OUTPUT_BYTES + 5_000
    const script = `process.stdout.write("y".repeat(${total}))`
    const result = await runCommandTool.run({ argv: [node, '-e', script] }, ctx())
    expect(result.ok).toBe(true)
    expect(result.output).toContain('y'.repeat(MAX_TOOL_OUTPUT_BYTES))
    expect(result.output).not.toContain('y'.repeat(MAX_TOOL_OUTPUT_BYTES + 1))
    expect(result.output).toContain('dropped 5000')
  })

  it('turns a missing program into a result instead of throwing', async () => {
    const result = await runCommandTool.run({ argv: ['assent-no-such-program-xyz'] }, ctx())
    expect(result).toMatchObject({ ok: false, code: 'spawn_failed', exitCode: null })
  })

  it('keeps its own ASSENT_* settings from the command', async () => {
    process.env.ASSENT_TEST_SECRET_DIR = '/secret/store'
    try {
      const script = 'console.log(String(process.env.ASSENT_TEST_SECRET_DIR))'
      const result = await runCommandTool.run({ argv: [node, '-e', script] }, ctx())
      expect(result.output.trim()).toBe('undefined')
    } finally {
      delete process.env.ASSENT_TEST_SECRET_DIR
    }
  })

  describe('the environment a command gets', () => {
    // Handles a desktop session gives its processes: each lets a command
    // script the display, the session bus (and the keychain behind it) or
    // the SSH agent. They are set in the runtime's own environment here, as
    // a desktop would set them, and must not reach the command.
    const SESSION_HANDLES = {
      DISPLAY: ':0',
      WAYLAND_DISPLAY: 'wayland-0',
      XAUTHORITY: '/home/ada/.Xauthority',
      DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
      XDG_RUNTIME_DIR: '/run/user/1000',
      SSH_AUTH_SOCK: '/run/user/1000/ssh-agent.socket',
      GPG_AGENT_INFO: '/run/user/1000/gnupg/S.gpg-agent',
      OPENAI_API_KEY: 'sk-test-not-for-commands',
      ASSENT_TEST_SECRET_DIR: '/secret/store',
    }
    const ALLOWED = { LANG: 'C.UTF-8', TERM: 'xterm-256color', TZ: 'UTC' }
    let saved: Record<string, string | undefined>

    beforeEach(() => {
      saved = {}
      for (const [name, value] of Object.entries({ ...SESSION_HANDLES, ...ALLOWED })) {
        saved[name] = process.env[name]
        process.env[name] = value
      }
    })
    afterEach(() => {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
    })

    /** Runs a real command that prints its whole environment. */
    async function environmentOfCommand(shell: boolean): Promise<Record<string, string>> {
      const script = 'process.stdout.write(JSON.stringify(process.env))'
      const argv = shell ? [JSON.stringify(node), '-e', `'${script}'`] : [node, '-e', script]
      const result = await runCommandTool.run({ argv, ...(shell ? { shell } : {}) }, ctx())
      expect(result.ok, result.output).toBe(true)
      return JSON.parse(result.output) as Record<string, string>
    }

    it('never hands a command the display, the session bus or the SSH agent', async () => {
      for (const shell of [false, true]) {
        const env = await environmentOfCommand(shell)
        for (const name of Object.keys(SESSION_HANDLES)) {
          expect(env[name], `${name} (shell: ${shell})`).toBeUndefined()
        }
      }
    })

    it('passes only the fixed allowlist, with the values the runtime has', async () => {
      const env = await environmentOfCommand(false)
      expect(env).toMatchObject({ ...ALLOWED, PATH: process.env.PATH, HOME: process.env.HOME })
      // What node itself or the kernel adds besides the allowlist is not
      // the runtime's to pass; nothing of the runtime's other variables is.
      const passedThrough = Object.keys(env).filter(
        (name) => process.env[name] === env[name] && !BASE_AGENT_ENVIRONMENT.includes(name),
      )
      expect(passedThrough).toEqual([])
    })
  })

  it('refuses to start a command when nothing decided what contains it', async () => {
    const marker = path.join(ws, 'ran.txt')
    const result = await runCommandTool.run(
      { argv: ['touch', marker] },
      { workspace: ws, resolvedPaths: [ws], timeoutMs: 5_000 },
    )
    expect(result).toMatchObject({ ok: false, code: 'sandbox_unavailable' })
    expect(existsSync(marker)).toBe(false)
  })

  it('marks obviously destructive commands', () => {
    expect(runCommandTool.destructive({ argv: ['rm', '-rf', 'build'] })).toBe(true)
    expect(runCommandTool.destructive({ argv: ['ls', '-la'] })).toBe(false)
  })

  it('checks the cwd it will run in, defaulting to the workspace', () => {
    expect(runCommandTool.targetPaths({ argv: ['ls'] })).toEqual(['.'])
    expect(runCommandTool.targetPaths({ argv: ['ls'], cwd: 'sub' })).toEqual(['sub'])
  })

  it('refuses an empty argv or an empty program name', () => {
    expect(runCommandTool.argsSchema.safeParse({ argv: [] }).success).toBe(false)
    expect(runCommandTool.argsSchema.safeParse({ argv: [''] }).success).toBe(false)
    expect(runCommandTool.argsSchema.safeParse({ argv: ['ls'], env: {} }).success).toBe(false)
  })
})

import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  AGENT_PROCESSES_FILE_NAME,
  AgentProcessLedger,
  systemProcessTable,
  type ProcessTable,
} from './agent-process-ledger.ts'
import { WAIT_TIMEOUT_MS } from '../../../scripts/test-timing.ts'
import { requireOrSkip } from '../../../tests/support/require-or-skip.ts'
import { processRunning as running } from '../test-support/processes.ts'
import { startAgentProcess, type AgentProcess } from './agent-process.ts'

const tables: Array<[string, () => ProcessTable]> = [
  ['/proc', () => systemProcessTable()],
  ['ps', () => systemProcessTable('/no/proc/here')],
]

/** The ledger reads Linux's process table; elsewhere these tests say why they skip. */
const ON_LINUX = requireOrSkip(
  'a Linux process table',
  process.platform === 'linux' ? undefined : `this is ${process.platform}`,
  'run these tests on Linux',
)

describe.runIf(ON_LINUX).each(tables)(
  'AgentProcessLedger (processes read through %s)',
  (_name, table) => {
    let dataDir: string
    const started: Array<AgentProcess | ChildProcess> = []

    beforeEach(() => {
      dataDir = mkdtempSync(join(tmpdir(), 'assent-ledger-'))
    })
    afterEach(async () => {
      for (const child of started.splice(0)) {
        if ('stop' in child) await child.stop()
        else child.kill('SIGKILL')
      }
      rmSync(dataDir, { recursive: true, force: true })
    })

    /** An agent-like process: its own group, with a command it started. */
    function agentWithCommand(): { agent: AgentProcess; commandPid: Promise<number> } {
      const agent = startAgentProcess(
        { command: 'sh', args: ['-c', 'sleep 60 & echo $!; wait'], pass_env: [], set_env: {} },
        dataDir,
      )
      started.push(agent)
      const commandPid = new Promise<number>((resolve) => {
        agent.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim())))
      })
      return { agent, commandPid }
    }

    it('ends what a runtime that crashed left running: the agent and the commands it started', async () => {
      const { agent, commandPid } = agentWithCommand()
      new AgentProcessLedger(dataDir, table()).track(agent, 'codex-acp')
      const command = await commandPid
      expect(running(command)).toBe(true)

      // The next runtime, on the same data folder.
      const ended = new AgentProcessLedger(dataDir, table()).reapLeftovers()
      expect(ended).toEqual([agent.pid])
      expect(await agent.exited).toEqual({ code: null, signal: 'SIGKILL' })
      await expect.poll(() => running(command), { timeout: WAIT_TIMEOUT_MS }).toBe(false)
      expect(JSON.parse(readFileSync(join(dataDir, AGENT_PROCESSES_FILE_NAME), 'utf8'))).toEqual({
        processes: [],
      })
    })

    it('forgets a process once it has exited, so nothing is ended for it later', async () => {
      const agent = startAgentProcess(
        { command: 'sh', args: ['-c', 'exit 0'], pass_env: [], set_env: {} },
        dataDir,
      )
      const ledger = new AgentProcessLedger(dataDir, table())
      ledger.track(agent, 'codex')
      await agent.exited
      await expect
        .poll(() => readFileSync(join(dataDir, AGENT_PROCESSES_FILE_NAME), 'utf8'), {
          timeout: WAIT_TIMEOUT_MS,
        })
        .toBe('{"processes":[]}\n')
      expect(new AgentProcessLedger(dataDir, table()).reapLeftovers()).toEqual([])
    })

    it('leaves alone a process that took a recorded pid', async () => {
      const other = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' })
      started.push(other)
      const pid = other.pid ?? 0
      writeFileSync(
        join(dataDir, AGENT_PROCESSES_FILE_NAME),
        JSON.stringify({ processes: [{ pid, startedAt: 'another start', agentId: 'codex' }] }),
      )
      expect(new AgentProcessLedger(dataDir, table()).reapLeftovers()).toEqual([])
      expect(running(pid)).toBe(true)
    })

    it('ends the commands of an agent that is gone, by its group', async () => {
      // The agent (the shell) exits at once; its command stays in its group.
      const shell = spawn('sh', ['-c', 'sleep 60 & echo $!'], {
        detached: true,
        stdio: ['ignore', 'pipe', 'ignore'],
      })
      const exited = new Promise((resolve) => shell.once('exit', resolve))
      const command = await new Promise<number>((resolve) => {
        shell.stdout?.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim())))
      })
      await exited
      const group = shell.pid ?? 0
      expect(running(command)).toBe(true)
      writeFileSync(
        join(dataDir, AGENT_PROCESSES_FILE_NAME),
        JSON.stringify({ processes: [{ pid: group, startedAt: 'long ago', agentId: 'acp' }] }),
      )
      expect(new AgentProcessLedger(dataDir, table()).reapLeftovers()).toEqual([group])
      await expect.poll(() => running(command), { timeout: WAIT_TIMEOUT_MS }).toBe(false)
    })

    it('ends nothing on a damaged ledger, and starts a new one', () => {
      writeFileSync(join(dataDir, AGENT_PROCESSES_FILE_NAME), '{"processes": [{"pid": "1"}]}')
      expect(new AgentProcessLedger(dataDir, table()).reapLeftovers()).toEqual([])
      expect(readFileSync(join(dataDir, AGENT_PROCESSES_FILE_NAME), 'utf8')).toBe(
        '{"processes":[]}\n',
      )
    })
  },
)

describe.runIf(ON_LINUX)('the process table read through ps', () => {
  let folder: string
  const path = process.env.PATH
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'assent-ps-planted-'))
  })
  afterEach(() => {
    process.env.PATH = path
    rmSync(folder, { recursive: true, force: true })
  })

  // A folder first on PATH may be one a command can write: a `ps` left
  // there must not run with the person's rights whenever the runtime starts.
  it("runs the system's ps, never one first on PATH", () => {
    const marker = join(folder, 'ran')
    writeFileSync(join(folder, 'ps'), `#!/bin/sh\ntouch '${marker}'\necho planted\n`, {
      mode: 0o755,
    })
    process.env.PATH = `${folder}:${path ?? ''}`
    const table = systemProcessTable('/no/proc/here')
    const startedAt = table.startedAt(process.pid)
    expect(startedAt).not.toBeNull()
    expect(startedAt).not.toContain('planted')
    expect(table.groupMembers(process.pid)).toEqual(expect.any(Array))
    expect(existsSync(marker)).toBe(false)
  })
})

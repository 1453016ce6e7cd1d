import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BASE_AGENT_ENVIRONMENT } from '../../contracts/agents-config.ts'
import { runWithDescriptorsLeftOpen } from '../child-processes/test-support/left-open.ts'
import { agentEnvironment, startAgentProcess } from './agent-process.ts'

const source = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/person',
  LANG: 'C.UTF-8',
  ASSENT_BEARER_TOKEN: 'secret-token',
  OPENAI_API_KEY: 'sk-person',
  AWS_SECRET_ACCESS_KEY: 'aws',
}

describe('the agent environment', () => {
  it('passes only the base names and the ones the entry lists; fixed values win', () => {
    expect(agentEnvironment({ pass_env: [], set_env: {} }, source)).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/person',
      LANG: 'C.UTF-8',
      CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR: '1',
    })
    expect(
      agentEnvironment(
        { pass_env: ['OPENAI_API_KEY', 'NOT_SET'], set_env: { HOME: '/h', X: '1' } },
        source,
      ),
    ).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/h',
      LANG: 'C.UTF-8',
      OPENAI_API_KEY: 'sk-person',
      X: '1',
      CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR: '1',
    })
  })

  // Claude's Bash keeps the folder a `cd` left it in unless told not to;
  // its requests name no folder, so each command must run where shown.
  it('holds every command of Claude’s Bash to the project folder, whatever the entry sets', () => {
    expect(
      agentEnvironment(
        { pass_env: [], set_env: { CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR: '0' } },
        source,
      ).CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR,
    ).toBe('1')
  })
})

describe('the agent process', () => {
  let workspace: string
  beforeEach(() => {
    workspace = realpathSync(mkdtempSync(join(tmpdir(), 'assent-agent-process-')))
  })
  afterEach(() => rmSync(workspace, { recursive: true, force: true }))

  it('runs in the workspace with nothing of the runtime’s environment but what is allowed', async () => {
    const agent = startAgentProcess(
      {
        command: process.execPath,
        args: [
          '-e',
          'process.stdout.write(JSON.stringify({ cwd: process.cwd(), env: process.env }))',
        ],
        pass_env: [],
        set_env: { MARKER: 'set' },
      },
      workspace,
      { ...process.env, ASSENT_BEARER_TOKEN: 'secret-token' },
    )
    let output = ''
    agent.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    expect(await agent.exited).toEqual({ code: 0, signal: null })
    const seen = JSON.parse(output) as { cwd: string; env: Record<string, string> }
    expect(seen.cwd).toBe(workspace)
    expect(seen.env.MARKER).toBe('set')
    expect(seen.env.ASSENT_BEARER_TOKEN).toBeUndefined()
    const allowed = [
      ...BASE_AGENT_ENVIRONMENT,
      'MARKER',
      'CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR',
    ]
    expect(Object.keys(seen.env).filter((name) => !allowed.includes(name))).toEqual([])
  })

  it('stops the agent and what it started, even when the agent ignores SIGTERM', async () => {
    const script = [
      "process.on('SIGTERM', () => {})",
      "const child = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })",
      'process.stdout.write(String(child.pid) + "\\n")',
      'setInterval(() => {}, 1000)',
    ].join(';')
    const agent = startAgentProcess(
      { command: process.execPath, args: ['-e', script], pass_env: [], set_env: {} },
      workspace,
    )
    const grandchild = await new Promise<number>((resolve) =>
      agent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString('utf8').trim()))),
    )
    const exit = await agent.stop()
    expect(exit.signal).toBe('SIGKILL')
    await expect.poll(() => isAlive(grandchild), { timeout: 10_000 }).toBe(false)
  })
})

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

// The commands an agent runs in its own sandbox get what the agent has; a
// descriptor whatever started the runtime left open (a shell's
// `exec 30>>~/.bashrc`) would let one write through it whatever that
// sandbox says. The runtime here is a child that bash started with 30 open
// for appending and 31 open for reading.
describe('the descriptors an agent is handed', () => {
  it('are its three pipes, not one the runtime was left', async () => {
    const folder = realpathSync(mkdtempSync(join(tmpdir(), 'assent-agent-fds-')))
    try {
      const child = join(import.meta.dirname, 'test-support', 'agent-descriptors-child.ts')
      const { stdout, appended } = await runWithDescriptorsLeftOpen(folder, child, [folder])
      expect(stdout).toBe('read: \n')
      expect(readFileSync(appended, 'utf8')).toBe('')
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  })
})

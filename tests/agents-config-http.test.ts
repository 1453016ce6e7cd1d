import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { AgentListSchema } from '../src/contracts/agents-config.ts'
import { AGENTS_CONFIG_FILE_NAME } from '../src/runtime/external-agents/agents-config-loader.ts'
import { KNOWN_ACP_SESSION_MODES } from '../src/runtime/external-agents/agent-mode-mapping.ts'
import { auditEvents } from './support/policy-helpers.ts'
import { createRoom, send, timeline } from './support/room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * agents.json as a real runtime process reads it at start: the agents it
 * lists are offered for new rooms beside the built-in ones, a refused file
 * is audited and leaves the last good list in force, and an agent that
 * cannot start fails its turn instead of hanging it. No real agent runs
 * here: what is tested is what happens before one would.
 */
let root: string
let harness: RuntimeHarness | undefined

afterEach(async () => {
  await harness?.close()
  harness = undefined
  rmSync(root, { recursive: true, force: true })
})

const missingProgram = (id: string) => ({
  id,
  name: `Agent ${id}`,
  protocol: 'acp',
  command: join(tmpdir(), 'assent-no-such-agent', 'agent'),
  set_env: { SECRET_LOOKING: 'value-that-must-not-leak' },
  session_modes: KNOWN_ACP_SESSION_MODES['codex-acp'],
})

async function startWith(config: unknown): Promise<RuntimeHarness> {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-agents-http-')))
  writeAgents(config)
  harness = await startHarness({ root })
  return harness
}

function writeAgents(config: unknown): void {
  mkdirSync(join(root, 'data'), { recursive: true })
  writeFileSync(join(root, 'data', AGENTS_CONFIG_FILE_NAME), JSON.stringify(config))
}

async function listed(h: RuntimeHarness) {
  return (await h.client.request(AgentListSchema, 'GET', '/v1/agents')).agents
}

describe('agents.json in a running runtime', () => {
  it('offers its agents for new rooms beside the built-in ones, and never their command or environment', async () => {
    const h = await startWith({ agents: [missingProgram('helper')] })
    const agents = await listed(h)
    expect(agents).toEqual([
      { id: 'assistant', name: 'Assistant', kind: 'built-in', protocol: null },
      { id: 'reader', name: 'Reader', kind: 'built-in', protocol: null },
      { id: 'scoped', name: 'Scoped assistant', kind: 'built-in', protocol: null },
      { id: 'helper', name: 'Agent helper', kind: 'external', protocol: 'acp' },
    ])
    const raw = JSON.stringify((await h.client.raw('GET', '/v1/agents')).body)
    expect(raw).not.toContain('value-that-must-not-leak')
    expect(raw).not.toContain('assent-no-such-agent')
    expect((await createRoom(h, { agentId: 'helper' })).agentId).toBe('helper')
    const unknown = await h.client.raw('POST', '/v1/rooms', {
      kind: 'direct',
      agentId: 'nobody',
      workspace: h.workspace,
      title: 'x',
    })
    expect(unknown.body).toMatchObject({ code: 'unknown_agent' })
  })

  it('refuses a file that takes a built-in id, audits why, and keeps the last good list', async () => {
    const h = await startWith({ agents: [missingProgram('helper')] })
    writeAgents({ agents: [missingProgram('assistant')] })
    await h.restart()
    expect((await listed(h)).map((agent) => agent.id)).toEqual([
      'assistant',
      'reader',
      'scoped',
      'helper',
    ])
    const refused = (await auditEvents(h)).filter((e) => e.type === 'agents_config_refused')
    expect(refused).toHaveLength(1)
    expect(refused[0]?.payload).toMatchObject({ field: 'agents.0.id', agentsInForce: ['helper'] })
  })

  it('fails the turn of an agent that cannot start, saying so, and keeps the room usable', async () => {
    const h = await startWith({ agents: [missingProgram('helper')] })
    const room = await createRoom(h, { agentId: 'helper' })
    const turnId = await send(h, room.id, 'hello')
    const ended = await eventually(async () => {
      const current = await timeline(h, room.id)
      const turn = current.turns.find((candidate) => candidate.id === turnId)
      return turn?.status === 'failed' ? current : undefined
    }, 'the turn to fail')
    const notes = ended.messages
      .filter((message) => message.turnId === turnId && message.role === 'system')
      .map((message) => message.text)
    expect(notes).toEqual([expect.stringMatching(/^The agent Agent helper could not start: /)])
    const again = await h.client.request(
      z.object({ turn: z.object({ status: z.string() }) }),
      'POST',
      `/v1/rooms/${room.id}/messages`,
      { clientRequestId: 'second', text: 'again' },
    )
    expect(again.turn.status).toBe('running')
  })
})

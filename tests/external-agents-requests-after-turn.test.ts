import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  ExternalAgentConfigSchema,
  type AcpAgentConfig,
  type CodexAgentConfig,
} from '../src/contracts/agents-config.ts'
import { AcpClient } from '../src/runtime/external-agents/acp-client.ts'
import { CodexAppServerClient } from '../src/runtime/external-agents/codex-app-server-client.ts'
import type { ExternalAgentEvent } from '../src/runtime/external-agents/external-agent-port.ts'
import type { ScriptedAgentPlan } from './support/scripted-agent.ts'
import { ScriptedAsker } from './support/external-agent-testbed.ts'
import { scriptedAgentEntry, scriptedAnswers } from './support/scripted-agent-config.ts'

/**
 * A request that is not for the turn Assent runs: one the agent sends
 * after Assent ended its turn (ACP's `session/cancel`, the agent out of
 * the session mode Assent chose, Codex's `turn/interrupt`), or one that
 * names a turn other than the running one (Codex). Each is refused without
 * asking anyone: the asker here allows everything, as a grant that covers
 * the request or full access would, with no window. Against the scripted
 * agent of the hostile tests (tests/support/scripted-agent.ts), which
 * records every answer it gets.
 */
const SESSION = 'scripted-session'
const TURN = 'scripted-turn'

let dir: string
let events: ExternalAgentEvent[]
let closeClient: (() => Promise<void>) | undefined

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'assent-after-turn-'))
  events = []
})

afterEach(async () => {
  await closeClient?.()
  closeClient = undefined
  rmSync(dir, { recursive: true, force: true })
})

const answers = () => scriptedAnswers(dir).map((a) => a.answer.result)

function refusals(): string[] {
  return events.flatMap((e) => (e.type === 'request-refused' ? [`${e.code} -> ${e.answer}`] : []))
}

function acp(plan: ScriptedAgentPlan, asker: ScriptedAsker): AcpClient {
  const entry = scriptedAgentEntry(dir, 'acp', plan)
  const agent = ExternalAgentConfigSchema.parse(entry) as AcpAgentConfig
  const client = new AcpClient({ agent, workspace: dir, asker, onEvent: (e) => events.push(e) })
  closeClient = () => client.close()
  return client
}

function codex(plan: ScriptedAgentPlan, asker: ScriptedAsker): CodexAppServerClient {
  const entry = scriptedAgentEntry(dir, 'codex-app-server', plan)
  const agent = ExternalAgentConfigSchema.parse(entry) as CodexAgentConfig
  const client = new CodexAppServerClient({
    agent,
    workspace: dir,
    asker,
    onEvent: (e) => events.push(e),
  })
  closeClient = () => client.close()
  return client
}

const acpPermission = () => ({
  request: {
    method: 'session/request_permission',
    params: {
      sessionId: SESSION,
      toolCall: {
        toolCallId: 'call-after-cancel',
        kind: 'execute',
        title: 'touch',
        rawInput: { command: ['touch', 'after-cancel.txt'], cwd: dir },
      },
      options: [
        { optionId: 'yes', kind: 'allow_once' },
        { optionId: 'no', kind: 'reject_once' },
      ],
    },
  },
})

const codexCommand = (turnId: string) => ({
  request: {
    method: 'item/commandExecution/requestApproval',
    params: { threadId: SESSION, turnId, itemId: 'item-1', command: 'touch x.txt', cwd: dir },
  },
})

describe('the ACP door, once it ended the turn', () => {
  it('answers cancelled, without asking anyone, a request after the agent left its mode', async () => {
    const asker = new ScriptedAsker('allow-once')
    const modeLeft = {
      notification: {
        method: 'session/update',
        params: {
          sessionId: SESSION,
          update: { sessionUpdate: 'current_mode_update', currentModeId: 'auto' },
        },
      },
    }
    const client = acp({ onTurn: [modeLeft, acpPermission()] }, asker)
    await client.start('ask-for-approval')
    await client.runTurn('go')
    // The control: the door saw the switch and ended the turn.
    expect(events).toContainEqual({
      type: 'agent-warning',
      text: 'the agent left session mode read-only for auto; its turn is ended',
    })
    expect(answers()).toEqual([{ outcome: { outcome: 'cancelled' } }])
    expect(asker.asked).toHaveLength(0)
    expect(refusals()).toEqual(['turn-cancelled -> cancelled'])
  })

  it('answers cancelled, without asking anyone, a request after Assent sent session/cancel', async () => {
    const asker = new ScriptedAsker('allow-once')
    const client = acp({ onTurn: [{ sleepMs: 300 }, acpPermission()] }, asker)
    await client.start('ask-for-approval')
    const turn = client.runTurn('go')
    await client.interrupt()
    await turn
    expect(answers()).toEqual([{ outcome: { outcome: 'cancelled' } }])
    expect(asker.asked).toHaveLength(0)
    expect(refusals()).toEqual(['turn-cancelled -> cancelled'])
  })
})

describe('the Codex door, for a request that is not for the running turn', () => {
  it('refuses a command request naming another turn, without asking', async () => {
    const asker = new ScriptedAsker('allow-once')
    const client = codex({ onTurn: [codexCommand('an-earlier-turn'), codexCommand(TURN)] }, asker)
    await client.start('ask-for-approval')
    await client.runTurn('go')
    // The control: the same request for the running turn is asked.
    expect(answers()).toEqual([{ decision: 'decline' }, { decision: 'accept' }])
    expect(asker.asked).toHaveLength(1)
    expect(refusals()).toEqual(['other-turn -> decline'])
  })

  it('refuses a file change naming another turn, though its item was announced in that turn', async () => {
    const asker = new ScriptedAsker('allow-once')
    const item = {
      type: 'fileChange',
      id: 'item-2',
      status: 'inProgress',
      changes: [{ path: 'a.txt', kind: { type: 'add' }, diff: 'x\n' }],
    }
    const method = 'item/fileChange/requestApproval'
    const client = codex(
      {
        onTurn: [
          {
            notification: {
              method: 'item/started',
              params: { threadId: SESSION, turnId: 'an-earlier-turn', item },
            },
          },
          {
            request: {
              method,
              params: { threadId: SESSION, turnId: 'an-earlier-turn', itemId: 'item-2' },
            },
          },
        ],
      },
      asker,
    )
    await client.start('ask-for-approval')
    await client.runTurn('go')
    expect(answers()).toEqual([{ decision: 'decline' }])
    expect(asker.asked).toHaveLength(0)
    expect(refusals()).toEqual(['other-turn -> decline'])
  })

  it('cancels, without asking, a request of the turn after Assent interrupted it', async () => {
    const asker = new ScriptedAsker('allow-once')
    const client = codex({ onTurn: [{ sleepMs: 300 }, codexCommand(TURN)] }, asker)
    await client.start('ask-for-approval')
    const turn = client.runTurn('go')
    await client.interrupt()
    await turn
    expect(answers()).toEqual([{ decision: 'cancel' }])
    expect(asker.asked).toHaveLength(0)
    expect(refusals()).toEqual(['turn-cancelled -> cancel'])
  })
})

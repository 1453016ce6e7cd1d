import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  AGENT_COMMAND_TOOL,
  AGENT_FILE_CHANGE_TOOL,
  AGENT_TOOL_CALL_TOOL,
} from '../src/contracts/agent-request.ts'
import { ExternalAgentConfigSchema, type AcpAgentConfig } from '../src/contracts/agents-config.ts'
import { EventBus } from '../src/runtime/events/event-bus.ts'
import { AcpClient } from '../src/runtime/external-agents/acp-client.ts'
import { ExternalTurnTimeline } from '../src/runtime/external-turns/external-turn-timeline.ts'
import { SqliteAuditLog } from '../src/runtime/store/audit-log.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import {
  createRoom,
  openTempDatabase,
  sqliteStores,
  startTurn,
  turnFixture,
  type SqliteStores,
} from '../src/runtime/test-support/sqlite-stores.ts'
import { ScriptedAsker } from './support/external-agent-testbed.ts'
import type { ScriptedAgentPlan } from './support/scripted-agent.ts'
import { scriptedAgentEntry } from './support/scripted-agent-config.ts'

/**
 * Claude (claude-agent-acp) announces a tool call as soon as the model
 * starts it, before its input has streamed in: the first `tool_call` can
 * carry only a title, and the kind, input and diff come in a later
 * `tool_call_update`. The scripted agent process sends that sequence, and
 * the timeline must record each call as what it turned out to be, not as
 * the generic `agent_tool`.
 */
const SESSION = 'scripted-session'
const MAC = new IntegrityMac(Buffer.alloc(32, 9))

let dir: string
let close: () => void
let stores: SqliteStores
let closeClient: (() => Promise<void>) | undefined
const turn = turnFixture()

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'assent-acp-kind-'))
  let db
  ;({ db, close } = openTempDatabase('assent-acp-kind-db-'))
  stores = sqliteStores(db, { mac: MAC, audit: new SqliteAuditLog(db, { mac: MAC }) })
  createRoom(stores)
  startTurn(stores, turn)
})

afterEach(async () => {
  await closeClient?.()
  closeClient = undefined
  close()
  rmSync(dir, { recursive: true, force: true })
})

const update = (fields: Record<string, unknown>) => ({
  notification: {
    method: 'session/update',
    params: { sessionId: SESSION, update: fields },
  },
})

/** One turn of the scripted agent, its events recorded on a timeline. */
async function playTurn(plan: ScriptedAgentPlan) {
  let ids = 0
  const timeline = new ExternalTurnTimeline(turn, {
    conversations: stores.conversations,
    events: new EventBus(),
    now: () => 5,
    newId: () => `id-${(ids += 1)}`,
  })
  const agent = ExternalAgentConfigSchema.parse(
    scriptedAgentEntry(dir, 'acp', plan),
  ) as AcpAgentConfig
  const asker = new ScriptedAsker('allow-once')
  const client = new AcpClient({ agent, workspace: dir, asker, onEvent: timeline.record })
  closeClient = () => client.close()
  await client.start('ask-for-approval')
  await client.runTurn('go')
  return { asker }
}

const calls = () =>
  stores.conversations
    .listToolCallsOfTurn(turn.id)
    .map((call) => ({ toolName: call.toolName, arguments: call.arguments, status: call.status }))

describe('an ACP tool call whose kind arrives in a later update', () => {
  it('records a command, an edit and a read as what they turned out to be', async () => {
    const notes = join(dir, 'notes.txt')
    const { asker } = await playTurn({
      onTurn: [
        update({ sessionUpdate: 'tool_call', toolCallId: 'toolu_1', title: 'Terminal' }),
        update({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'toolu_1',
          kind: 'execute',
          title: '`ls`',
          rawInput: { command: 'ls' },
          status: 'in_progress',
        }),
        update({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'toolu_1',
          status: 'completed',
          content: [{ type: 'content', content: { type: 'text', text: 'notes.txt' } }],
        }),
        update({
          sessionUpdate: 'tool_call',
          toolCallId: 'toolu_2',
          title: 'Write',
          status: 'pending',
          rawInput: {},
        }),
        update({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'toolu_2',
          kind: 'edit',
          title: `Write ${notes}`,
          rawInput: { file_path: notes, content: 'hello\n' },
          content: [{ type: 'diff', path: notes, oldText: null, newText: 'hello\n' }],
        }),
        {
          request: {
            method: 'session/request_permission',
            params: {
              sessionId: SESSION,
              toolCall: { toolCallId: 'toolu_2' },
              options: [
                { optionId: 'allow', kind: 'allow_once' },
                { optionId: 'reject', kind: 'reject_once' },
              ],
            },
          },
        },
        update({ sessionUpdate: 'tool_call_update', toolCallId: 'toolu_2', status: 'completed' }),
        update({ sessionUpdate: 'tool_call', toolCallId: 'toolu_3', title: 'Read' }),
        update({
          sessionUpdate: 'tool_call_update',
          toolCallId: 'toolu_3',
          kind: 'read',
          title: `Read ${notes}`,
          status: 'completed',
        }),
      ],
    })
    expect(asker.asked.map((asked) => asked.request.action.kind)).toEqual(['file-changes'])
    expect(calls()).toEqual([
      {
        toolName: AGENT_COMMAND_TOOL,
        arguments: { commandLine: 'ls', cwd: dir },
        status: 'succeeded',
      },
      {
        toolName: AGENT_FILE_CHANGE_TOOL,
        arguments: { changes: [{ path: notes, change: 'add', movePath: null }] },
        status: 'succeeded',
      },
      {
        toolName: AGENT_TOOL_CALL_TOOL,
        arguments: { toolKind: 'read', title: `Read ${notes}` },
        status: 'succeeded',
      },
    ])
  })
})

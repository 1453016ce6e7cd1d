import type { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  AGENT_COMMAND_TOOL,
  AGENT_FILE_CHANGE_TOOL,
  AGENT_TOOL_CALL_TOOL,
} from '../../contracts/agent-request.ts'
import { EventBus, type RuntimeEvent } from '../events/event-bus.ts'
import type { ExternalAgentEvent } from '../external-agents/external-agent-port.ts'
import { SqliteAuditLog } from '../store/audit-log.ts'
import { IntegrityMac } from '../store/integrity-mac.ts'
import {
  createRoom,
  openTempDatabase,
  sqliteStores,
  startTurn,
  turnFixture,
  type SqliteStores,
} from '../test-support/sqlite-stores.ts'
import { ExternalTurnTimeline } from './external-turn-timeline.ts'

const MAC = new IntegrityMac(Buffer.alloc(32, 3))
let db: DatabaseSync
let close: () => void
let stores: SqliteStores
let seen: RuntimeEvent[]
let timeline: ExternalTurnTimeline
const turn = turnFixture()

beforeEach(() => {
  ;({ db, close } = openTempDatabase('assent-external-timeline-'))
  stores = sqliteStores(db, { mac: MAC, audit: new SqliteAuditLog(db, { mac: MAC }) })
  createRoom(stores)
  startTurn(stores, turn)
  const events = new EventBus()
  seen = []
  events.subscribe((event) => seen.push(event))
  let ids = 0
  timeline = new ExternalTurnTimeline(turn, {
    conversations: stores.conversations,
    events,
    now: () => 5,
    newId: () => `id-${(ids += 1)}`,
  })
})

afterEach(() => close())

const toolCall = (
  overrides: Partial<Extract<ExternalAgentEvent, { type: 'tool-call' }>>,
): ExternalAgentEvent => ({
  type: 'tool-call',
  toolCallId: 'call_1',
  title: "/bin/bash -lc 'ls'",
  status: 'running',
  action: { kind: 'command', commandLine: "/bin/bash -lc 'ls'", argv: null, cwd: '/ws' },
  output: null,
  exitCode: null,
  ...overrides,
})

const messages = () =>
  stores.conversations
    .listMessages(turn.roomId)
    .filter((message) => message.role !== 'user')
    .map((message) => [message.role, message.text])
const calls = () => stores.conversations.listToolCallsOfTurn(turn.id)

describe('ExternalTurnTimeline', () => {
  it("records the agent's messages, its warnings and refused requests, and announces each", () => {
    timeline.record({ type: 'agent-message', messageId: 'm1', text: 'Looking at the tests.' })
    timeline.record({ type: 'agent-warning', text: 'model metadata not found' })
    timeline.record({
      type: 'request-refused',
      method: 'item/fileChange/requestApproval',
      code: 'grant-root',
      detail: '/',
      answer: 'decline',
    })
    expect(messages()).toEqual([
      ['agent', 'Looking at the tests.'],
      ['system', 'The agent warned: model metadata not found'],
      [
        'system',
        'Assent refused a request of the agent without asking: it asked to write anywhere under a folder, not only the changes shown. The agent was answered "decline".',
      ],
    ])
    expect(seen.filter((event) => event.type === 'timeline.updated')).toHaveLength(3)
  })

  it('records a tool call once, then its status, output and exit code as the agent reports them', () => {
    timeline.record(toolCall({}))
    timeline.record(toolCall({ status: 'succeeded', output: 'a.txt\n', exitCode: 0 }))
    expect(calls()).toMatchObject([
      {
        toolName: AGENT_COMMAND_TOOL,
        arguments: { commandLine: "/bin/bash -lc 'ls'", cwd: '/ws' },
        status: 'succeeded',
        result: { ok: true, output: 'a.txt\n', exitCode: 0 },
        seq: 0,
      },
    ])
    expect(timeline.callFor('call_1')?.id).toBe(calls()[0]?.id)
  })

  it('records file changes by path and change, without their content', () => {
    timeline.record(
      toolCall({
        toolCallId: 'call_2',
        action: {
          kind: 'file-changes',
          changes: [
            {
              path: '/ws/a.txt',
              change: 'add',
              movePath: null,
              diff: 'secret-ish content',
              oldText: null,
              newText: null,
            },
          ],
        },
      }),
    )
    expect(calls()[0]).toMatchObject({
      toolName: AGENT_FILE_CHANGE_TOOL,
      arguments: { changes: [{ path: '/ws/a.txt', change: 'add', movePath: null }] },
    })
    expect(JSON.stringify(calls()[0]?.arguments)).not.toContain('secret-ish')
  })

  it('keeps the status and reason Assent gave a call, whatever the agent says afterwards', () => {
    timeline.record(toolCall({ status: 'awaiting-approval' }))
    const call = timeline.callFor('call_1')
    if (!call) throw new Error('no call')
    timeline.settleByAssent(call, 'expired', {
      ok: false,
      output: 'Nobody confirmed this action in time; the agent was told no.',
      code: 'approval_expired',
    })
    timeline.record(toolCall({ status: 'denied', output: 'rejected by user' }))
    expect(calls()[0]).toMatchObject({ status: 'expired', result: { code: 'approval_expired' } })
  })

  it('records a request the agent never announced as a call awaiting approval, once', () => {
    const first = timeline.callForRequest('call_9', AGENT_COMMAND_TOOL, { commandLine: 'ls' })
    const again = timeline.callForRequest('call_9', AGENT_COMMAND_TOOL, { commandLine: 'ls' })
    expect(again.id).toBe(first.id)
    expect(calls()).toMatchObject([
      { status: 'awaiting-approval', arguments: { commandLine: 'ls' } },
    ])
  })

  describe('a call the agent names only after announcing it', () => {
    const vague = (toolKind: string, title: string, toolCallId = 'call_1') =>
      toolCall({
        toolCallId,
        title,
        action: { kind: 'tool', toolKind, title, input: {}, locations: [] },
      })

    it('takes the command a later update names, in place of the generic tool', () => {
      timeline.record(vague('other', 'Terminal'))
      timeline.record(toolCall({ title: 'ls' }))
      timeline.record(toolCall({ status: 'succeeded', output: 'a.txt\n', exitCode: 0 }))
      expect(calls()).toMatchObject([
        {
          toolName: AGENT_COMMAND_TOOL,
          arguments: { commandLine: "/bin/bash -lc 'ls'", cwd: '/ws' },
          status: 'succeeded',
          seq: 0,
        },
      ])
    })

    it('takes a kind and title a later update adds, and never gives them up again', () => {
      timeline.record(vague('other', ''))
      timeline.record(vague('read', 'Read /ws/a.txt'))
      timeline.record(vague('other', ''))
      timeline.record(vague('search', ''))
      expect(calls()).toMatchObject([
        {
          toolName: AGENT_TOOL_CALL_TOOL,
          arguments: { toolKind: 'read', title: 'Read /ws/a.txt' },
        },
      ])
    })

    it('never redescribes a call once it names itself, or once a person is asked about it', () => {
      timeline.record(toolCall({}))
      timeline.record(vague('fetch', 'Fetch'))
      timeline.record(vague('other', 'Write', 'call_2'))
      timeline.callForRequest('call_2', AGENT_TOOL_CALL_TOOL, { toolKind: 'other', title: 'Write' })
      timeline.record(toolCall({ toolCallId: 'call_2' }))
      expect(calls().map((call) => [call.toolName, call.arguments])).toEqual([
        [AGENT_COMMAND_TOOL, { commandLine: "/bin/bash -lc 'ls'", cwd: '/ws' }],
        [AGENT_TOOL_CALL_TOOL, { toolKind: 'other', title: 'Write' }],
      ])
    })
  })
})

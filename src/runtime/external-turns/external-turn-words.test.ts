import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import type { ExternalAgentConfig } from '../../contracts/agents-config.ts'
import type { RoomPolicy } from '../../contracts/policy-axes.ts'
import {
  messagePieces,
  RUNTIME_MESSAGES_EN,
  templateIn,
  type RuntimeMessage,
} from '../../contracts/runtime-message.ts'
import { catalogs } from '../../common/i18n/index.ts'
import { englishWordsIn } from '../../common/i18n/latin-words.ts'
import { EventBus } from '../events/event-bus.ts'
import type {
  ExternalAgentEvent,
  ExternalApprovalAsker,
  ExternalRefusalCode,
} from '../external-agents/external-agent-port.ts'
import { policyForMode } from '../policy/permission-modes.ts'
import { IntegrityMac } from '../store/integrity-mac.ts'
import {
  approvalFixture,
  openTempDatabase,
  ROOM_ID,
  sqliteStores,
  startTurn,
  turnFixture,
  type SqliteStores,
  roomAsFrozen,
} from '../test-support/sqlite-stores.ts'
import { codexRequest } from '../test-support/external-asker.ts'
import { shownAgentRequest } from './agent-request-action.ts'
import { ExternalAgentBackend } from './external-agent-backend.ts'

// The agent process stands in (the real agents are not installed on every
// machine; tests/external-agents-runtime-*.test.ts drive them): what is
// judged is the words Assent writes around what the agent does.

const MAC = new IntegrityMac(Buffer.alloc(32, 6))
const AGENT: ExternalAgentConfig = {
  id: 'codex',
  name: 'Codex CLI',
  protocol: 'codex-app-server',
  command: 'codex',
  args: ['app-server'],
  pass_env: [],
  set_env: {},
}

const zh = (code: string) => templateIn(catalogs['zh-CN'].runtime, code)

/** A message's own words in zh-CN, its values (paths, commands, the
 *  agent's text) left out; undefined when zh-CN cannot word it. */
function zhWords(words: RuntimeMessage): string | undefined {
  return messagePieces(words, zh)
    ?.map((piece) => ('text' in piece ? piece.text : ' '))
    .join('')
}

const ALL_REFUSALS: ExternalRefusalCode[] = [
  'unreadable',
  'other-session',
  'unsupported-request',
  'unsupported-command-kind',
  'network-access',
  'extra-permissions',
  'no-command-line',
  'unannounced-changes',
  'grant-root',
  'command-folder-not-absolute',
  'no-allow-once-option',
  'ambiguous-options',
  'turn-cancelled',
  'other-turn',
]

let db: DatabaseSync
let close: () => void
let workspace: string
let stores: SqliteStores

beforeEach(() => {
  ;({ db, close } = openTempDatabase('assent-external-words-'))
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'assent-external-words-ws-')))
  stores = sqliteStores(db, { mac: MAC })
})

afterEach(() => {
  close()
  rmSync(workspace, { recursive: true, force: true })
})

const request = codexRequest

/**
 * Runs one turn of the room's agent through the real backend, asker and
 * timeline, the agent standing in with `play`; the person's decisions come
 * back as `decided` says.
 */
async function turnPlayed(
  policy: RoomPolicy,
  play: (asker: ExternalApprovalAsker, emit: (event: ExternalAgentEvent) => void) => Promise<void>,
  decided: (approval: ApprovalRecord) => ApprovalRecord,
): Promise<void> {
  stores.rooms.create({
    id: ROOM_ID,
    kind: 'direct',
    agentId: AGENT.id,
    workspace,
    title: 'Codex room',
    policy,
    revision: 0,
    createdAt: 1,
  })
  const turn = turnFixture({ workspace, policy })
  startTurn(stores, turn)
  let ids = 0
  const backend = new ExternalAgentBackend({
    agents: [AGENT],
    openSession: ({ asker, onEvent }) => ({
      start: async () => undefined,
      runTurn: async () => {
        await play(asker, onEvent)
        return { status: 'failed', detail: 'exit status 3' }
      },
      interrupt: async () => undefined,
      close: async () => undefined,
    }),
    requester: {
      open: ({ call, action }) => {
        const approval = approvalFixture({
          toolCallId: call.id,
          toolName: action.toolName,
          arguments: action.arguments,
        })
        return { approval, outcome: Promise.resolve(decided(approval)), withdraw: () => undefined }
      },
    },
    grants: stores.grants,
    room: roomAsFrozen(stores),
    conversations: stores.conversations,
    events: new EventBus(),
    now: () => 1_000,
    durable: async () => undefined,
    newId: () => `id-${(ids += 1)}`,
  })
  backend.start(turn, AGENT.id)
  await backend.settled()
}

/** Everything Assent wrote on the timeline in words: its notes and the
 *  results of the calls it ended. */
function assentsWords(): Array<{ english: string; message: RuntimeMessage | undefined }> {
  const notes = stores.conversations
    .listMessages(ROOM_ID)
    .filter((said) => said.role === 'system')
    .map((said) => ({ english: said.text, message: said.message }))
  const results = stores.conversations
    .listToolCalls(ROOM_ID)
    .flatMap((call) => (call.result === null ? [] : [call.result]))
    .map((result) => ({ english: result.output, message: result.message }))
  return [...notes, ...results]
}

describe('an external agent’s timeline in Chinese', () => {
  it('words every note and every call Assent ended in zh-CN, with no English word left', async () => {
    await turnPlayed(
      policyForMode('ask-for-approval'),
      async (asker, emit) => {
        const signal = new AbortController().signal
        emit({ type: 'agent-warning', text: 'model metadata not found' })
        for (const code of ALL_REFUSALS) {
          emit({ type: 'request-refused', method: 'm', code, detail: 'x', answer: 'decline' })
        }
        await asker.ask(request({ kind: 'file-changes', changes: [] }), signal)
        await asker.ask(
          request({ kind: 'command', commandLine: 'ls', argv: null, cwd: tmpdir() }),
          signal,
        )
        await asker.ask(
          request({ kind: 'command', commandLine: 'ls', argv: ['ls'], cwd: workspace }),
          signal,
        )
      },
      (approval) => ({ ...approval, status: 'denied', decidedBy: 'user', decidedAt: 2 }),
    )
    const words = assentsWords()
    // A warning, each refusal, three calls ended, and how the turn ended.
    expect(words).toHaveLength(ALL_REFUSALS.length + 5)
    for (const { english, message } of words) {
      expect(message, english).toBeDefined()
      const chinese = zhWords(message as RuntimeMessage)
      expect(chinese, english).toBeDefined()
      expect(englishWordsIn(chinese ?? ''), `${english} → ${chinese}`).toEqual([])
    }
  })

  it('words an expired request in zh-CN', async () => {
    await turnPlayed(
      policyForMode('ask-for-approval'),
      async (asker) => {
        await asker.ask(
          request({ kind: 'command', commandLine: 'ls', argv: ['ls'], cwd: workspace }),
          new AbortController().signal,
        )
      },
      (approval) => ({ ...approval, status: 'expired' }),
    )
    const expired = assentsWords().find((said) => said.message?.code === 'external.expired')
    expect(zhWords(expired?.message as RuntimeMessage)).toBe(
      '没有人及时确认此操作；已告诉智能体不行。',
    )
  })

  it('words the card’s summary of a file change in zh-CN', () => {
    const change = (path: string) => ({
      path,
      change: 'update' as const,
      movePath: null,
      diff: '@@ -1 +1 @@\n-a\n+b\n',
      oldText: null,
      newText: null,
    })
    const agent = { id: AGENT.id, name: AGENT.name, protocol: AGENT.protocol }
    const one = shownAgentRequest(
      request({ kind: 'file-changes', changes: [change('/ws/a.txt')] }),
      agent,
      '/ws',
    )
    const three = shownAgentRequest(
      request({
        kind: 'file-changes',
        changes: [change('/ws/a.txt'), change('/ws/b.txt'), change('/ws/c.txt')],
      }),
      agent,
      '/ws',
    )
    const summary = (shown: typeof one) =>
      'shown' in shown ? shown.shown.action.summaryMessage : undefined
    expect(summary(one)).toBeDefined()
    expect(messagePieces(summary(one) as RuntimeMessage, zh)).toEqual([
      { text: '编辑 ' },
      { value: '/ws/a.txt' },
    ])
    expect(zhWords(summary(three) as RuntimeMessage)).toBe('编辑  ，另有 2 个文件')
    // The summary the digest binds is unchanged: every file, in English.
    expect('shown' in three && three.shown.action.summary).toBe(
      'Edit /ws/a.txt, Edit /ws/b.txt, Edit /ws/c.txt',
    )
  })

  it('has no Latin word but product names in any zh-CN message of an external agent’s turn', () => {
    const codes = Object.keys(RUNTIME_MESSAGES_EN.external).flatMap((key) =>
      key === 'refusal'
        ? Object.keys(RUNTIME_MESSAGES_EN.external.refusal).map((r) => `external.refusal.${r}`)
        : [`external.${key}`],
    )
    const latin = codes.filter((code) => englishWordsIn(zh(code) ?? 'missing').length > 0)
    expect(latin).toEqual([])
  })
})

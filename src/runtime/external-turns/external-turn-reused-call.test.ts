import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AgentIdentity } from '../../contracts/agent-request.ts'
import type { ToolCallRecord } from '../../contracts/room.ts'
import type { ExternalActionRequest } from '../external-agents/external-agent-port.ts'
import { grantForDecision } from '../agent/grant-issuer.ts'
import { policyForMode } from '../policy/permission-modes.ts'
import { IntegrityMac } from '../store/integrity-mac.ts'
import { codexRequest, ExternalAskerWorld } from '../test-support/external-asker.ts'
import { ROOM_ID } from '../test-support/sqlite-stores.ts'
import type { ExternalTurnAsker } from './external-turn-asker.ts'
import type { ExternalTurnTimeline } from './external-turn-timeline.ts'

/**
 * An agent names the calls it asks about, and may name two of them alike:
 * a request for a call it announced as something else, or a second request
 * for a call that is over. Whichever door allows the request (the mode, a
 * grant, the person), the room's timeline says what was allowed: the
 * record of a call is what its request described, and an ended call keeps
 * its own record.
 */

const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }
const SAME_ID = 'agent-call-reused'

let workspace: string
let world: ExternalAskerWorld

beforeEach(() => {
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'assent-external-reused-ws-')))
  world = new ExternalAskerWorld({
    prefix: 'assent-external-reused-',
    mac: new IntegrityMac(Buffer.alloc(32, 5)),
    agent: AGENT,
    workspace,
    now: () => 1_000,
    grantFor: (approval) => grantForDecision(approval, { now: () => 1_000 }),
  })
})

afterEach(() => {
  world.close()
  rmSync(workspace, { recursive: true, force: true })
})

/** An edit of one file (what an agent's "always" may remember), under
 *  `toolCallId` where given. */
const edit = (file: string, toolCallId?: string): ExternalActionRequest => {
  const request = codexRequest({ kind: 'file-changes', changes: [changeOf(file)] })
  return toolCallId === undefined ? request : { ...request, toolCallId }
}
const changeOf = (file: string) => ({
  path: join(workspace, file),
  change: 'add' as const,
  movePath: null,
  diff: 'new\n',
  oldText: null,
  newText: null,
})
const live = () => new AbortController().signal
const approvals = () => world.stores.approvals.listByRoom(ROOM_ID)
const pending = () => approvals().filter((approval) => approval.status === 'pending')

interface Door {
  name: string
  mode: Parameters<typeof policyForMode>[0]
  /** Makes whatever lets the edit of b.txt through before it is asked. */
  before?: (asker: ExternalTurnAsker) => Promise<void>
  /** Answers the request to edit b.txt, once it is asked. */
  answer?: () => Promise<void>
}

async function decideFirst(decision: 'allow-once' | 'allow-always'): Promise<void> {
  await expect.poll(() => pending().length).toBe(1)
  await world.gate.decide({ approvalId: pending()[0]!.id, decision, decidedBy: 'user' })
}

const DOORS: Door[] = [
  { name: 'the mode (full access)', mode: 'full-access' },
  {
    name: 'a grant (the person allowed the edit of b.txt always, for another call)',
    mode: 'ask-for-approval',
    before: async (asker) => {
      const asked = asker.ask(edit('b.txt'), live())
      await decideFirst('allow-always')
      await expect(asked).resolves.toBe('allow-always')
    },
  },
  { name: 'the person', mode: 'ask-for-approval', answer: () => decideFirst('allow-once') },
]

/** Asks to edit b.txt under `SAME_ID` through `door`; resolves allowed. */
async function allowedThrough(door: Door, asker: ExternalTurnAsker): Promise<void> {
  const asked = asker.ask(edit('b.txt', SAME_ID), live())
  await door.answer?.()
  await expect(asked).resolves.toBe('allow-once')
}

/** The files of this test a call's record names. */
function names(call: ToolCallRecord): string[] {
  const said = JSON.stringify(call.arguments)
  return ['a.txt', 'b.txt'].filter((file) => said.includes(file))
}

function callsOf(turnId: string): ToolCallRecord[] {
  return world.stores.conversations.listToolCallsOfTurn(turnId)
}

/** The agent's word that its call ended. */
function ended(timeline: ExternalTurnTimeline, status: 'succeeded' | 'failed'): void {
  timeline.record({
    type: 'tool-call',
    toolCallId: SAME_ID,
    title: 'a.txt',
    status,
    action: { kind: 'file-changes', changes: [changeOf('a.txt')] },
    output: '',
    exitCode: status === 'succeeded' ? 0 : 1,
  })
}

describe('ExternalTurnAsker: two requests under one call id', () => {
  it.each(DOORS)(
    'keeps an ended call as it ended and records the next as its own, through $name',
    async (door) => {
      const { asker, timeline, turn } = world.askerUnder(policyForMode(door.mode))
      await door.before?.(asker)
      const before = callsOf(turn.id).length
      const first = asker.ask(edit('a.txt', SAME_ID), live())
      if (door.mode !== 'full-access') await decideFirst('allow-once')
      await expect(first).resolves.toBe('allow-once')
      ended(timeline, 'succeeded')
      await allowedThrough(door, asker)
      const calls = callsOf(turn.id).slice(before)
      expect(calls.map((call) => [names(call), call.status])).toEqual([
        [['a.txt'], 'succeeded'],
        [['b.txt'], 'running'],
      ])
    },
  )

  it.each(DOORS)(
    'records a call as its request describes it, not as the agent announced it, through $name',
    async (door) => {
      const { asker, timeline, turn } = world.askerUnder(policyForMode(door.mode))
      await door.before?.(asker)
      const before = callsOf(turn.id).length
      timeline.record({
        type: 'tool-call',
        toolCallId: SAME_ID,
        title: 'a.txt',
        status: 'awaiting-approval',
        action: { kind: 'file-changes', changes: [changeOf('a.txt')] },
        output: null,
        exitCode: null,
      })
      await allowedThrough(door, asker)
      const calls = callsOf(turn.id).slice(before)
      expect(calls.map((call) => [names(call), call.status])).toEqual([[['b.txt'], 'running']])
    },
  )
})

import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AgentIdentity } from '../src/contracts/agent-request.ts'
import type { PermissionMode } from '../src/contracts/policy-axes.ts'
import { grantForDecision } from '../src/runtime/agent/grant-issuer.ts'
import type { ExternalDecision } from '../src/runtime/external-agents/external-agent-port.ts'
import type { ExternalTurnAsker } from '../src/runtime/external-turns/external-turn-asker.ts'
import type { ApprovalGate } from '../src/runtime/gate/approval-gate.ts'
import { modeFromPolicy, policyForMode } from '../src/runtime/policy/permission-modes.ts'
import type { ActionReviewer } from '../src/runtime/policy/reviewer.ts'
import type { DelegatedApprover } from '../src/runtime/ports/delegated-approver.ts'
import { storedRoomNow } from '../src/runtime/rooms/stored-room-now.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { codexRequest, ExternalAskerWorld } from '../src/runtime/test-support/external-asker.ts'
import { ROOM_ID, type SqliteStores } from '../src/runtime/test-support/sqlite-stores.ts'

/**
 * An external agent runs what it is allowed outside Assent's sandbox, so
 * the rule is all there is: what allowed a request must still stand under
 * the narrower of the turn's frozen policy and the room's policy now, right
 * before the agent hears "yes". One table, allower × narrowing, walked
 * through the external-turn asker and the requester behind it, with a
 * reviewer and a webhook that allow everything; the controls must still
 * pass. The room is narrowed as RoomService.changeMode writes it.
 */

const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

let world: ExternalAskerWorld
let workspace: string
let stores: SqliteStores
let gate: ApprovalGate
let ids: number
/** The room's approver webhook, while it has one. */
let webhook: { webhookId: string; createdAt: number } | undefined
/** Runs once, while the allowed request waits for the disk. */
let duringDiskWait: (() => void) | undefined
/** Lets the reviewer's or the webhook's "allow" go, once the test narrowed. */
let releaseDecider: () => void

beforeEach(() => {
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'assent-allower-ext-ws-')))
  world = new ExternalAskerWorld({
    prefix: 'assent-allower-ext-',
    mac: new IntegrityMac(Buffer.alloc(32, 4)),
    agent: AGENT,
    workspace,
    now: () => 1_000,
    grantFor: (approval) => grantForDecision(approval, { now: () => 1_000 }),
  })
  ;({ stores, gate } = world)
  ids = 0
  webhook = undefined
  duringDiskWait = undefined
  releaseDecider = () => undefined
})
afterEach(() => {
  world.close()
  rmSync(workspace, { recursive: true, force: true })
})

const deciderWaits = () =>
  new Promise<void>((resolve) => {
    releaseDecider = resolve
  })
const REVIEWER_ALLOWS_LATE: ActionReviewer = {
  review: async () => {
    await deciderWaits()
    return { verdict: 'allow', reason: 'looks fine to me' }
  },
}
const WEBHOOK_ALLOWS_LATE: DelegatedApprover = {
  id: 'webhook-1',
  decide: async () => {
    await deciderWaits()
    return { decision: 'allow-once', reason: 'webhook ok' }
  },
}

/** The room's mode changed, as RoomService.changeMode writes it (made at
 *  `mode` first, when it is not there yet). */
function changeMode(mode: PermissionMode): void {
  const room = stores.rooms.get(ROOM_ID)
  if (room === undefined) {
    world.askerUnder(policyForMode(mode))
    return
  }
  const changed = stores.rooms.changePolicy(
    {
      roomId: ROOM_ID,
      clientRequestId: `change-${(ids += 1)}`,
      bodyDigest: 'x',
      policy: policyForMode(mode),
      expectedRevision: room.revision,
      fromMode: modeFromPolicy(room.policy),
      toMode: mode,
      at: 1_000,
    },
    () => ({ roomId: ROOM_ID, revision: room.revision + 1 }) as never,
  )
  expect(changed).toBeDefined()
}

/** A turn admitted as the runtime admits one: under the room's policy now,
 *  its doors reading the room as it is stored. */
function startExternalTurn(): ExternalTurnAsker {
  const room = storedRoomNow({
    rooms: stores.rooms,
    grants: stores.grants,
    webhooks: { get: () => (webhook ? { ...webhook, roomId: ROOM_ID } : undefined) as never },
  })
  return world.askerUnder(stores.rooms.get(ROOM_ID)!.policy, {
    reviewer: REVIEWER_ALLOWS_LATE,
    ...(webhook ? { delegate: WEBHOOK_ALLOWS_LATE } : {}),
    durable: async () => {
      const act = duringDiskWait
      duringDiskWait = undefined
      act?.()
    },
    room,
  }).asker
}

const notes = () => join(workspace, 'notes.txt')
const newFile = () =>
  codexRequest({
    kind: 'file-changes',
    changes: [
      { path: notes(), change: 'add', movePath: null, diff: 'x\n', oldText: null, newText: null },
    ],
  })

/** The person's "always allow" of the same request, in an earlier turn. */
async function grantNotes(): Promise<string> {
  const first = startExternalTurn().ask(newFile(), new AbortController().signal)
  await expect.poll(() => stores.approvals.listByRoom(ROOM_ID).length).toBe(1)
  const [approval] = stores.approvals.listByRoom(ROOM_ID)
  await gate.decide({ approvalId: approval!.id, decision: 'allow-always', decidedBy: 'user' })
  await expect(first).resolves.toBe('allow-always')
  return stores.grants.listActive(ROOM_ID)[0]!.id
}

const pendingApproval = () =>
  stores.approvals.listByRoom(ROOM_ID).find((approval) => approval.status === 'pending')

/** The request's call record, as the timeline shows it. */
function lastCall() {
  return stores.conversations.listToolCalls(ROOM_ID).at(-1)
}

type Stage = 'next-request' | 'disk' | 'decider' | 'person'
interface Row {
  allower: string
  narrowing: string
  mode: PermissionMode
  grant?: true
  webhook?: true
  stage: Stage
  /** What the person or the room does at `stage`. */
  act: () => void
  expected: ExternalDecision | 'left-to-person' | 'withdrawn'
  code?: string
}

const ROWS: Row[] = [
  // Attacks: what allowed the request no longer stands.
  {
    allower: 'grant',
    narrowing: 'plan, before the request',
    mode: 'ask-for-approval',
    grant: true,
    stage: 'next-request',
    act: () => changeMode('plan'),
    expected: 'deny',
    code: 'sandbox_read_only',
  },
  {
    allower: 'grant',
    narrowing: 'revoked during the disk wait',
    mode: 'ask-for-approval',
    grant: true,
    stage: 'disk',
    act: () => stores.grants.revoke(ROOM_ID, stores.grants.listActive(ROOM_ID)[0]!.id, 1_000),
    expected: 'deny',
    code: 'grant_revoked',
  },
  {
    allower: 'grant',
    narrowing: 'plan, during the disk wait',
    mode: 'ask-for-approval',
    grant: true,
    stage: 'disk',
    act: () => changeMode('plan'),
    expected: 'deny',
    code: 'room_narrowed',
  },
  {
    allower: 'full access',
    narrowing: 'plan, before the request',
    mode: 'full-access',
    stage: 'next-request',
    act: () => changeMode('plan'),
    expected: 'deny',
    code: 'sandbox_read_only',
  },
  {
    allower: 'full access',
    narrowing: 'ask-for-approval, during the disk wait',
    mode: 'full-access',
    stage: 'disk',
    act: () => changeMode('ask-for-approval'),
    expected: 'deny',
    code: 'room_narrowed',
  },
  {
    allower: 'reviewer allowing everything',
    narrowing: 'ask-for-approval, while it reviews',
    mode: 'approve-for-me',
    stage: 'decider',
    act: () => changeMode('ask-for-approval'),
    expected: 'left-to-person',
  },
  {
    allower: 'reviewer allowing everything',
    narrowing: 'plan, while it reviews',
    mode: 'approve-for-me',
    stage: 'decider',
    act: () => changeMode('plan'),
    expected: 'withdrawn',
  },
  {
    allower: 'webhook allowing everything',
    narrowing: 'removed ("Stop it"), while it is asked',
    mode: 'ask-for-approval',
    webhook: true,
    stage: 'decider',
    act: () => (webhook = undefined),
    expected: 'left-to-person',
  },
  {
    allower: 'webhook allowing everything',
    narrowing: 'replaced by another, while it is asked',
    mode: 'ask-for-approval',
    webhook: true,
    stage: 'decider',
    act: () => (webhook = { webhookId: 'webhook-2', createdAt: 1_000 }),
    expected: 'left-to-person',
  },
  {
    allower: 'webhook allowing everything',
    narrowing: 'plan, while it is asked',
    mode: 'ask-for-approval',
    webhook: true,
    stage: 'decider',
    act: () => changeMode('plan'),
    expected: 'withdrawn',
  },
  {
    allower: 'webhook allowing everything',
    narrowing: 'removed during the disk wait',
    mode: 'ask-for-approval',
    webhook: true,
    stage: 'disk',
    act: () => (webhook = undefined),
    expected: 'deny',
    code: 'webhook_removed',
  },
  {
    allower: 'person',
    narrowing: 'plan, while they read',
    mode: 'ask-for-approval',
    stage: 'person',
    act: () => changeMode('plan'),
    expected: 'deny',
    code: 'room_narrowed',
  },
  // Controls: nothing narrowed what allowed it, or the room was widened.
  {
    allower: 'grant',
    narrowing: 'none (control)',
    mode: 'ask-for-approval',
    grant: true,
    stage: 'next-request',
    act: () => undefined,
    expected: 'allow-once',
  },
  {
    allower: 'person',
    narrowing: 'approve-for-me → ask-for-approval, while they read (control)',
    mode: 'approve-for-me',
    stage: 'person',
    act: () => changeMode('ask-for-approval'),
    expected: 'allow-once',
  },
  {
    allower: 'webhook allowing everything',
    narrowing: 'none (control)',
    mode: 'ask-for-approval',
    webhook: true,
    stage: 'decider',
    act: () => undefined,
    expected: 'allow-once',
  },
  {
    allower: 'nobody yet',
    narrowing: 'widened to full access (control: never reaches the turn)',
    mode: 'ask-for-approval',
    stage: 'next-request',
    act: () => changeMode('full-access'),
    expected: 'left-to-person',
  },
]

describe("what allowed an external agent's request must still stand when the agent is told", () => {
  it.each(ROWS)('$allower × $narrowing → $expected', async (row) => {
    changeMode(row.mode)
    if (row.grant) await grantNotes()
    if (row.webhook) webhook = { webhookId: 'webhook-1', createdAt: 1 }
    const asker = startExternalTurn()
    if (row.stage === 'next-request') row.act()
    if (row.stage === 'disk') duringDiskWait = row.act
    const controller = new AbortController()
    const answer = asker.ask(newFile(), controller.signal)

    if (row.stage === 'person') {
      await expect.poll(() => pendingApproval()).toBeDefined()
      row.act()
      await gate.decide({
        approvalId: pendingApproval()!.id,
        decision: 'allow-once',
        decidedBy: 'user',
      })
      // The reviewer answers after the person: its late allow counts for nothing.
      releaseDecider()
    }
    if (row.stage === 'disk' && row.webhook) {
      await expect.poll(() => pendingApproval()).toBeDefined()
      releaseDecider()
    }
    if (row.stage === 'decider') {
      await expect.poll(() => pendingApproval()).toBeDefined()
      // The decider has been asked and not answered yet.
      await new Promise((resolve) => setTimeout(resolve, 20))
      row.act()
      releaseDecider()
    }

    if (row.expected === 'left-to-person') {
      // Nobody but the person may answer it now: it waits for them.
      await new Promise((resolve) => setTimeout(resolve, 50))
      const left = pendingApproval()
      expect(left).toBeDefined()
      expect(left!.decidedBy).toBeUndefined()
      controller.abort()
      await expect(answer).resolves.toBe('cancelled')
      return
    }
    if (row.expected === 'withdrawn') {
      await expect(answer).resolves.toBe('expired')
      const [approval] = stores.approvals.listByRoom(ROOM_ID).slice(-1)
      expect(approval).toMatchObject({ status: 'expired' })
      expect(approval!.decidedBy).not.toBe('webhook')
      return
    }
    await expect(answer).resolves.toBe(row.expected)
    if (row.code !== undefined) expect(lastCall()?.result?.code).toBe(row.code)
  })
})

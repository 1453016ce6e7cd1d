import type { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { RoomPolicy } from '../../contracts/policy-axes.ts'
import { EventBus, type RuntimeEvent } from '../events/event-bus.ts'
import { policyForMode } from '../policy/permission-modes.ts'
import { RuleBasedReviewer, type ActionReviewer, type ReviewInput } from '../policy/reviewer.ts'
import { SqliteAuditLog } from '../store/audit-log.ts'
import { IntegrityMac } from '../store/integrity-mac.ts'
import {
  createRoom,
  openTempDatabase,
  sqliteStores,
  startTurn,
  toolCallFixture,
  turnFixture,
  type SqliteStores,
  roomAsFrozen,
} from '../test-support/sqlite-stores.ts'
import { ApprovalGate } from './approval-gate.ts'
import { ApprovalRequester, NEVER_ASKS_REASON, type ApprovalRequest } from './approval-requester.ts'

const MAC = new IntegrityMac(Buffer.alloc(32, 5))
let db: DatabaseSync
let close: () => void
let audit: SqliteAuditLog
let stores: SqliteStores
let events: EventBus
let seen: RuntimeEvent[]
let gate: ApprovalGate
let ids: number

beforeEach(() => {
  ;({ db, close } = openTempDatabase('assent-requester-'))
  audit = new SqliteAuditLog(db, { mac: MAC })
  stores = sqliteStores(db, { mac: MAC, audit })
  events = new EventBus()
  seen = []
  events.subscribe((event) => seen.push(event))
  gate = new ApprovalGate({ approvals: stores.approvals, events, now: () => 1_000 })
  ids = 0
  createRoom(stores)
})

afterEach(() => close())

function requester(reviewer: ActionReviewer = new RuleBasedReviewer(), reviewerTimeoutMs = 5_000) {
  return new ApprovalRequester({
    gate,
    approvals: stores.approvals,
    conversations: stores.conversations,
    events,
    reviewer,
    reviewerTimeoutMs,
    now: () => 1_000,
    approvalTtlMs: () => 60_000,
    newId: () => `approval-${(ids += 1)}`,
    room: roomAsFrozen(stores),
  })
}

/** A turn running under `policy`, with one call waiting for a decision. */
function turnWithCall(policy: RoomPolicy) {
  const turn = turnFixture({ policy, text: 'write a' })
  const call = toolCallFixture()
  startTurn(stores, turn)
  stores.conversations.insertToolCall(call)
  return { turn, call }
}

function request(
  policy: RoomPolicy,
  review?: Partial<ReviewInput>,
): ApprovalRequest & { reviewed: () => number } {
  const { turn, call } = turnWithCall(policy)
  let described = 0
  return {
    turn,
    call,
    action: {
      kind: 'apply-changes',
      toolName: 'write_file',
      arguments: call.arguments,
      workingDirectory: '/ws',
      summary: 'Write a',
    },
    ...(review === undefined
      ? {}
      : {
          review: async () => {
            described += 1
            return {
              toolName: 'write_file',
              effect: 'write' as const,
              destructive: false,
              arguments: call.arguments,
              workspace: '/ws',
              resolvedPaths: ['/ws/a'],
              insideWorkspace: true,
              ...review,
            }
          },
        }),
    reviewed: () => described,
  }
}

const turnStatus = () => stores.conversations.getTurn('turn-1')?.status
const auditTypes = () => audit.list().map((event) => event.type)

describe('ApprovalRequester', () => {
  it('opens the approval, marks the call awaiting it and the turn waiting, and says so', () => {
    const pending = requester().open(request(policyForMode('ask-for-approval')))
    expect(pending.approval).toMatchObject({
      status: 'pending',
      roomId: 'room-1',
      turnId: 'turn-1',
      toolCallId: 'call-1',
      sandboxMode: 'workspace-write',
      expiresAt: 61_000,
    })
    expect(stores.conversations.getToolCall('call-1')).toMatchObject({
      status: 'awaiting-approval',
      approvalId: pending.approval.id,
    })
    expect(turnStatus()).toBe('waiting')
    expect(seen.map((event) => event.type)).toEqual(['approval.requested', 'timeline.updated'])
    expect(auditTypes()).toContain('approval_requested')
  })

  it('shows the sandbox the action names instead of the turn’s, and binds it into the digest', () => {
    const asked = request(policyForMode('ask-for-approval'))
    const pending = requester().open({
      ...asked,
      action: { ...asked.action, sandboxMode: 'danger-full-access' },
    })
    expect(pending.approval.sandboxMode).toBe('danger-full-access')
    expect(stores.approvals.get(pending.approval.id)?.sandboxMode).toBe('danger-full-access')
  })

  it('expires a withdrawn approval at once, so a later decision decides nothing', async () => {
    const pending = requester().open(request(policyForMode('ask-for-approval')))
    pending.withdraw('the agent withdrew its request')
    await expect(pending.outcome).resolves.toMatchObject({
      status: 'expired',
      reason: 'the agent withdrew its request',
    })
    const late = await gate.decide({
      approvalId: pending.approval.id,
      decision: 'allow-once',
      decidedBy: 'user',
    })
    expect(late).toMatchObject({ ok: false, code: 'approval_expired' })
    expect(auditTypes()).toContain('approval_expired')
    // Withdrawing what is no longer pending writes nothing more.
    const events = audit.list().length
    pending.withdraw('again')
    expect(audit.list()).toHaveLength(events)
  })

  it("hands back the outcome once the person decides, and leaves the turn's status to the caller", async () => {
    const pending = requester().open(request(policyForMode('ask-for-approval')))
    await gate.decide({ approvalId: pending.approval.id, decision: 'deny', decidedBy: 'user' })
    await expect(pending.outcome).resolves.toMatchObject({ status: 'denied', decidedBy: 'user' })
    expect(turnStatus()).toBe('waiting')
  })

  it('waits for the decision and marks the turn running again after it', async () => {
    const asked = requester().ask(request(policyForMode('ask-for-approval')))
    const approvalId = stores.conversations.getToolCall('call-1')?.approvalId ?? ''
    expect(turnStatus()).toBe('waiting')
    await gate.decide({ approvalId, decision: 'allow-once', decidedBy: 'user' })
    await expect(asked).resolves.toMatchObject({ status: 'allowed', decidedBy: 'user' })
    expect(turnStatus()).toBe('running')
  })

  it('hands a listener the decision once, and leaves the turn waiting until its caller writes it running', async () => {
    const heard: { status: string; turn: string | undefined }[] = []
    requester().whenDecided(request(policyForMode('ask-for-approval')), (outcome) => {
      if ('error' in outcome) throw outcome.error
      heard.push({ status: outcome.approval.status, turn: turnStatus() })
    })
    const approvalId = stores.conversations.getToolCall('call-1')?.approvalId ?? ''
    expect(stores.approvals.get(approvalId)?.status).toBe('pending')
    expect(turnStatus()).toBe('waiting')
    await gate.decide({ approvalId, decision: 'allow-once', decidedBy: 'user' })
    await expect.poll(() => heard).toEqual([{ status: 'allowed', turn: 'waiting' }])
    gate.withdraw(approvalId, 'too late')
    await Promise.resolve()
    expect(heard).toHaveLength(1)
  })

  it('hands a listener an approval that expired while it waited', async () => {
    const heard: string[] = []
    requester().whenDecided(request(policyForMode('ask-for-approval')), (outcome) => {
      heard.push('error' in outcome ? outcome.error.message : outcome.approval.status)
    })
    const approvalId = stores.conversations.getToolCall('call-1')?.approvalId ?? ''
    gate.withdraw(approvalId, 'the agent withdrew its request')
    await expect.poll(() => heard).toEqual(['expired'])
  })

  // Every way of asking (the agent runner's listener, an external agent's
  // and the MCP gateway's `open`, everyone else's `ask`) ends the same way
  // when asking fails: the error reaches the asker, the approval expires.
  const failedAskings: Record<
    string,
    (asker: ApprovalRequester, asked: ApprovalRequest) => Promise<string>
  > = {
    whenDecided: (asker, asked) =>
      new Promise((resolve) =>
        asker.whenDecided(asked, (outcome) =>
          resolve('error' in outcome ? outcome.error.message : 'decided'),
        ),
      ),
    open: (asker, asked) =>
      asker.open(asked).outcome.then(
        () => 'decided',
        (error: Error) => error.message,
      ),
    ask: (asker, asked) =>
      asker.ask(asked).then(
        () => 'decided',
        (error: Error) => error.message,
      ),
  }
  for (const [way, askThrough] of Object.entries(failedAskings)) {
    it(`hands the error that stopped the asking to ${way}'s asker, and expires the approval nobody waits for`, async () => {
      const asked = request(policyForMode('approve-for-me'), {})
      const heard = await askThrough(requester(), {
        ...asked,
        review: () => Promise.reject(new Error('the call could not be described')),
      })
      expect(heard).toBe('the call could not be described')
      const approvalId = stores.conversations.getToolCall('call-1')?.approvalId ?? ''
      expect(stores.approvals.get(approvalId)).toMatchObject({
        status: 'expired',
        reason: 'The turn stopped: the call could not be described',
      })
      const late = await gate.decide({ approvalId, decision: 'allow-once', decidedBy: 'user' })
      expect(late).toMatchObject({ ok: false, code: 'approval_expired' })
    })
  }

  it('never consults the reviewer when the policy leaves decisions to the person', async () => {
    const described = request(policyForMode('ask-for-approval'), {})
    const pending = requester().open(described)
    await gate.decide({ approvalId: pending.approval.id, decision: 'deny', decidedBy: 'user' })
    await pending.outcome
    expect(described.reviewed()).toBe(0)
  })

  it('lets the approve-for-me reviewer allow what it judges routine, as agent-review', async () => {
    const described = request(policyForMode('approve-for-me'), {})
    const outcome = await requester().ask(described)
    expect(described.reviewed()).toBe(1)
    expect(outcome).toMatchObject({
      status: 'allowed',
      decision: 'allow-once',
      decidedBy: 'agent-review',
      reason: 'a non-destructive write inside the workspace',
    })
  })

  it('lets the reviewer deny what it judges harmful', async () => {
    const outcome = await requester().ask(
      request(policyForMode('approve-for-me'), {
        destructive: true,
        arguments: { recursive: true },
      }),
    )
    expect(outcome).toMatchObject({ status: 'denied', decidedBy: 'agent-review' })
  })

  it('leaves an escalated approval pending for the person, with the reviewer’s reason recorded', async () => {
    const pending = requester().open(
      request(policyForMode('approve-for-me'), { insideWorkspace: false }),
    )
    await expect
      .poll(() => stores.approvals.get(pending.approval.id)?.escalationReason)
      .toBe('the write is outside the workspace')
    expect(stores.approvals.get(pending.approval.id)?.status).toBe('pending')
    expect(auditTypes()).toContain('review_escalated')
    await gate.decide({ approvalId: pending.approval.id, decision: 'deny', decidedBy: 'user' })
    await expect(pending.outcome).resolves.toMatchObject({ status: 'denied', decidedBy: 'user' })
  })

  it('hands the action to the person when the reviewer never answers, audited as a failed review', async () => {
    const silent: ActionReviewer = { review: () => new Promise(() => undefined) }
    const pending = requester(silent, 20).open(request(policyForMode('approve-for-me'), {}))
    await expect
      .poll(() => stores.approvals.get(pending.approval.id)?.escalationReason)
      .toBe('automatic review failed: no answer within 20 ms')
    expect(stores.approvals.get(pending.approval.id)?.status).toBe('pending')
    const escalated = audit.list().find((event) => event.type === 'review_escalated')
    expect(escalated?.payload).toMatchObject({ reviewFailed: true })
    await gate.decide({
      approvalId: pending.approval.id,
      decision: 'allow-once',
      decidedBy: 'user',
    })
    await expect(pending.outcome).resolves.toMatchObject({ status: 'allowed', decidedBy: 'user' })
  })

  it('records an escalation the reviewer judged as not a failed review', async () => {
    const pending = requester().open(
      request(policyForMode('approve-for-me'), { insideWorkspace: false }),
    )
    await expect.poll(() => auditTypes()).toContain('review_escalated')
    const escalated = audit.list().find((event) => event.type === 'review_escalated')
    expect(escalated?.payload).toMatchObject({ reviewFailed: false })
    await gate.decide({ approvalId: pending.approval.id, decision: 'deny', decidedBy: 'user' })
  })

  it('asks nobody under a policy that never asks (plan mode): the request is refused at once in the policy’s name', async () => {
    let consulted = 0
    const counting: ActionReviewer = {
      review: async () => {
        consulted += 1
        return { verdict: 'allow', reason: 'would allow' }
      },
    }
    const planned = request(policyForMode('plan'), {})
    const outcome = await requester(counting).ask(planned)
    expect(outcome).toMatchObject({
      status: 'denied',
      decision: 'deny',
      decidedBy: 'policy',
      reason: NEVER_ASKS_REASON,
    })
    expect(consulted).toBe(0)
    expect(planned.reviewed()).toBe(0)
    expect(auditTypes()).toEqual(
      expect.arrayContaining(['approval_requested', 'approval_resolved']),
    )
    const resolved = audit.list().find((event) => event.type === 'approval_resolved')
    expect(resolved?.payload).toMatchObject({ decidedBy: 'policy', decision: 'deny' })
    // The turn was never shown as waiting for the person.
    expect(seen.map((event) => event.type)).toEqual([
      'approval.requested',
      'timeline.updated',
      'approval.resolved',
    ])
  })

  it('sends an action without a review description to the person even under approve-for-me', async () => {
    let consulted = 0
    const counting: ActionReviewer = {
      review: async () => {
        consulted += 1
        return { verdict: 'allow', reason: 'would allow' }
      },
    }
    const pending = requester(counting).open(request(policyForMode('approve-for-me')))
    await gate.decide({ approvalId: pending.approval.id, decision: 'deny', decidedBy: 'user' })
    await expect(pending.outcome).resolves.toMatchObject({ status: 'denied', decidedBy: 'user' })
    expect(consulted).toBe(0)
  })
})

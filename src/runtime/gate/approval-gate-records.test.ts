import { describe, expect, it } from 'vitest'
import { message } from '../../contracts/runtime-message.ts'
import { EventBus } from '../events/event-bus.ts'
import { SqliteAuditLog } from '../store/audit-log.ts'
import type { ApprovalGate } from './approval-gate.ts'
import {
  TEST_MAC,
  fixture,
  makeGate,
  openApproval,
  auditTypes,
  useGateDatabase,
} from './test-support/approval-gate-fixture.ts'

useGateDatabase()

describe('ApprovalGate records and announces what it did', () => {
  function listen(gate: ApprovalGate, events: EventBus) {
    const seen: Array<{ type: string; data: Record<string, unknown> }> = []
    events.subscribe((event) => seen.push({ type: event.type, data: event.data }))
    return { gate, seen }
  }

  function auditEvents() {
    return new SqliteAuditLog(fixture.db, { mac: TEST_MAC }).list()
  }

  it('audits and announces a new approval with what the person will be shown', () => {
    const events = new EventBus()
    const { gate, seen } = listen(makeGate({ events }).gate, events)
    const approval = openApproval(gate)
    const [requested] = auditEvents()
    expect(requested).toMatchObject({
      type: 'approval_requested',
      subjectId: 'approval-1',
      payload: { roomId: 'room-1', turnId: 'turn-1', toolName: 'write_file' },
      at: approval.createdAt,
    })
    expect(requested?.payload.actionDigest).toMatch(/^[0-9a-f]{64}$/)
    expect(seen).toEqual([
      {
        type: 'approval.requested',
        data: { approval: expect.objectContaining({ id: 'approval-1', status: 'pending' }) },
      },
    ])
  })

  it('audits a decision with who decided, why, and the digest of the action', async () => {
    const events = new EventBus()
    const { gate, seen } = listen(makeGate({ events }).gate, events)
    openApproval(gate)
    const requestedDigest = auditEvents()[0]?.payload.actionDigest
    await gate.decide({
      approvalId: 'approval-1',
      decision: 'deny',
      decidedBy: 'agent-review',
      reason: 'writes a credentials file',
    })
    expect(auditEvents()[1]).toMatchObject({
      type: 'approval_resolved',
      subjectId: 'approval-1',
      payload: {
        roomId: 'room-1',
        turnId: 'turn-1',
        toolName: 'write_file',
        decision: 'deny',
        decidedBy: 'agent-review',
        reason: 'writes a credentials file',
        actionDigest: requestedDigest,
      },
      at: fixture.clock,
    })
    expect(seen.at(-1)).toEqual({
      type: 'approval.resolved',
      data: { approval: expect.objectContaining({ id: 'approval-1', status: 'denied' }) },
    })
  })

  it('wakes whoever waits for the outcome once a decision commits', async () => {
    const { gate } = makeGate()
    openApproval(gate)
    const waiting = gate.waitForOutcome('approval-1')
    await gate.decide({ approvalId: 'approval-1', decision: 'allow-once', decidedBy: 'user' })
    await expect(waiting).resolves.toMatchObject({ id: 'approval-1', status: 'allowed' })
  })

  it('answers at once for an approval that is already decided, and rejects an unknown one', async () => {
    const { gate } = makeGate()
    openApproval(gate)
    await gate.decide({ approvalId: 'approval-1', decision: 'deny', decidedBy: 'user' })
    const answer = await Promise.race([
      gate.waitForOutcome('approval-1'),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 1_000)),
    ])
    expect(answer).toMatchObject({ id: 'approval-1', status: 'denied' })
    await expect(gate.waitForOutcome('nope')).rejects.toThrow('unknown approval nope')
  })

  it('expires due approvals with the default reason, auditing when and why', () => {
    let tick = fixture.clock
    const events = new EventBus()
    const { gate, seen } = listen(makeGate({ events, now: () => (tick += 1) }).gate, events)
    openApproval(gate, 'approval-1', 10)
    tick += 100
    const [expired] = gate.expireDue()
    expect(expired).toMatchObject({ status: 'expired', reason: 'not confirmed in time' })
    expect(auditEvents()[1]).toEqual(
      expect.objectContaining({
        type: 'approval_expired',
        subjectId: 'approval-1',
        payload: { roomId: 'room-1', turnId: 'turn-1', reason: 'not confirmed in time' },
        at: expired?.decidedAt,
      }),
    )
    expect(seen.at(-1)).toMatchObject({ type: 'approval.resolved' })
  })

  it('never expires an approval while a decision on it is in flight', async () => {
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    const { gate, approvals } = makeGate({ afterReserve: () => held })
    openApproval(gate, 'approval-1', 10)
    const deciding = gate.decide({
      approvalId: 'approval-1',
      decision: 'allow-once',
      decidedBy: 'user',
    })
    fixture.clock += 100
    expect(gate.expireDue()).toEqual([])
    expect(approvals.get('approval-1')?.status).toBe('pending')
    release()
    await expect(deciding).resolves.toMatchObject({ ok: false, code: 'approval_expired' })
    expect(approvals.get('approval-1')).toMatchObject({
      status: 'expired',
      reason: 'not confirmed in time',
    })
  })

  it('expires every approval a previous instance left pending, due or not', () => {
    const { gate, approvals } = makeGate()
    openApproval(gate, 'approval-1', 60_000)
    openApproval(gate, 'approval-2', 60_000)
    const expired = gate.expireOrphans('the runtime restarted')
    expect(expired.map((approval) => approval.id).sort()).toEqual(['approval-1', 'approval-2'])
    for (const id of ['approval-1', 'approval-2']) {
      expect(approvals.get(id)).toMatchObject({
        status: 'expired',
        reason: 'the runtime restarted',
        decidedAt: fixture.clock,
      })
    }
    expect(auditTypes()).toEqual([
      'approval_requested',
      'approval_requested',
      'approval_expired',
      'approval_expired',
    ])
    expect(gate.expireOrphans('again')).toEqual([])
  })

  it('expires a withdrawn approval at once, long before its TTL, and wakes whoever waits', async () => {
    const { gate, approvals } = makeGate()
    openApproval(gate, 'approval-1', 60_000)
    const waiting = gate.waitForOutcome('approval-1')
    const withdrawn = gate.withdraw('approval-1', 'the agent withdrew its request')
    expect(withdrawn).toMatchObject({
      id: 'approval-1',
      status: 'expired',
      decidedAt: fixture.clock,
    })
    await expect(waiting).resolves.toMatchObject({
      status: 'expired',
      reason: 'the agent withdrew its request',
    })
    expect(approvals.get('approval-1')).toMatchObject({
      status: 'expired',
      reason: 'the agent withdrew its request',
      decidedBy: 'timeout',
    })
    expect(auditTypes()).toEqual(['approval_requested', 'approval_expired'])
    // Nothing more to withdraw, and nothing for an unknown approval.
    expect(gate.withdraw('approval-1', 'again')).toBeUndefined()
    expect(gate.withdraw('nope', 'again')).toBeUndefined()
    expect(auditTypes()).toEqual(['approval_requested', 'approval_expired'])
  })

  it('leaves a decision already being committed to finish rather than withdraw under it', async () => {
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    const { gate, approvals } = makeGate({ afterReserve: () => held })
    openApproval(gate, 'approval-1', 60_000)
    const deciding = gate.decide({ approvalId: 'approval-1', decision: 'deny', decidedBy: 'user' })
    expect(gate.withdraw('approval-1', 'the agent withdrew its request')).toBeUndefined()
    expect(approvals.get('approval-1')?.status).toBe('pending')
    release()
    await expect(deciding).resolves.toMatchObject({ ok: true })
    expect(approvals.get('approval-1')?.status).toBe('denied')
  })

  it('answers unknown_approval for an unknown approval without reserving anything', async () => {
    const reserved: string[] = []
    const { gate } = makeGate({
      afterReserve: async (approvalId) => {
        reserved.push(approvalId)
      },
    })
    await expect(
      gate.decide({ approvalId: 'nope', decision: 'allow-once', decidedBy: 'user' }),
    ).resolves.toEqual({ ok: false, code: 'unknown_approval', error: 'unknown approval' })
    expect(reserved).toEqual([])
  })

  it('answers unknown_approval when the approval disappears while the decision is reserved', async () => {
    const { gate } = makeGate({
      afterReserve: async (approvalId) => {
        fixture.db.prepare('DELETE FROM approvals WHERE id = ?').run(approvalId)
      },
    })
    openApproval(gate)
    await expect(
      gate.decide({ approvalId: 'approval-1', decision: 'allow-once', decidedBy: 'user' }),
    ).resolves.toEqual({ ok: false, code: 'unknown_approval', error: 'unknown approval' })
    expect(auditTypes()).toEqual(['approval_requested'])
  })

  it('keeps the words of a withdrawal for the person with the expired approval, and none where none were given', async () => {
    const { gate, approvals } = makeGate()
    openApproval(gate, 'approval-1', 60_000)
    openApproval(gate, 'approval-2', 60_000)
    const words = message('mcp.cancelledByClient')
    const worded = gate.withdraw('approval-1', 'the client cancelled', words)
    const plain = gate.withdraw('approval-2', 'the agent withdrew its request')
    expect(worded).toMatchObject({ status: 'expired', reasonMessage: words })
    expect(approvals.get('approval-1')).toMatchObject({ reasonMessage: words })
    expect(plain?.status).toBe('expired')
    expect(plain).not.toHaveProperty('reasonMessage')
  })
})

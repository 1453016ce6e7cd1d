import { describe, expect, it } from 'vitest'
import { verifyAuditChain } from '../store/audit-chain.ts'
import { SqliteAuditLog, type AuditAppender } from '../store/audit-log.ts'
import {
  TEST_MAC,
  fixture,
  makeGate,
  openApproval,
  auditTypes,
  useGateDatabase,
} from './test-support/approval-gate-fixture.ts'

useGateDatabase()

describe('ApprovalGate', () => {
  it('commits a decision together with its approval_resolved event', async () => {
    const { gate, approvals } = makeGate()
    openApproval(gate)
    const outcome = await gate.decide({
      approvalId: 'approval-1',
      decision: 'allow-once',
      decidedBy: 'user',
    })
    expect(outcome.ok).toBe(true)
    expect(approvals.get('approval-1')).toMatchObject({
      status: 'allowed',
      decision: 'allow-once',
      decidedBy: 'user',
    })
    expect(auditTypes()).toEqual(['approval_requested', 'approval_resolved'])
    expect(verifyAuditChain(new SqliteAuditLog(fixture.db, { mac: TEST_MAC }).list()).ok).toBe(true)
  })

  it('keeps the approval pending when the audit write fails, and nobody learns of a decision', async () => {
    const real = new SqliteAuditLog(fixture.db, { mac: TEST_MAC })
    let diskFull = true
    const failing: AuditAppender = {
      append: (event) => {
        if (event.type === 'approval_resolved' && diskFull) {
          diskFull = false
          throw new Error('disk full')
        }
        return real.append(event)
      },
    }
    const { gate, approvals } = makeGate({ audit: failing })
    openApproval(gate)
    const outcome = gate.waitForOutcome('approval-1')
    await expect(
      gate.decide({ approvalId: 'approval-1', decision: 'allow-once', decidedBy: 'user' }),
    ).rejects.toThrow('disk full')
    expect(approvals.get('approval-1')?.status).toBe('pending')
    expect(auditTypes()).toEqual(['approval_requested'])
    // Instead of waiting a while to see that nobody was woken: the next
    // decision, which commits, wakes the waiter with its own outcome. Had
    // the failed allow-once woken it, the waiter would carry that one.
    await gate.decide({ approvalId: 'approval-1', decision: 'deny', decidedBy: 'user' })
    await expect(outcome).resolves.toMatchObject({ status: 'denied', decision: 'deny' })
    expect(auditTypes()).toEqual(['approval_requested', 'approval_resolved'])
  })

  it('lets exactly one of two concurrent opposite decisions win', async () => {
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const { gate, approvals } = makeGate({ afterReserve: () => held })
    openApproval(gate)
    const allow = gate.decide({
      approvalId: 'approval-1',
      decision: 'allow-once',
      decidedBy: 'user',
    })
    const deny = gate.decide({ approvalId: 'approval-1', decision: 'deny', decidedBy: 'user' })
    release()
    const outcomes = await Promise.all([allow, deny])
    expect(outcomes.filter((outcome) => outcome.ok)).toHaveLength(1)
    expect(outcomes[1]).toEqual({
      ok: false,
      code: 'decision_in_progress',
      error: 'a different decision is in progress',
    })
    expect(approvals.get('approval-1')?.status).toBe('allowed')
    expect(auditTypes().filter((type) => type === 'approval_resolved')).toHaveLength(1)
  })

  it('joins concurrent identical decisions into one outcome and one audit event', async () => {
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const { gate } = makeGate({ afterReserve: () => held })
    openApproval(gate)
    const first = gate.decide({ approvalId: 'approval-1', decision: 'deny', decidedBy: 'user' })
    const second = gate.decide({ approvalId: 'approval-1', decision: 'deny', decidedBy: 'user' })
    release()
    const [a, b] = await Promise.all([first, second])
    expect(a).toBe(b)
    expect(a.ok).toBe(true)
    expect(auditTypes().filter((type) => type === 'approval_resolved')).toHaveLength(1)
  })

  it('refuses a second decision after the first committed (approval_decided)', async () => {
    const { gate } = makeGate()
    openApproval(gate)
    await gate.decide({ approvalId: 'approval-1', decision: 'deny', decidedBy: 'user' })
    const late = await gate.decide({
      approvalId: 'approval-1',
      decision: 'allow-once',
      decidedBy: 'user',
    })
    expect(late).toEqual({ ok: false, code: 'approval_decided', error: 'approval already decided' })
  })

  it('lets expiry win over a late decision: approval_expired and the approval is expired by timeout', async () => {
    const { gate, approvals } = makeGate()
    openApproval(gate, 'approval-1', 5_000)
    fixture.clock += 5_000
    const outcome = await gate.decide({
      approvalId: 'approval-1',
      decision: 'allow-once',
      decidedBy: 'user',
    })
    expect(outcome).toEqual({ ok: false, code: 'approval_expired', error: 'approval expired' })
    expect(approvals.get('approval-1')).toMatchObject({ status: 'expired', decidedBy: 'timeout' })
    expect(auditTypes()).toEqual(['approval_requested', 'approval_expired'])
  })

  it('expires due approvals in a sweep and wakes whoever waits on them', async () => {
    const { gate } = makeGate()
    openApproval(gate, 'approval-1', 1_000)
    openApproval(gate, 'approval-2', 60_000)
    const waiting = gate.waitForOutcome('approval-1')
    fixture.clock += 1_000
    expect(gate.expireDue().map((approval) => approval.id)).toEqual(['approval-1'])
    await expect(waiting).resolves.toMatchObject({ status: 'expired' })
  })

  it('expires nothing in a sweep when the clock steps back between the listing and the expiry', () => {
    // Readings of the clock, in order: the listing sees the approval due, the
    // expiry a moment before it was. The gate reads each afresh, so the
    // approval stays pending and the sweep reports nothing for it.
    const readings: number[] = []
    const { gate, approvals } = makeGate({ now: () => readings.shift() ?? fixture.clock })
    openApproval(gate, 'approval-1', 1_000)
    const due = fixture.clock + 1_000
    readings.push(due, due - 1)
    expect(gate.expireDue()).toEqual([])
    expect(readings).toEqual([])
    expect(approvals.get('approval-1')?.status).toBe('pending')
    expect(auditTypes()).toEqual(['approval_requested'])
  })

  it('expires no orphan whose expiry the clock stepped back before', () => {
    const readings: number[] = []
    const { gate, approvals } = makeGate({ now: () => readings.shift() ?? fixture.clock })
    openApproval(gate, 'approval-1', 60_000)
    // The orphan's expiry is moved to the first reading; the expiry itself
    // reads the clock a moment earlier.
    readings.push(fixture.clock, fixture.clock - 1)
    expect(gate.expireOrphans('runtime restarted')).toEqual([])
    expect(readings).toEqual([])
    expect(approvals.get('approval-1')?.status).toBe('pending')
  })

  it('answers unknown_approval for an unknown approval', async () => {
    const { gate } = makeGate()
    expect(
      await gate.decide({ approvalId: 'missing', decision: 'deny', decidedBy: 'user' }),
    ).toEqual({
      ok: false,
      code: 'unknown_approval',
      error: 'unknown approval',
    })
  })

  it('calls an outcome listener once, when the decision commits, or at once if it already has', async () => {
    const { gate } = makeGate()
    openApproval(gate)
    const heard: string[] = []
    gate.onOutcome('approval-1', (approval) => heard.push(`first ${approval.status}`))
    gate.onOutcome('approval-1', (approval) => heard.push(`second ${approval.status}`))
    expect(heard).toEqual([])
    await gate.decide({ approvalId: 'approval-1', decision: 'deny', decidedBy: 'user' })
    expect(heard).toEqual(['first denied', 'second denied'])
    // A second decision is refused and wakes nobody again.
    await gate.decide({ approvalId: 'approval-1', decision: 'deny', decidedBy: 'user' })
    expect(heard).toHaveLength(2)
    gate.onOutcome('approval-1', (approval) => heard.push(`late ${approval.status}`))
    expect(heard).toEqual(['first denied', 'second denied', 'late denied'])
    expect(() => gate.onOutcome('missing', () => undefined)).toThrow('unknown approval missing')
    await expect(gate.waitForOutcome('missing')).rejects.toThrow('unknown approval missing')
  })

  it('refuses to edit or delete audit rows in the database itself', () => {
    const { gate } = makeGate()
    openApproval(gate)
    expect(() => fixture.db.prepare("UPDATE audit_events SET type = 'x'").run()).toThrow(
      /append-only/,
    )
    expect(() => fixture.db.prepare('DELETE FROM audit_events').run()).toThrow(/append-only/)
  })
})

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { EventBus } from '../events/event-bus.ts'
import { SqliteApprovalRepository } from '../store/approval-repository.ts'
import { verifyAuditChain } from '../store/audit-chain.ts'
import { SqliteAuditLog, type AuditAppender } from '../store/audit-log.ts'
import { openDatabase } from '../store/database.ts'
import { IntegrityMac } from '../store/integrity-mac.ts'
import { Refusal } from '../domain/refusal.ts'
import { ApprovalGate, type ApprovalGateOptions } from './approval-gate.ts'

const TEST_MAC = new IntegrityMac(Buffer.alloc(32, 7))
let dir: string
let db: DatabaseSync
let clock: number

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'assent-gate-'))
  db = openDatabase(dir)
  clock = 1_000_000
  db.prepare(
    `INSERT INTO rooms (id, kind, agent_id, workspace, title, policy_json, revision, created_at)
     VALUES ('room-1', 'direct', 'assistant', '/ws', 'Room', '{}', 0, 0)`,
  ).run()
  db.prepare(
    `INSERT INTO turns (id, room_id, client_request_id, text, workspace, policy_json, status, created_at)
     VALUES ('turn-1', 'room-1', 'c1', 'write a b', '/ws', '{}', 'waiting', 0)`,
  ).run()
})

afterEach(() => {
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

function makeGate(overrides: Partial<ApprovalGateOptions> & { audit?: AuditAppender } = {}) {
  const { audit = new SqliteAuditLog(db, { mac: TEST_MAC }), ...options } = overrides
  const approvals = new SqliteApprovalRepository(db, { audit })
  const gate = new ApprovalGate({
    approvals,
    events: new EventBus(),
    now: () => clock,
    ...options,
  })
  return { gate, approvals }
}

function openApproval(gate: ApprovalGate, id = 'approval-1', ttlMs = 10_000) {
  return gate.open({
    id,
    roomId: 'room-1',
    turnId: 'turn-1',
    toolCallId: `call-${id}`,
    kind: 'apply-changes',
    toolName: 'write_file',
    arguments: { path: 'a', content: 'b' },
    workingDirectory: '/ws',
    sandboxMode: 'workspace-write',
    summary: 'Write a',
    ttlMs,
  })
}

function auditTypes(): string[] {
  return new SqliteAuditLog(db, { mac: TEST_MAC }).list().map((event) => event.type)
}

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
    expect(verifyAuditChain(new SqliteAuditLog(db, { mac: TEST_MAC }).list()).ok).toBe(true)
  })

  it('keeps the approval pending when the audit write fails, and nobody learns of a decision', async () => {
    const real = new SqliteAuditLog(db, { mac: TEST_MAC })
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
    clock += 5_000
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
    clock += 1_000
    expect(gate.expireDue().map((approval) => approval.id)).toEqual(['approval-1'])
    await expect(waiting).resolves.toMatchObject({ status: 'expired' })
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

  it('refuses to edit or delete audit rows in the database itself', () => {
    const { gate } = makeGate()
    openApproval(gate)
    expect(() => db.prepare("UPDATE audit_events SET type = 'x'").run()).toThrow(/append-only/)
    expect(() => db.prepare('DELETE FROM audit_events').run()).toThrow(/append-only/)
  })
})

describe('ApprovalGate and the rollback anchor', () => {
  it('refuses to be built to write grants without the anchor check', () => {
    expect(() => makeGate({ grantFor: () => undefined })).toThrow('needs beforeGrant')
  })

  it('asks before an allow-always and writes nothing when the anchor cannot be brought up to date', async () => {
    let asked = 0
    let anchorReachable = false
    const { gate, approvals } = makeGate({
      beforeGrant: async () => {
        asked += 1
        if (!anchorReachable) throw new Refusal('rollback_anchor_unavailable', 'keychain locked')
      },
    })
    openApproval(gate)
    await expect(
      gate.decide({ approvalId: 'approval-1', decision: 'allow-always', decidedBy: 'user' }),
    ).rejects.toMatchObject({ code: 'rollback_anchor_unavailable' })
    expect(asked).toBe(1)
    expect(approvals.get('approval-1')?.status).toBe('pending')
    expect(auditTypes()).toEqual(['approval_requested'])

    anchorReachable = true
    const outcome = await gate.decide({
      approvalId: 'approval-1',
      decision: 'allow-always',
      decidedBy: 'user',
    })
    expect(outcome).toMatchObject({ ok: true, approval: { decision: 'allow-always' } })
    expect(asked).toBe(2)
  })

  it('takes an allow-always without the check in a gate that writes no grant', async () => {
    const { gate } = makeGate()
    openApproval(gate)
    await expect(
      gate.decide({ approvalId: 'approval-1', decision: 'allow-always', decidedBy: 'user' }),
    ).resolves.toMatchObject({ ok: true, approval: { decision: 'allow-always' } })
  })

  it('never asks for a decision that widens nothing lasting (allow once, deny)', async () => {
    let asked = 0
    const { gate } = makeGate({
      beforeGrant: async () => {
        asked += 1
      },
    })
    openApproval(gate, 'approval-1')
    openApproval(gate, 'approval-2')
    await gate.decide({ approvalId: 'approval-1', decision: 'allow-once', decidedBy: 'user' })
    await gate.decide({ approvalId: 'approval-2', decision: 'deny', decidedBy: 'user' })
    expect(asked).toBe(0)
  })
})

describe('ApprovalGate records and announces what it did', () => {
  function listen(gate: ApprovalGate, events: EventBus) {
    const seen: Array<{ type: string; data: Record<string, unknown> }> = []
    events.subscribe((event) => seen.push({ type: event.type, data: event.data }))
    return { gate, seen }
  }

  function auditEvents() {
    return new SqliteAuditLog(db, { mac: TEST_MAC }).list()
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
      at: clock,
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
    let tick = clock
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
    clock += 100
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
        decidedAt: clock,
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
    expect(withdrawn).toMatchObject({ id: 'approval-1', status: 'expired', decidedAt: clock })
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
        db.prepare('DELETE FROM approvals WHERE id = ?').run(approvalId)
      },
    })
    openApproval(gate)
    await expect(
      gate.decide({ approvalId: 'approval-1', decision: 'allow-once', decidedBy: 'user' }),
    ).resolves.toEqual({ ok: false, code: 'unknown_approval', error: 'unknown approval' })
    expect(auditTypes()).toEqual(['approval_requested'])
  })
})

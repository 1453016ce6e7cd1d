import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { EventBus } from '../events/event-bus.ts'
import { SqliteApprovalRepository } from '../store/approval-repository.ts'
import { SqliteAuditLog, verifyAuditChain, type AuditAppender } from '../store/audit-log.ts'
import { openDatabase } from '../store/database.ts'
import { ApprovalGate, type ApprovalGateOptions } from './approval-gate.ts'

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

function makeGate(overrides: Partial<ApprovalGateOptions> = {}) {
  const approvals = new SqliteApprovalRepository(db)
  const gate = new ApprovalGate({
    db,
    approvals,
    audit: new SqliteAuditLog(db),
    events: new EventBus(),
    now: () => clock,
    ...overrides,
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
  return new SqliteAuditLog(db).list().map((event) => event.type)
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
    expect(verifyAuditChain(new SqliteAuditLog(db).list()).ok).toBe(true)
  })

  it('keeps the approval pending when the audit write fails, and nobody learns of a decision', async () => {
    const real = new SqliteAuditLog(db)
    const failing: AuditAppender = {
      append: (event) => {
        if (event.type === 'approval_resolved') throw new Error('disk full')
        return real.append(event)
      },
    }
    const { gate, approvals } = makeGate({ audit: failing })
    openApproval(gate)
    let settled = false
    void gate.waitForOutcome('approval-1').then(() => {
      settled = true
    })
    await expect(
      gate.decide({ approvalId: 'approval-1', decision: 'allow-once', decidedBy: 'user' }),
    ).rejects.toThrow('disk full')
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(approvals.get('approval-1')?.status).toBe('pending')
    expect(settled).toBe(false)
    expect(auditTypes()).toEqual(['approval_requested'])
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
      status: 409,
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

  it('refuses a second decision after the first committed (409)', async () => {
    const { gate } = makeGate()
    openApproval(gate)
    await gate.decide({ approvalId: 'approval-1', decision: 'deny', decidedBy: 'user' })
    const late = await gate.decide({
      approvalId: 'approval-1',
      decision: 'allow-once',
      decidedBy: 'user',
    })
    expect(late).toEqual({ ok: false, status: 409, error: 'approval already decided' })
  })

  it('lets expiry win over a late decision: 410 and the approval is expired by timeout', async () => {
    const { gate, approvals } = makeGate()
    openApproval(gate, 'approval-1', 5_000)
    clock += 5_000
    const outcome = await gate.decide({
      approvalId: 'approval-1',
      decision: 'allow-once',
      decidedBy: 'user',
    })
    expect(outcome).toEqual({ ok: false, status: 410, error: 'approval expired' })
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

  it('answers 404 for an unknown approval', async () => {
    const { gate } = makeGate()
    expect(
      await gate.decide({ approvalId: 'missing', decision: 'deny', decidedBy: 'user' }),
    ).toEqual({
      ok: false,
      status: 404,
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

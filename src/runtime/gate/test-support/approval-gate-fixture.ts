import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach } from 'vitest'
import { EventBus } from '../../events/event-bus.ts'
import { SqliteApprovalRepository } from '../../store/approval-repository.ts'
import { SqliteAuditLog, type AuditAppender } from '../../store/audit-log.ts'
import { openDatabase } from '../../store/database.ts'
import { IntegrityMac } from '../../store/integrity-mac.ts'
import { ApprovalGate, type ApprovalGateOptions } from '../approval-gate.ts'

export const TEST_MAC = new IntegrityMac(Buffer.alloc(32, 7))

/** The database and clock of the running test, fresh for each one. */
export const fixture = {
  dir: '',
  db: undefined as unknown as DatabaseSync,
  clock: 0,
}

/** A real SQLite file per test, with one room and one waiting turn. */
export function useGateDatabase(): void {
  beforeEach(() => {
    fixture.dir = mkdtempSync(join(tmpdir(), 'assent-gate-'))
    fixture.db = openDatabase(fixture.dir)
    fixture.clock = 1_000_000
    seedRoomAndTurn(fixture.db)
  })

  afterEach(() => {
    fixture.db.close()
    rmSync(fixture.dir, { recursive: true, force: true })
  })
}

/** Writes room `room-1` and its turn `turn-1` as bare rows; `policyJson`
 *  is the turn's policy as stored (`{}` unless a test reads the turn back). */
export function seedRoomAndTurn(
  db: DatabaseSync,
  turn: { status?: string; policyJson?: string } = {},
): void {
  db.prepare(
    `INSERT INTO rooms (id, kind, agent_id, workspace, title, policy_json, revision, created_at)
     VALUES ('room-1', 'direct', 'assistant', '/ws', 'Room', '{}', 0, 0)`,
  ).run()
  db.prepare(
    `INSERT INTO turns (id, room_id, client_request_id, text, workspace, policy_json, status, created_at)
     VALUES ('turn-1', 'room-1', 'c1', 'write a b', '/ws', ?, ?, 0)`,
  ).run(turn.policyJson ?? '{}', turn.status ?? 'waiting')
}

export function makeGate(overrides: Partial<ApprovalGateOptions> & { audit?: AuditAppender } = {}) {
  const { audit = new SqliteAuditLog(fixture.db, { mac: TEST_MAC }), ...options } = overrides
  const approvals = new SqliteApprovalRepository(fixture.db, { audit })
  const gate = new ApprovalGate({
    approvals,
    events: new EventBus(),
    now: () => fixture.clock,
    ...options,
  })
  return { gate, approvals }
}

export function openApproval(gate: ApprovalGate, id = 'approval-1', ttlMs = 10_000) {
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

export function auditTypes(): string[] {
  return new SqliteAuditLog(fixture.db, { mac: TEST_MAC }).list().map((event) => event.type)
}

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DatabaseSync } from 'node:sqlite'
import { afterEach, expect, it } from 'vitest'
import { seedRoomAndTurn } from '../gate/test-support/approval-gate-fixture.ts'
import { narrowestRoomPolicy } from '../policy/room-policy.ts'
import { SqliteApprovalRepository } from './approval-repository.ts'
import { SqliteAuditLog } from './audit-log.ts'
import { SqliteConversationRepository } from './conversation-repository.ts'
import { openDatabase } from './database.ts'
import { IntegrityMac } from './integrity-mac.ts'

// The queries a turn runs at every step must find their rows through an
// index: a full scan's cost grows with every message ever stored, and the
// decision rate fell with the size of the store.

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function openRepository(): { db: DatabaseSync; sql: string[]; repo: SqliteConversationRepository } {
  const dir = mkdtempSync(join(tmpdir(), 'assent-plans-'))
  dirs.push(dir)
  const db = openDatabase(dir)
  const audit = new SqliteAuditLog(db, { mac: new IntegrityMac(Buffer.alloc(32, 7)) })
  const repo = new SqliteConversationRepository(db, { audit })
  // Records the SQL text the repository prepares, so the plans checked are
  // those of its own queries, not copies of them.
  const sql: string[] = []
  const prepare = db.prepare.bind(db)
  db.prepare = (text: string) => {
    sql.push(text)
    return prepare(text)
  }
  return { db, sql, repo }
}

function planOf(db: DatabaseSync, text: string, parameters: number): string {
  const rows = db
    .prepare(`EXPLAIN QUERY PLAN ${text}`)
    .all(...Array.from({ length: parameters }, () => 'x')) as Array<{ detail: string }>
  return rows.map((row) => row.detail).join('; ')
}

it.each([
  [
    'the last messages of a room',
    (repo: SqliteConversationRepository) => repo.listRecentMessages('room', 5),
    2,
    'messages',
  ],
  [
    'the tool calls of a turn',
    (repo: SqliteConversationRepository) => repo.listToolCallsOfTurn('turn'),
    1,
    'tool_calls',
  ],
] as const)(
  'finds %s through an index, never a scan of the table',
  (_name, query, parameters, table) => {
    const { db, sql, repo } = openRepository()
    try {
      query(repo)
      const text = sql.at(-1)!
      expect(text).toContain(table)
      const plan = planOf(db, text, parameters)
      expect(plan).toMatch(new RegExp(`SEARCH ${table} USING (COVERING )?INDEX`))
      expect(plan).not.toMatch(new RegExp(`SCAN ${table}\\b`))
    } finally {
      db.close()
    }
  },
)

it("reads a turn's history from its mark back, not past every message stored since", () => {
  const { db, sql, repo } = openRepository()
  try {
    repo.listRecentMessages('room', 5, ['turn'], repo.messagesMark('room'))
    const text = sql.at(-1)!
    // Entered at the mark's time in the room's index: the messages of the
    // turns started after this one are never walked.
    expect(planOf(db, text, 5)).toMatch(
      /SEARCH messages USING INDEX messages_room \(room_id=\? AND created_at<\?\)/,
    )
  } finally {
    db.close()
  }
})

it('settles what a stopped runtime left unfinished through indexes, never a scan of the history', () => {
  const { db, sql, repo } = openRepository()
  try {
    repo.settleInterrupted(0, { ok: false, output: 'restarted', code: 'approval_expired' })
    const settling = sql.filter((text) => /\b(tool_calls|turns)\b[\s\S]*WHERE status/.test(text))
    expect(settling.length).toBeGreaterThanOrEqual(3)
    for (const text of settling) {
      const plan = planOf(db, text, (text.match(/\?/g) ?? []).length)
      expect(plan, text).toMatch(/SEARCH (tool_calls|turns) USING (COVERING )?INDEX/)
      expect(plan, text).not.toMatch(/SCAN (tool_calls|turns)\b/)
    }
  } finally {
    db.close()
  }
})

it('reads a page of a long timeline through indexes, never a scan of every room’s rows', () => {
  const { db, sql, repo } = openRepository()
  try {
    seedRoomAndTurn(db, {
      status: 'done',
      policyJson: JSON.stringify(narrowestRoomPolicy('direct')),
    })
    const audit = new SqliteAuditLog(db, { mac: new IntegrityMac(Buffer.alloc(32, 7)) })
    const approvals = new SqliteApprovalRepository(db, { audit })
    const start = sql.length
    for (const request of [
      { kind: 'recent' },
      { kind: 'from', turnId: 'turn-1' },
      { kind: 'before', turnId: 'turn-1' },
    ] as const) {
      expect(repo.turnPage('room-1', request, 5)).toBeDefined()
    }
    repo.listOfTurns('room-1', ['turn-1'])
    approvals.listForTurns('room-1', ['turn-1'])
    const reads = sql.slice(start)
    expect(reads.length).toBeGreaterThanOrEqual(6)
    for (const text of reads) {
      const plan = planOf(db, text, (text.match(/\?/g) ?? []).length)
      expect(plan, text).toMatch(/SEARCH (turns|messages|tool_calls|approvals) USING /)
      expect(plan, text).not.toMatch(/SCAN (turns|messages|tool_calls|approvals)\b/)
    }
  } finally {
    db.close()
  }
})

// The limit decisions are measured against: the rows the runtime wrote for
// a round of decisions, written again by bare node:sqlite, in the same
// transactions, into a copy of the runtime's database taken while those
// approvals were still pending, under the store's own durability policy
// (`openDatabase`: WAL, synchronous = NORMAL, its group-commit barrier),
// from the same number of concurrent clients, on the same disk.
//
// Each client commits a decision's transaction and waits for its flush, as
// a client of the runtime waits for its answer, then commits the
// transactions that follow a decision in the runtime before it takes the
// next one. Commits made while a flush runs share the next one, exactly as
// the runtime's do. So decisions/s ÷ this limit is what the runtime's own
// work (HTTP, the token, the checks, the tool) costs next to what SQLite and
// the disk cost for exactly what it writes.
//
// DECISION_STEPS is the runtime's transaction structure for one allowed
// write; tests/decision-writes.test.ts traces a real runtime's statements
// and holds the two equal, so the limit cannot drift from what is written.

import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { DatabaseSync, type SQLInputValue } from 'node:sqlite'
import { DATABASE_FILE_NAME, openDatabase } from '../../src/runtime/store/database.ts'
import { durabilityOf } from '../../src/runtime/store/durability.ts'
import { mapLimit } from './runtime-fixtures.ts'

type Row = Record<string, SQLInputValue>

/** What the runtime wrote for one decided approval, as it stands in its
 *  database once the decision's turn is done. */
export interface DecisionRows {
  approval: Row
  /** Its `approval_resolved` audit event. */
  event: Row
  /** The sealed audit head (one row, rewritten by every event). */
  head: Row
  turn: Row
  call: Row
  /** The agent's reply after the tool ran. */
  reply: Row
}

export interface DecisionStep {
  /** The step is an explicit transaction (BEGIN IMMEDIATE … COMMIT) in the
   *  runtime; otherwise one statement that commits on its own. */
  explicit: boolean
  /** Its write statements, in order, each with its parameters. */
  writes: Array<{ sql: string; params: (rows: DecisionRows) => SQLInputValue[] }>
}

/** One allowed write's transactions, in the order the runtime commits them. */
export const DECISION_STEPS: readonly DecisionStep[] = [
  // The decision with its audit event and the head it moves (the gate,
  // through the approval store). The answer waits for this one's flush.
  {
    explicit: true,
    writes: [
      {
        sql: `UPDATE approvals SET status = ?, decision = ?, decided_by = ?, reason = ?,
                reason_message_json = ?, decided_at = ? WHERE id = ?`,
        params: ({ approval }) => [
          approval.status!,
          approval.decision!,
          approval.decided_by!,
          approval.reason!,
          approval.reason_message_json!,
          approval.decided_at!,
          approval.id!,
        ],
      },
      {
        sql: `INSERT INTO audit_events (seq, id, type, subject_id, payload_json, created_at,
                prev_hash, hash, mac) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        params: ({ event }) => [
          event.seq!,
          event.id!,
          event.type!,
          event.subject_id!,
          event.payload_json!,
          event.created_at!,
          event.prev_hash!,
          event.hash!,
          event.mac!,
        ],
      },
      {
        sql: `INSERT INTO audit_head (id, seq, hash, mac, rollback_counter, permissions_digest)
                VALUES (1, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash,
                mac = excluded.mac, rollback_counter = excluded.rollback_counter,
                permissions_digest = excluded.permissions_digest`,
        params: ({ event, head }) => [
          event.seq!,
          event.hash!,
          head.mac!,
          head.rollback_counter!,
          head.permissions_digest!,
        ],
      },
    ],
  },
  // The call marked running after the sandbox's re-check, and its turn,
  // which waited for the decision, running again; the tool waits for its
  // flush.
  {
    explicit: true,
    writes: [
      {
        sql: "UPDATE tool_calls SET status = 'running', updated_at = ? WHERE id = ?",
        params: ({ approval, call }) => [approval.decided_at!, call.id!],
      },
      {
        sql: 'UPDATE turns SET status = ? WHERE id = ?',
        params: ({ turn }) => ['running', turn.id!],
      },
    ],
  },
  // The call's result, once the tool is done, with its turn still running
  // (the same write ends the wait of a call that never ran).
  {
    explicit: true,
    writes: [
      {
        sql: 'UPDATE tool_calls SET status = ?, result_json = ?, updated_at = ? WHERE id = ?',
        params: ({ call }) => [call.status!, call.result_json!, call.updated_at!, call.id!],
      },
      {
        sql: 'UPDATE turns SET status = ? WHERE id = ?',
        params: ({ turn }) => ['running', turn.id!],
      },
    ],
  },
  // The turn's end: the agent's reply and the turn done, in one commit.
  {
    explicit: true,
    writes: [
      {
        sql: `INSERT INTO messages (id, room_id, turn_id, role, text, message_json, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)`,
        params: ({ reply }) => [
          reply.id!,
          reply.room_id!,
          reply.turn_id!,
          reply.role!,
          reply.text!,
          reply.message_json!,
          reply.created_at!,
        ],
      },
      {
        sql: 'UPDATE turns SET status = ? WHERE id = ?',
        params: ({ turn }) => [turn.status!, turn.id!],
      },
    ],
  },
]

/** A write statement as `OPERATION table` (`UPDATE approvals`), or null for
 *  anything that writes nothing. Shared with the test that traces the
 *  runtime, so both sides are named alike. */
export function writeOf(sql: string): string | null {
  const match = /^\s*(INSERT\s+INTO|UPDATE|DELETE\s+FROM|REPLACE\s+INTO)\s+"?(\w+)"?/i.exec(sql)
  if (!match) return null
  return `${match[1]!.split(/\s+/)[0]!.toUpperCase()} ${match[2]!}`
}

export interface SameRowsLimit {
  /** Decisions' rows per second, written as the runtime wrote them, from
   *  `clients` concurrent loops. */
  decisionsPerSecond(rows: readonly DecisionRows[], clients: number): Promise<number>
  close(): Promise<void>
}

/**
 * Copies the runtime's database (`VACUUM INTO` from a read-only connection:
 * a consistent snapshot, while the runtime keeps running) into `folder`,
 * and opens the copy as the runtime opens its own. Take it after the
 * approvals exist and before any of them is decided.
 */
export function openSameRowsLimit(runtimeDataDir: string, folder: string): SameRowsLimit {
  mkdirSync(folder, { recursive: true })
  const source = new DatabaseSync(join(runtimeDataDir, DATABASE_FILE_NAME), { readOnly: true })
  try {
    source.prepare('VACUUM INTO ?').run(join(folder, DATABASE_FILE_NAME))
  } finally {
    source.close()
  }
  const db = openDatabase(folder)
  const durability = durabilityOf(db)
  const commit = (step: DecisionStep, rows: DecisionRows) => {
    if (step.explicit) db.exec('BEGIN IMMEDIATE')
    for (const write of step.writes) db.prepare(write.sql).run(...write.params(rows))
    if (step.explicit) db.exec('COMMIT')
  }
  const [decision, ...following] = DECISION_STEPS
  return {
    async decisionsPerSecond(rows, clients) {
      const start = performance.now()
      await mapLimit(rows, clients, async (decided) => {
        commit(decision!, decided)
        await durability.durable()
        for (const step of following) commit(step, decided)
      })
      await durability.durable()
      return rows.length / ((performance.now() - start) / 1_000)
    },
    async close() {
      await durability.close()
      db.close()
      rmSync(folder, { recursive: true, force: true })
    },
  }
}

/**
 * Reads what the runtime wrote for each approval in `approvalIds` from its
 * database (read-only, while it runs). Throws unless every one is decided,
 * its turn is done and exactly one reply followed the decision: anything
 * else means the runtime no longer writes what DECISION_STEPS says, and a
 * limit for other rows would be no limit.
 */
export function readDecisionRows(
  runtimeDataDir: string,
  approvalIds: readonly string[],
): DecisionRows[] {
  const db = new DatabaseSync(join(runtimeDataDir, DATABASE_FILE_NAME), { readOnly: true })
  try {
    const one = (sql: string, ...params: SQLInputValue[]) => db.prepare(sql).get(...params) as Row
    const head = one('SELECT * FROM audit_head WHERE id = 1')
    return approvalIds.map((id) => {
      const approval = one('SELECT * FROM approvals WHERE id = ?', id)
      if (approval?.status !== 'allowed') throw new Error(`approval ${id} is not allowed`)
      const turn = one('SELECT * FROM turns WHERE id = ?', approval.turn_id!)
      if (turn?.status !== 'done') throw new Error(`the turn of approval ${id} is not done`)
      const replies = db
        .prepare('SELECT * FROM messages WHERE turn_id = ? AND created_at >= ?')
        .all(approval.turn_id!, approval.decided_at!) as Row[]
      if (replies.length !== 1) {
        throw new Error(`approval ${id}: ${replies.length} messages followed the decision, not 1`)
      }
      return {
        approval,
        event: one(
          "SELECT * FROM audit_events WHERE type = 'approval_resolved' AND subject_id = ?",
          id,
        ),
        head,
        turn,
        call: one('SELECT * FROM tool_calls WHERE id = ?', approval.tool_call_id!),
        reply: replies[0]!,
      }
    })
  } finally {
    db.close()
  }
}

/** Waits until every approval's turn is done (the reply and the turn's
 *  last write come after the file the tool writes). */
export async function turnsDone(
  runtimeDataDir: string,
  approvalIds: readonly string[],
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  const db = new DatabaseSync(join(runtimeDataDir, DATABASE_FILE_NAME), { readOnly: true })
  try {
    const done = db.prepare(
      `SELECT count(*) AS done FROM approvals a JOIN turns t ON t.id = a.turn_id
        WHERE a.id = ? AND t.status = 'done'`,
    )
    for (const id of approvalIds) {
      while (Number((done.get(id) as { done: number }).done) !== 1) {
        if (Date.now() > deadline) throw new Error(`the turn of approval ${id} never finished`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
  } finally {
    db.close()
  }
}

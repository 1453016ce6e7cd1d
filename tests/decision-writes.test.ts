import type * as Sqlite from 'node:sqlite'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { DECISION_STEPS, writeOf } from '../scripts/bench/same-rows-limit.ts'
import {
  createPendingApprovals,
  createRoom,
  decide,
  type PendingApproval,
} from '../scripts/bench/runtime-fixtures.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { eventually, type RuntimeHarness } from './support/runtime-harness.ts'
import { turnSettled } from './support/room-helpers.ts'

// The bench's limit for decisions (scripts/bench/same-rows-limit.ts) writes
// the rows the runtime wrote, in the transactions DECISION_STEPS names. This
// traces what a real runtime executes for one allowed write, from the
// decision to the turn done, and holds the two equal: a change to what the
// runtime writes changes the limit with it, or this fails.
//
// node:sqlite is wrapped for this file only: every statement that runs is
// recorded with the transaction it ran in; everything else is the real
// SQLite file, the real HTTP server and a real consent token.

interface Traced {
  kind: 'exec' | 'statement'
  sql: string
}

const trace: Traced[] = []

vi.mock('node:sqlite', async (importOriginal) => {
  const actual = await importOriginal<typeof Sqlite>()
  const RUNS = new Set(['run', 'get', 'all', 'iterate'])
  class TracedDatabase extends actual.DatabaseSync {
    override exec(sql: string): void {
      trace.push({ kind: 'exec', sql })
      super.exec(sql)
    }

    override prepare(sql: string): Sqlite.StatementSync {
      const statement = super.prepare(sql)
      return new Proxy(statement, {
        get(target, property) {
          const value: unknown = Reflect.get(target, property, target)
          if (typeof value !== 'function') return value
          if (typeof property === 'string' && RUNS.has(property)) {
            return (...args: unknown[]) => {
              trace.push({ kind: 'statement', sql })
              return (value as (...a: unknown[]) => unknown).apply(target, args)
            }
          }
          return (value as (...a: unknown[]) => unknown).bind(target)
        },
      })
    }
  }
  return { ...actual, DatabaseSync: TracedDatabase }
})

/** The traced writes as steps: an explicit transaction's writes together,
 *  any other write as its own step (it commits alone). Reads are left out. */
function stepsOf(traced: readonly Traced[]): Array<{ explicit: boolean; writes: string[] }> {
  const steps: Array<{ explicit: boolean; writes: string[] }> = []
  let open: { explicit: boolean; writes: string[] } | undefined
  for (const entry of traced) {
    if (entry.kind === 'exec') {
      const word = entry.sql.trim().split(/\s+/)[0]!.toUpperCase()
      if (word === 'BEGIN') open = { explicit: true, writes: [] }
      if (word === 'COMMIT' || word === 'ROLLBACK') {
        if (open && open.writes.length > 0 && word === 'COMMIT') steps.push(open)
        open = undefined
      }
      continue
    }
    const write = writeOf(entry.sql)
    if (write === null) continue
    if (open) open.writes.push(write)
    else steps.push({ explicit: false, writes: [write] })
  }
  return steps
}

let harness: RuntimeHarness
let pending: PendingApproval[]
let roomId: string

beforeAll(async () => {
  harness = await startInProcessRuntime({})
  roomId = await createRoom(harness, harness.workspace, 'Writes')
  pending = await createPendingApprovals(harness, [roomId], 1, 'traced')
})

afterAll(async () => {
  await harness?.close()
})

describe('what one allowed write makes the runtime write', () => {
  it('is, transaction by transaction, what the bench limit writes again', async () => {
    const [approval] = pending
    if (!approval) throw new Error('no approval was opened')
    const { approval: opened } = await harness.client.getApproval(approval.id)
    // Nothing else is under way: the approval waits for its decision.
    trace.length = 0
    await decide(harness, approval, 'allow-once')
    await turnSettled(harness, roomId, opened.turnId)
    await eventually(
      () => (existsSync(join(harness.workspace, 'traced0.txt')) ? true : undefined),
      'the allowed file',
    )
    const expected = DECISION_STEPS.map((step) => ({
      explicit: step.explicit,
      writes: step.writes.map(({ sql }) => writeOf(sql)),
    }))
    expect(stepsOf(trace)).toEqual(expected)
  })

  it('names every statement the limit runs as a write of one table', () => {
    for (const step of DECISION_STEPS) {
      for (const { sql } of step.writes) expect(writeOf(sql), sql).toMatch(/^(INSERT|UPDATE) \w+$/)
    }
    expect(writeOf('SELECT * FROM approvals WHERE id = ?')).toBeNull()
    expect(writeOf("UPDATE turns SET status = 'done'")).toBe('UPDATE turns')
    expect(writeOf('INSERT INTO audit_events (seq) VALUES (?)')).toBe('INSERT audit_events')
  })
})

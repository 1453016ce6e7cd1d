// Runtime decisions per second over real loopback sockets, next to bare
// node:sqlite writing the same decisions' rows (same-rows-limit.ts).
//
// One runtime child process (startBenchRuntime, as main starts it). Pending
// approvals are created first through messages in several rooms; each round
// then decides a slice of them with `allow-once` consent tokens from N
// concurrent clients (each a loop of mint → POST /v1/approvals/:id → 200 on
// its own keep-alive connection). A decision is counted when its response
// has arrived, i.e. after the runtime verified the token, committed the
// decision with its audit event and the group commit's WAL fsync covering
// it finished (store/durability.ts). The tools those
// decisions allow run in the runtime meanwhile, as they would in use; the
// bench waits for them to finish between rounds so rounds do not overlap.

import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { DatabaseSync } from 'node:sqlite'
import { setTimeout as sleep } from 'node:timers/promises'
import { mintConsentToken } from '../../src/consent/consent-token.ts'
import { startBenchRuntime } from './bench-runtime.ts'
import {
  combinedRate,
  openBareExchange,
  openBareFileWrites,
  type BareExchange,
  type BareFileWrites,
} from './decision-floor.ts'
import {
  openSameRowsLimit,
  readDecisionRows,
  turnsDone,
  type SameRowsLimit,
} from './same-rows-limit.ts'
import {
  createPendingApprovals,
  createRoom,
  decide,
  mapLimit,
  type PendingApproval,
  type RuntimeAccess,
} from './runtime-fixtures.ts'

export interface DecisionBenchOptions {
  rooms: number
  rounds: number
  /** Each round is sized to last about this long at the expected rate. */
  targetRoundMs: number
  /** Bounds on the decisions in one round. */
  minPerRound: number
  maxPerRound: number
  bareInsertMs: number
  log: (line: string) => void
}

export interface DecisionBenchResult {
  /** Decisions per second by client count, one sample per round. */
  decisionsPerSec: Map<number, number[]>
  /** The limit (same-rows-limit.ts): the rows of each 10-client round's
   *  decisions written again by bare node:sqlite in the same transactions,
   *  under the store's durability policy, from 10 clients, right after that
   *  round, so both see the same machine load. Decisions' rows per second. */
  sameRowsPerSec: number[]
  /** The floor's other parts (decision-floor.ts), right after the same
   *  rounds at the same client count: main's client and a bare node:http
   *  server exchanging a decision's request and answer; the write tool's
   *  file write with its fsyncs. Per second. */
  httpExchangesPerSec: number[]
  fileWritesPerSec: number[]
  /** All three parts one after the other, per decision. */
  floorPerSec: number[]
  /** Paired per round: decisions/s at 10 clients ÷ that floor. */
  perDecisionFloor: number[]
  perRound: number
}

export const CLIENT_COUNTS = [1, 10, 100] as const
/** The client count the decisions are compared with their floor at. */
export const SAME_POLICY_CLIENTS = 10

// Long enough that nothing expires while thousands are being created on a
// slow machine: an expired approval would take a shorter path.
const BENCH_APPROVAL_TTL_MS = 6 * 60 * 60 * 1_000

// An allowed write commits four times on its way (decision + audit event,
// tool call running, its result, the turn done); a bare INSERT once. Group
// commit lets concurrent ones share fsyncs, so this only sizes the rounds.
const COMMITS_PER_ALLOWED_WRITE = 4

/**
 * Decisions per second on the real disk (the OS temp dir), at 1, 10 and 100
 * clients. Rounds are sized from a first bare-INSERT probe so each lasts
 * about `targetRoundMs` whatever the disk: approvals must exist before a
 * round starts, and creating them costs more commits than deciding them.
 */
export async function measureDecisionThroughput(
  options: DecisionBenchOptions,
): Promise<DecisionBenchResult> {
  const bench = await startBenchRuntime({ approvalTtlMs: BENCH_APPROVAL_TTL_MS })
  const bare = openBareStore(bench.root)
  let limit: SameRowsLimit | undefined
  let exchange: BareExchange | undefined
  let writes: BareFileWrites | undefined
  try {
    const probe = bare.insertsPerSecond(options.bareInsertMs)
    const expected = probe / COMMITS_PER_ALLOWED_WRITE
    const perRound = Math.round(
      Math.min(
        options.maxPerRound,
        Math.max(options.minPerRound, (expected * options.targetRoundMs) / 1_000),
      ),
    )
    options.log(
      `decisions: bare INSERT probe ${Math.round(probe)}/s; ${perRound} decisions per round`,
    )
    const runtime: RuntimeAccess = bench
    const roomIds = await createRooms(runtime, bench.workspace, options.rooms)
    const total = perRound * CLIENT_COUNTS.length * options.rounds
    const created = performance.now()
    const queue = await createPendingApprovals(runtime, roomIds, total, 'f')
    options.log(
      `decisions: ${queue.length} approvals pending in ${roomIds.length} rooms ` +
        `(${Math.round(performance.now() - created)} ms to create)`,
    )
    // Copied while every approval is pending, so the limit can write the
    // same decisions' rows into it after each round.
    limit = openSameRowsLimit(bench.dataDir, join(bench.root, 'same-rows'))

    // The floor's other parts, sized as the real thing: the runtime's
    // answer to a decision (its approval view) and a consent token.
    const sampleAnswer = JSON.stringify({
      approval: await runtime.client.getApproval(queue[0]!.id),
    })
    const sampleToken = mintConsentToken({
      key: bench.connection().consentKey,
      now: Date.now(),
      binding: {
        kind: 'approval',
        subject: {
          approvalId: queue[0]!.id,
          decision: 'allow-once',
          actionDigest: queue[0]!.actionDigest,
          instanceId: bench.connection().instanceId,
        },
      },
    })
    exchange = await openBareExchange(sampleAnswer, sampleToken.length)
    writes = openBareFileWrites(join(bench.root, 'bare-writes'), 'x')

    const decisionsPerSec = new Map<number, number[]>()
    const sameRowsPerSec: number[] = []
    const httpExchangesPerSec: number[] = []
    const fileWritesPerSec: number[] = []
    const floorPerSec: number[] = []
    const perDecisionFloor: number[] = []
    let taken = 0
    for (let round = 1; round <= options.rounds; round += 1) {
      for (const clients of CLIENT_COUNTS) {
        const slice = queue.slice(taken, taken + perRound)
        taken += perRound
        const rate = await decideConcurrently(runtime, slice, clients)
        decisionsPerSec.set(clients, [...(decisionsPerSec.get(clients) ?? []), rate])
        await toolsFinished(bench.workspace, taken)
        if (clients === SAME_POLICY_CLIENTS) {
          const ids = slice.map((approval) => approval.id)
          await turnsDone(bench.dataDir, ids, 60_000 + ids.length * 20)
          const same = await limit.decisionsPerSecond(
            readDecisionRows(bench.dataDir, ids),
            SAME_POLICY_CLIENTS,
          )
          const http = await exchange.perSecond(ids.length, SAME_POLICY_CLIENTS)
          const write = await writes.perSecond(ids.length, SAME_POLICY_CLIENTS)
          const floor = combinedRate([same, http, write])
          sameRowsPerSec.push(same)
          httpExchangesPerSec.push(http)
          fileWritesPerSec.push(write)
          floorPerSec.push(floor)
          perDecisionFloor.push(rate / floor)
        }
        options.log(`decisions: round ${round}, ${clients} clients: ${Math.round(rate)}/s`)
      }
    }
    return {
      decisionsPerSec,
      sameRowsPerSec,
      httpExchangesPerSec,
      fileWritesPerSec,
      floorPerSec,
      perDecisionFloor,
      perRound,
    }
  } finally {
    await exchange?.close()
    writes?.close()
    await limit?.close()
    bare.close()
    await bench.close()
  }
}

export function createRooms(runtime: RuntimeAccess, workspace: string, count: number) {
  return mapLimit(
    Array.from({ length: count }, (_, index) => index),
    4,
    (index) => createRoom(runtime, workspace, `Bench room ${index}`),
  )
}

/** Decides every approval in `slice` from `clients` concurrent loops;
 *  returns decisions per second over the whole slice. */
export async function decideConcurrently(
  runtime: RuntimeAccess,
  slice: readonly PendingApproval[],
  clients: number,
): Promise<number> {
  const start = performance.now()
  await mapLimit(slice, clients, (approval) => decide(runtime, approval, 'allow-once'))
  return slice.length / ((performance.now() - start) / 1_000)
}

/** Waits until `allowed` writes (one file each) have reached the workspace. */
export async function toolsFinished(workspace: string, allowed: number): Promise<void> {
  const deadline = Date.now() + 60_000 + allowed * 20
  for (;;) {
    const written = readdirSync(workspace).length
    if (written >= allowed) return
    if (Date.now() > deadline) throw new Error(`${allowed - written} allowed writes never happened`)
    await sleep(20)
  }
}

// About the size of an approval_resolved event's payload and hashes.
const AUDIT_EVENT_PAYLOAD = randomBytes(192).toString('hex')
const BARE_EVENTS_TABLE =
  'CREATE TABLE bench_events (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, payload TEXT NOT NULL, at INTEGER NOT NULL)'

interface BareStore {
  insertsPerSecond(durationMs: number): number
  close(): void
}

/** A node:sqlite file in WAL mode with `synchronous = FULL`, one client,
 *  each INSERT its own IMMEDIATE transaction waiting for its own fsync: one
 *  durable commit at a time. Only sizes the rounds (a quick, synchronous
 *  probe of the disk); the limit decisions are compared with is
 *  openSamePolicyStore. */
function openBareStore(root: string): BareStore {
  const folder = mkdtempSync(join(root, 'bare-'))
  const db = new DatabaseSync(join(folder, 'bare.sqlite'))
  db.exec('PRAGMA journal_mode = WAL')
  db.exec('PRAGMA synchronous = FULL')
  db.exec('PRAGMA foreign_keys = ON')
  db.exec('PRAGMA busy_timeout = 5000')
  db.exec(BARE_EVENTS_TABLE)
  const insert = db.prepare('INSERT INTO bench_events (id, payload, at) VALUES (?, ?, ?)')
  return {
    insertsPerSecond(durationMs) {
      let count = 0
      const start = performance.now()
      for (;;) {
        db.exec('BEGIN IMMEDIATE')
        insert.run(`evt_${count}`, AUDIT_EVENT_PAYLOAD, Date.now())
        db.exec('COMMIT')
        count += 1
        const elapsed = performance.now() - start
        if (elapsed >= durationMs) return count / (elapsed / 1_000)
      }
    },
    close() {
      db.close()
      rmSync(folder, { recursive: true, force: true })
    },
  }
}

import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalView } from '../src/contracts/approval.ts'
import type { ApprovalDecision } from '../src/contracts/consent.ts'
import type { RawResponse } from '../src/main/core/runtime-client.ts'
import { CONSENT_LIFETIME_MS } from '../src/consent/consent-token.ts'
import { exportedAudit } from './support/audit-check.ts'
import { roomApprovals } from './support/policy-helpers.ts'
import { createRoom, send, timeline } from './support/room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { scaledMs } from '../scripts/test-timing.ts'

// Many approvals pending at once across many rooms, decided in parallel with
// valid consent tokens, while every token is also replayed: each decision
// lands exactly once, every replay is refused, and no tool runs twice. Each
// tool call is a command that appends one byte to its own marker file, so a
// second run would show as a second byte.

const STRESS = process.env.ASSENT_STRESS === '1'
const ROOMS = STRESS ? 20 : 10
const APPROVALS = STRESS ? 1_000 : 200
/** Decisions in flight at once (each raced by its replay). */
const CONCURRENCY = 16

let harness: RuntimeHarness
let markerDir: string

beforeAll(async () => {
  harness = await startHarness({ approvalTtlMs: 86_400_000 })
  markerDir = join(harness.workspace, 'load')
  mkdirSync(markerDir)
})

afterAll(async () => {
  await harness?.close()
})

async function inPool<T, R>(items: readonly T[], run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next
      next += 1
      results[index] = await run(items[index] as T)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  return results
}

const markerFor = (room: number, turn: number) => join(markerDir, `${room}-${turn}.marker`)

/** A command that appends one byte to its marker: run twice, two bytes. */
const appendCommand = (marker: string) => `run /bin/sh -c "printf x >> ${marker}"`

interface Planned {
  roomId: string
  turnId: string
  marker: string
  decision: ApprovalDecision
  view?: ApprovalView
}

describe(`${APPROVALS} approvals pending across ${ROOMS} rooms`, () => {
  it(
    'applies each decision exactly once, refuses every replayed token and runs no tool twice',
    { timeout: scaledMs(STRESS ? 1_800_000 : 300_000) },
    async () => {
      const roomIds: string[] = []
      for (let room = 0; room < ROOMS; room += 1) roomIds.push((await createRoom(harness)).id)
      const plans: Planned[] = await inPool(
        Array.from({ length: APPROVALS }, (_, index) => index),
        async (index) => {
          const room = index % ROOMS
          const roomId = roomIds[room] ?? ''
          const marker = markerFor(room, Math.floor(index / ROOMS))
          const turnId = await send(harness, roomId, appendCommand(marker))
          // Two in three allowed, the rest denied.
          const decision: ApprovalDecision = index % 3 === 2 ? 'deny' : 'allow-once'
          return { roomId, turnId, marker, decision }
        },
      )

      // Every approval is pending at once before anyone decides.
      const byTurn = new Map(plans.map((plan) => [plan.turnId, plan]))
      await eventually(
        async () => {
          let pending = 0
          for (const roomId of roomIds) {
            pending += (await roomApprovals(harness, roomId)).filter(
              (approval) => approval.status === 'pending' && byTurn.has(approval.turnId),
            ).length
          }
          return pending === APPROVALS ? true : undefined
        },
        `${APPROVALS} pending approvals`,
        120_000,
      )
      for (const roomId of roomIds) {
        for (const summary of await roomApprovals(harness, roomId)) {
          const plan = byTurn.get(summary.turnId)
          if (plan) plan.view = await harness.client.getApproval(summary.id)
        }
      }

      // Each decision is sent twice with the same token, the two racing
      // each other: the first to arrive burns the nonce. A consent token lives
      // 30 s; on a machine so loaded that both copies wait longer than that,
      // both are rightly refused as expired, and the pair is sent again with
      // a fresh token, as main would mint one (counted, and only then).
      let expiredPairs = 0
      const started = performance.now()
      const answers: Array<[RawResponse, RawResponse]> = await inPool(plans, async (plan) => {
        const view = plan.view as ApprovalView
        for (;;) {
          const minted = performance.now()
          const token = harness.mintApproval(view.approval.id, plan.decision, view.actionDigest)
          const present = () =>
            harness.client.decideApproval(view.approval.id, plan.decision, token, view.actionDigest)
          const [first, second] = await Promise.all([present(), present()])
          const bothRefused = first.status === 403 && second.status === 403
          if (!bothRefused || performance.now() - minted < CONSENT_LIFETIME_MS) {
            return [first, second]
          }
          expiredPairs += 1
        }
      })
      const elapsedMs = performance.now() - started

      for (const [index, pair] of answers.entries()) {
        const statuses = pair.map((response) => response.status).sort()
        expect(statuses, `approval ${index}`).toEqual([200, 403])
        const refused = pair.find((response) => response.status === 403)
        expect(refused?.body).toMatchObject({ code: 'consent_required' })
      }

      // Replayed again once everything is decided: still refused, and a
      // fresh token for the opposite decision finds the approval decided.
      const late = await inPool(plans, async (plan) => {
        const view = plan.view as ApprovalView
        const opposite: ApprovalDecision = plan.decision === 'deny' ? 'allow-once' : 'deny'
        for (;;) {
          const minted = performance.now()
          const response = await harness.client.decideApproval(
            view.approval.id,
            opposite,
            harness.mintApproval(view.approval.id, opposite, view.actionDigest),
            view.actionDigest,
          )
          if (response.status !== 403 || performance.now() - minted < CONSENT_LIFETIME_MS) {
            return response
          }
          expiredPairs += 1
        }
      })
      for (const response of late) expect(response.status).toBe(409)

      // The tools of allowed approvals ran once each; denied ones never ran.
      await eventually(
        async () => {
          for (const roomId of roomIds) {
            const { turns } = await timeline(harness, roomId)
            if (turns.some((turn) => turn.status !== 'done' && turn.status !== 'failed')) {
              return undefined
            }
          }
          return true
        },
        'every turn to settle',
        120_000,
      )
      const audit = await exportedAudit(harness)
      for (const plan of plans) {
        const view = plan.view as ApprovalView
        const resolved = audit.filter(
          (event) => event.type === 'approval_resolved' && event.subjectId === view.approval.id,
        )
        expect(resolved.map((event) => event.payload.decision)).toEqual([plan.decision])
        const after = await harness.client.getApproval(view.approval.id)
        expect(after.approval.status).toBe(plan.decision === 'deny' ? 'denied' : 'allowed')
        if (plan.decision === 'deny') {
          expect(existsSync(plan.marker), plan.marker).toBe(false)
        } else {
          expect(readFileSync(plan.marker, 'utf8'), plan.marker).toBe('x')
        }
      }
      for (const roomId of roomIds) {
        const { toolCalls } = await timeline(harness, roomId)
        for (const call of toolCalls) {
          const plan = byTurn.get(call.turnId)
          expect(call.status).toBe(plan?.decision === 'deny' ? 'denied' : 'succeeded')
        }
        expect(toolCalls).toHaveLength(APPROVALS / ROOMS)
      }

      const perSecond = (APPROVALS / elapsedMs) * 1_000
      console.log(
        `load: ${APPROVALS} approvals across ${ROOMS} rooms decided in ${Math.round(elapsedMs)} ms ` +
          `(${perSecond.toFixed(1)} decisions/s, each raced by a replay of its token: ${APPROVALS} replays refused; ` +
          `${expiredPairs} pairs re-sent after waiting out the token's lifetime)`,
      )
    },
  )
})

import { existsSync, mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalSummary, ApprovalView } from '../src/contracts/approval.ts'
import type { ApprovalDecision } from '../src/contracts/consent.ts'
import type { AuditEvent } from '../src/runtime/store/audit-log.ts'
import { auditChainProblem, exportedAudit } from './support/audit-check.ts'
import { roomApprovals } from './support/policy-helpers.ts'
import { createRoom, send, timeline } from './support/room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { scaledMs } from '../scripts/test-timing.ts'

// SIGKILLs the runtime at random points while people decide and tools run,
// restarts it on the same data folder, and checks what must survive any crash:
// the audit chain verifies; a tool's effect exists only with a durable
// `approval_resolved` allow for it; no approval is decided twice or both
// ways; an execution cut off mid-run is `unknown` and blocks a retry until
// someone reconciles it.

const STRESS = process.env.ASSENT_STRESS === '1'
const CRASHES = STRESS ? 200 : 20
const SEED = Number(process.env.ASSENT_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31))
/** How long a command sleeps after leaving its marker: long enough to still
 *  be running when a kill lands, short enough that orphans end by themselves. */
const COMMAND_SLEEP_MS = 400

/** Deterministic from SEED, so a failing run can be replayed. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}
const random = mulberry32(SEED)
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let harness: RuntimeHarness
let roomId: string
let markerDir: string

beforeAll(async () => {
  harness = await startHarness({ approvalTtlMs: 86_400_000 })
  roomId = (await createRoom(harness)).id
  markerDir = join(harness.workspace, 'crash')
  mkdirSync(markerDir)
})

afterAll(async () => {
  // Commands left running by a kill end on their own within COMMAND_SLEEP_MS.
  await sleep(COMMAND_SLEEP_MS)
  await harness?.close()
})

/** A command that leaves `marker` the moment it starts, then sleeps. */
function markerCommand(marker: string): string {
  // System programs only: a sandboxed command has its own /tmp, where a Node
  // kept under the host's /tmp would not be.
  return `run sh -c 'echo started > ${marker}; exec sleep ${COMMAND_SLEEP_MS / 1000}'`
}

/** Three turns, each two tool calls that need a person: file writes (the
 *  file is the marker) and commands (they write a marker when they start). */
function messagesFor(crash: number): string[] {
  const file = (tag: string) => `crash/${crash}-${tag}.txt`
  const ran = (tag: string) => join(markerDir, `${crash}-${tag}.ran`)
  return [
    `write ${file('a1')} one\n${markerCommand(ran('a2'))}`,
    `${markerCommand(ran('b1'))}\nwrite ${file('b2')} two`,
    `write ${file('c1')} three\nwrite ${file('c2')} four`,
  ]
}

/** The marker a tool call leaves, from the arguments the person was shown. */
function markerOf(view: ApprovalView): string | undefined {
  return markerOfCall(view.approval.toolName, view.approval.arguments)
}

function markerOfCall(toolName: string, args: Record<string, unknown>): string | undefined {
  if (toolName === 'write_file' && typeof args.path === 'string') {
    return join(harness.workspace, args.path)
  }
  if (toolName === 'run_command' && Array.isArray(args.argv)) {
    const script = String(args.argv[2] ?? '')
    return /^echo started > (\S+);/.exec(script)?.[1]
  }
  return undefined
}

type KillMode = 'immediately' | 'at-random' | 'while-a-command-runs' | 'after-a-decision'
const KILL_MODES: readonly KillMode[] = [
  'immediately',
  'at-random',
  'while-a-command-runs',
  'after-a-decision',
]

interface Stats {
  slowStarts: number
  decisionsSent: number
  decisionsApplied: number
  unknownReconciled: number
  markersChecked: number
}

/** The arguments of an approval never change: read each view once. */
const views = new Map<string, ApprovalView>()

/**
 * Decides every pending approval of the room as it appears, in the name of
 * the person (allow once, always allow or deny, at random; only allows while
 * waiting for a command to run), until `stop` resolves. Each decision reads
 * the canonical action and presents a token minted for it, as main does.
 * Calls cut short by the kill fail; that is the point.
 */
async function decideWhilePending(
  stop: Promise<void>,
  allowOnly: boolean,
  stats: Stats,
  onApplied: () => void,
): Promise<void> {
  let stopped = false
  void stop.then(() => (stopped = true))
  const seen = new Set<string>()
  const inFlight: Array<Promise<void>> = []
  while (!stopped) {
    let pending: ApprovalSummary[]
    try {
      pending = (await roomApprovals(harness, roomId)).filter((a) => a.status === 'pending')
    } catch {
      break
    }
    for (const approval of pending) {
      if (seen.has(approval.id)) continue
      seen.add(approval.id)
      const decision: ApprovalDecision = allowOnly
        ? 'allow-once'
        : pick<ApprovalDecision>(['allow-once', 'allow-once', 'allow-always', 'deny', 'deny'])
      inFlight.push(
        (async () => {
          const view = views.get(approval.id) ?? (await harness.client.getApproval(approval.id))
          views.set(approval.id, view)
          stats.decisionsSent += 1
          const response = await harness.client.decideApproval(
            approval.id,
            decision,
            harness.mintApproval(approval.id, decision, view.actionDigest),
            view.actionDigest,
          )
          if (response.status === 200) {
            stats.decisionsApplied += 1
            onApplied()
          }
        })().catch(() => {}),
      )
    }
    await sleep(5)
  }
  await Promise.all(inFlight)
}

async function killRuntime(): Promise<void> {
  const pid = harness.supervisor.pid
  if (pid === undefined) throw new Error('no runtime to kill')
  process.kill(pid, 'SIGKILL')
  await eventually(
    () => (harness.supervisor.current === undefined ? true : undefined),
    'the supervisor to see the runtime die',
  )
}

/** Sends the crash's turns, decides, and kills the runtime per `mode`. */
async function crashOnce(crash: number, mode: KillMode, stats: Stats): Promise<void> {
  let killNow: () => void = () => {}
  const killRequested = new Promise<void>((resolve) => (killNow = resolve))
  const ran = (tag: string) => join(markerDir, `${crash}-${tag}.ran`)
  const driver = decideWhilePending(killRequested, mode === 'while-a-command-runs', stats, () => {
    if (mode === 'after-a-decision') killNow()
  })
  const sends = Promise.all(
    messagesFor(crash).map((text) => send(harness, roomId, text).catch(() => undefined)),
  )
  if (mode === 'immediately') killNow()
  if (mode === 'at-random') setTimeout(killNow, Math.floor(random() * 1_500))
  if (mode === 'while-a-command-runs') {
    void eventually(
      () => (existsSync(ran('a2')) || existsSync(ran('b1')) ? true : undefined),
      'a command to start',
    ).then(killNow, killNow)
  }
  // Never wait forever for a decision that the random choices did not make.
  const fallback = setTimeout(killNow, 8_000)
  await killRequested
  clearTimeout(fallback)
  await killRuntime()
  await Promise.all([driver, sends])
}

/**
 * Starts the runtime again on the same data folder. On a machine loaded past
 * what the harness's ready ceiling allows (RUNTIME_READY_TIMEOUT_MS) the
 * supervisor kills the slow start; it is tried again, at most twice, and
 * counted. A runtime that cannot start at all after a crash still fails.
 */
async function restart(stats: Stats): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await harness.supervisor.start()
      return
    } catch (error) {
      if (attempt >= 3 || !/did not become ready/.test((error as Error).message)) throw error
      stats.slowStarts += 1
    }
  }
}

/** What must hold after every restart. */
async function checkInvariants(crash: number, stats: Stats): Promise<void> {
  const where = `after crash ${crash} (seed ${SEED})`
  const events: AuditEvent[] = await exportedAudit(harness)
  expect(auditChainProblem(harness, events), where).toBeUndefined()

  const resolved = new Map<string, AuditEvent[]>()
  const expired = new Set<string>()
  for (const event of events) {
    if (event.type === 'approval_resolved') {
      resolved.set(event.subjectId, [...(resolved.get(event.subjectId) ?? []), event])
    }
    if (event.type === 'approval_expired') expired.add(event.subjectId)
  }

  // Each approval is decided at most once, one way, and its stored status
  // says the same as its audit trail.
  const approvals = await roomApprovals(harness, roomId)
  for (const approval of approvals) {
    const decisions = resolved.get(approval.id) ?? []
    expect(decisions.length, `${approval.id} decided more than once ${where}`).toBeLessThanOrEqual(
      1,
    )
    const decision = decisions[0]?.payload.decision
    if (approval.status === 'allowed') {
      expect(['allow-once', 'allow-always'], where).toContain(decision)
      expect(expired.has(approval.id), where).toBe(false)
    } else if (approval.status === 'denied') {
      expect(decision, where).toBe('deny')
      expect(expired.has(approval.id), where).toBe(false)
    } else {
      expect(decisions, `${approval.id} is ${approval.status} but was decided ${where}`).toEqual([])
    }
    if (!views.has(approval.id))
      views.set(approval.id, await harness.client.getApproval(approval.id))
  }

  // A tool's effect exists only with a durable allow for one of the
  // approvals that asked for it, or with a durable `tool_allowed_by_grant`
  // for a call, naming a grant whose `grant_created` is durable too (an
  // allow-always on a write grants later writes in the room).
  const allowedMarkers = new Set<string>()
  for (const approval of approvals) {
    const marker = markerOf(views.get(approval.id) as ApprovalView)
    const decision = resolved.get(approval.id)?.[0]?.payload.decision
    if (marker && (decision === 'allow-once' || decision === 'allow-always')) {
      allowedMarkers.add(marker)
    }
  }
  const grantsCreated = new Set(
    events.filter((event) => event.type === 'grant_created').map((event) => event.subjectId),
  )
  const callsAllowedByGrant = new Set(
    events
      .filter(
        (event) =>
          event.type === 'tool_allowed_by_grant' &&
          grantsCreated.has(String(event.payload.grantId)),
      )
      .map((event) => event.subjectId),
  )
  const { toolCalls } = await timeline(harness, roomId)
  for (const call of toolCalls) {
    const marker = callsAllowedByGrant.has(call.id)
      ? markerOfCall(call.toolName, call.arguments)
      : undefined
    if (marker) allowedMarkers.add(marker)
  }
  for (const name of readdirSync(markerDir)) {
    stats.markersChecked += 1
    // A write cut off between its temporary file and the rename leaves the
    // temporary file (docs/security-model.md): it is that allowed write's
    // effect, so it too needs the allow of the marker it was written for.
    const written = /^\.(.+)\.assent-[0-9a-f]{16}\.tmp$/.exec(name)?.[1] ?? name
    expect(
      allowedMarkers.has(join(markerDir, written)),
      `${name} exists without an allow ${where}`,
    ).toBe(true)
  }

  // Nothing is left running; what was cut off is unknown, audited as such,
  // and blocks a retry until reconciled.
  expect(
    toolCalls.filter((call) => call.status === 'running'),
    where,
  ).toEqual([])
  for (const call of toolCalls.filter((candidate) => candidate.status === 'unknown')) {
    expect(
      events.some((event) => event.type === 'execution_unknown' && event.subjectId === call.id),
      `${call.id} is unknown without an execution_unknown event ${where}`,
    ).toBe(true)
    const blocked = await harness.client.raw('POST', `/v1/turns/${call.turnId}/retry`)
    expect(blocked, where).toMatchObject({ status: 409, body: { code: 'execution_unknown' } })
    const marker = call.approvalId
      ? markerOf(views.get(call.approvalId) as ApprovalView)
      : undefined
    const reconciled = await harness.client.raw('POST', `/v1/executions/${call.id}/reconcile`, {
      outcome: marker && existsSync(marker) ? 'succeeded' : 'not-run',
      note: `killed in crash ${crash}`,
    })
    expect(reconciled.status, where).toBe(200)
    stats.unknownReconciled += 1
    const retried = await harness.client.raw('POST', `/v1/turns/${call.turnId}/retry`)
    expect(retried.status, `retry after reconciling ${where}`).toBe(202)
  }
}

describe('the runtime killed with SIGKILL mid-decision and mid-tool', () => {
  it(
    `keeps the audit chain, approvals and tool effects consistent across ${CRASHES} crashes`,
    { timeout: scaledMs(STRESS ? 3_600_000 : 300_000) },
    async () => {
      const stats: Stats = {
        slowStarts: 0,
        decisionsSent: 0,
        decisionsApplied: 0,
        unknownReconciled: 0,
        markersChecked: 0,
      }
      for (let crash = 0; crash < CRASHES; crash += 1) {
        const mode = KILL_MODES[crash % KILL_MODES.length] ?? 'at-random'
        await crashOnce(crash, mode, stats)
        // Let commands the kill left behind leave their markers first, so
        // the check sees every effect they will ever have.
        await sleep(COMMAND_SLEEP_MS)
        await restart(stats)
        await checkInvariants(crash, stats)
      }
      // Not vacuous: decisions landed, tools ran and executions were cut off.
      expect(stats.decisionsApplied).toBeGreaterThan(0)
      expect(stats.markersChecked).toBeGreaterThan(0)
      expect(stats.unknownReconciled).toBeGreaterThan(0)
      console.log(
        `crash-consistency: ${CRASHES} SIGKILL restarts (seed ${SEED}); ` +
          `${stats.decisionsSent} decisions sent, ${stats.decisionsApplied} applied; ` +
          `${stats.unknownReconciled} interrupted executions reconciled; ` +
          `${stats.slowStarts} starts retried after missing the ready deadline`,
      )
    },
  )
})

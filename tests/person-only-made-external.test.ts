import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import type { AgentIdentity } from '../src/contracts/agent-request.ts'
import type { ApprovalRecord } from '../src/contracts/approval.ts'
import type { RoomPolicy } from '../src/contracts/policy-axes.ts'
import type { Grant } from '../src/contracts/room.ts'
import { grantForDecision } from '../src/runtime/agent/grant-issuer.ts'
import type {
  ExternalActionRequest,
  ExternalDecision,
} from '../src/runtime/external-agents/external-agent-port.ts'
import type { ExternalTurnTimeline } from '../src/runtime/external-turns/external-turn-timeline.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import type { ActionReviewer } from '../src/runtime/policy/reviewer.ts'
import type { DelegatedApprover } from '../src/runtime/ports/delegated-approver.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { codexRequest, ExternalAskerWorld } from '../src/runtime/test-support/external-asker.ts'
import { ROOM_ID } from '../src/runtime/test-support/sqlite-stores.ts'
import {
  expectMovedAside,
  layMadeWorkspace,
  MADE_SCRIPT,
  MADE_WHILE_RUNNING,
  madeScript,
  PERSON_ONLY_MADE,
  WHILE_RUNNING_SEEN,
} from './support/person-only-made.ts'
import { grantStoredBeforeTheRules } from './support/stored-agent-grants.ts'

/**
 * The table of what a command can make that only a person may make
 * (support/person-only-made.ts), through the doors of an external agent's
 * command: the person's allow, a reviewer and the approver webhook (no
 * grant answers an agent's command: below). The agent runs what it was allowed itself,
 * outside Assent's sandbox; here the test is that agent: it asks for
 * `sh build.sh` as Codex would, runs it in the workspace once allowed, and
 * reports the call ended. Whoever allowed it, what the script made is moved
 * aside once the agent says the call ended, and the call fails, saying so.
 */

const MAC = new IntegrityMac(Buffer.alloc(32, 5))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

let root: string | undefined
let world: ExternalAskerWorld | undefined

afterEach(() => {
  world?.close()
  if (root) rmSync(root, { recursive: true, force: true })
  world = undefined
  root = undefined
})

/** A room of Codex's over a fresh workspace laid for the table; an
 *  allow-always stores what `grantFor` gives (by default, what the
 *  runtime makes now). */
async function room(
  grantFor?: (approval: ApprovalRecord) => Grant | undefined,
): Promise<{ world: ExternalAskerWorld; workspace: string }> {
  root = mkdtempSync(join(tmpdir(), 'assent-made-external-'))
  const workspace = await layMadeWorkspace(join(root, 'ws'))
  let clock = 1_000
  world = new ExternalAskerWorld({
    prefix: 'assent-made-external-db-',
    mac: MAC,
    agent: AGENT,
    workspace,
    now: () => (clock += 1),
    grantFor: grantFor ?? ((approval) => grantForDecision(approval, { now: () => clock })),
  })
  return { world, workspace }
}

/** Codex's request to run the script, in the workspace. */
const runScript = (workspace: string): ExternalActionRequest =>
  codexRequest({ kind: 'command', commandLine: `sh ${MADE_SCRIPT}`, argv: null, cwd: workspace })

const live = () => new AbortController().signal
const approvals = (world: ExternalAskerWorld) => world.stores.approvals.listByRoom(ROOM_ID)

const ALLOWS_EVERYTHING: ActionReviewer = {
  review: () => Promise.resolve({ verdict: 'allow', reason: 'looks fine to me' }),
}
const WEBHOOK_ALLOWS: DelegatedApprover = {
  id: 'webhook-allows',
  decide: () => Promise.resolve({ decision: 'allow-once', reason: 'webhook ok' }),
}

interface Door {
  name: string
  /** Gets `sh build.sh` allowed through the door; the turn's timeline and
   *  the request the agent then runs. */
  allow(
    world: ExternalAskerWorld,
    workspace: string,
  ): Promise<{ timeline: ExternalTurnTimeline; request: ExternalActionRequest }>
}

/** Asks under `policy` and lets the person decide `decision`. */
async function personDecides(
  world: ExternalAskerWorld,
  workspace: string,
  decision: 'allow-once' | 'allow-always',
) {
  const { asker, timeline } = world.askerUnder(policyForMode('ask-for-approval'))
  const request = runScript(workspace)
  const answer = asker.ask(request, live())
  await expect.poll(() => approvals(world).find((each) => each.status === 'pending')).toBeTruthy()
  const pending = approvals(world).find((each) => each.status === 'pending')!
  await world.gate.decide({ approvalId: pending.id, decision, decidedBy: 'user' })
  await expect(answer).resolves.toBe(decision)
  return { timeline, request }
}

/** Asks under `policy` with `parts`; the door must allow it unasked. */
async function allowedBy(
  world: ExternalAskerWorld,
  workspace: string,
  policy: RoomPolicy,
  parts: Parameters<ExternalAskerWorld['askerUnder']>[1],
  expected: ExternalDecision = 'allow-once',
) {
  const { asker, timeline } = world.askerUnder(policy, parts)
  const request = runScript(workspace)
  await expect(asker.ask(request, live())).resolves.toBe(expected)
  return { timeline, request }
}

const DOORS: Door[] = [
  {
    name: 'the person allows it once',
    allow: (world, workspace) => personDecides(world, workspace, 'allow-once'),
  },
  {
    name: 'a reviewer that allows everything',
    allow: (world, workspace) =>
      allowedBy(world, workspace, policyForMode('approve-for-me'), {
        reviewer: ALLOWS_EVERYTHING,
      }),
  },
  {
    name: 'an approver webhook that always approves',
    allow: (world, workspace) =>
      allowedBy(world, workspace, policyForMode('ask-for-approval'), {
        delegate: WEBHOOK_ALLOWS,
      }),
  },
]

/** What the agent does once allowed: runs the script where it was asked
 *  to, and reports the call ended. */
async function agentRuns(
  workspace: string,
  timeline: ExternalTurnTimeline,
  request: ExternalActionRequest,
): Promise<void> {
  // As the agent's own process runs it: Assent goes on meanwhile.
  await promisify(execFile)('sh', [MADE_SCRIPT], { cwd: workspace })
  timeline.record({
    type: 'tool-call',
    toolCallId: request.toolCallId,
    title: `sh ${MADE_SCRIPT}`,
    status: 'succeeded',
    action: null,
    output: 'done',
    exitCode: 0,
  })
}

describe.each(DOORS)('$name', (door) => {
  it.each(PERSON_ONLY_MADE)('%s: moved aside, the call failed', async (_name, line, moved) => {
    const { world, workspace } = await room()
    const { timeline, request } = await door.allow(world, workspace)
    await writeFile(join(workspace, MADE_SCRIPT), madeScript(line))
    await agentRuns(workspace, timeline, request)
    const call = timeline.callFor(request.toolCallId)
    expect(call).toMatchObject({
      toolName: 'agent_command',
      status: 'failed',
      result: { ok: false, code: 'person_only_made', exitCode: 0 },
    })
    expect(call?.result?.output).toMatch(/^done\n/)
    await expectMovedAside(workspace, moved, call?.result?.output ?? '')
  })
})

// The reason no grant answers an agent's command (agent-grant-scope.ts):
// the person allows the harmless script always; the agent then changes it
// and runs it again. A command grant stored before that rule answers
// nothing: the changed script is the person's to allow again.
describe('a grant for the command line, stored before commands were left to one run at a time', () => {
  it('answers nothing once the agent changed what the line runs: the person is asked again', async () => {
    const { world, workspace } = await room(grantStoredBeforeTheRules)
    const first = await personDecides(world, workspace, 'allow-always')
    await agentRuns(workspace, first.timeline, first.request)
    expect(world.stores.grants.listActive(ROOM_ID)).toHaveLength(1)
    await writeFile(join(workspace, MADE_SCRIPT), madeScript('mkdir -p sub/.git'))
    const { asker } = world.askerUnder(policyForMode('ask-for-approval'))
    const again = asker.ask(runScript(workspace), live())
    await expect.poll(() => approvals(world).filter((a) => a.status === 'pending')).toHaveLength(1)
    const pending = approvals(world).find((each) => each.status === 'pending')!
    await world.gate.decide({ approvalId: pending.id, decision: 'deny', decidedBy: 'user' })
    await expect(again).resolves.toBe('deny')
    expect(existsSync(join(workspace, 'sub', '.git'))).toBe(false)
  })
})

describe("an external agent's command", () => {
  it('that never reports its end is checked when the turn ends', async () => {
    const { world, workspace } = await room()
    const { timeline, request } = await DOORS[0]!.allow(world, workspace)
    execFileSync('sh', ['-c', 'mkdir -p sub/.git'], { cwd: workspace })
    timeline.record({ type: 'turn-ended', outcome: { status: 'interrupted', detail: null } })
    expect(existsSync(join(workspace, 'sub', '.git'))).toBe(false)
    expect(timeline.callFor(request.toolCallId)).toMatchObject({
      status: 'failed',
      result: { code: 'person_only_made' },
    })
  })

  it('has what it made moved aside while it still runs, not only once it ends', async () => {
    const { world, workspace } = await room()
    const { timeline, request } = await DOORS[0]!.allow(world, workspace)
    await writeFile(join(workspace, MADE_SCRIPT), madeScript(MADE_WHILE_RUNNING))
    await agentRuns(workspace, timeline, request)
    expect(await readFile(join(workspace, WHILE_RUNNING_SEEN), 'utf8')).toBe('gone\n')
    const call = timeline.callFor(request.toolCallId)
    expect(call).toMatchObject({ status: 'failed', result: { code: 'person_only_made' } })
    await expectMovedAside(workspace, ['sub/.git'], call?.result?.output ?? '')
  })

  it('keeps the call failed whatever the agent reports after', async () => {
    const { world, workspace } = await room()
    const { timeline, request } = await DOORS[0]!.allow(world, workspace)
    await writeFile(join(workspace, MADE_SCRIPT), madeScript('mkdir -p sub/.git'))
    await agentRuns(workspace, timeline, request)
    await agentRuns(workspace, timeline, request)
    expect(timeline.callFor(request.toolCallId)).toMatchObject({
      status: 'failed',
      result: { code: 'person_only_made' },
    })
  })

  it('moves nothing in full access, where the person asked for nothing to be held back', async () => {
    const { world, workspace } = await room()
    const { timeline, request } = await allowedBy(
      world,
      workspace,
      policyForMode('full-access'),
      {},
    )
    await writeFile(join(workspace, MADE_SCRIPT), madeScript('mkdir -p sub/.git'))
    await agentRuns(workspace, timeline, request)
    expect(existsSync(join(workspace, 'sub', '.git'))).toBe(true)
    expect(timeline.callFor(request.toolCallId)).toMatchObject({ status: 'succeeded' })
  })
})

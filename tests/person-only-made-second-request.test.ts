import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import type { AgentIdentity } from '../src/contracts/agent-request.ts'
import type { ExternalActionRequest } from '../src/runtime/external-agents/external-agent-port.ts'
import type { ExternalTurnTimeline } from '../src/runtime/external-turns/external-turn-timeline.ts'
import { grantForDecision } from '../src/runtime/agent/grant-issuer.ts'
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
  madeScript,
  PERSON_ONLY_MADE,
} from './support/person-only-made.ts'

/**
 * An agent's second request for a call whose first request was allowed
 * and still runs (a hostile agent reuses the call's id; Codex names one
 * command item in several approvals). The first run makes a hook; the
 * second request comes while it runs; the agent then says the call ended.
 * Whoever allowed the first, and however the second would be answered,
 * what the run made is moved aside when the agent says it ended, and the
 * second request is refused without anyone asked. Before, the second
 * request's refusal ended the call's record, so the agent's word that the
 * run ended was dropped and the hook stayed (until the turn ended), and its
 * allow watched again from what was there then, so the hook counted as
 * there before and stayed for good. Walked for both protocols: an ACP
 * client also reports a request it was told no to as a denied tool call.
 */

const MAC = new IntegrityMac(Buffer.alloc(32, 6))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }
const HOOK = PERSON_ONLY_MADE.find(([, line]) => line.includes('tools/hooks/pre-commit'))!

let root: string | undefined
let world: ExternalAskerWorld | undefined

afterEach(() => {
  world?.close()
  if (root) rmSync(root, { recursive: true, force: true })
  world = undefined
  root = undefined
})

const ALLOWS_EVERYTHING: ActionReviewer = {
  review: () => Promise.resolve({ verdict: 'allow', reason: 'looks fine to me' }),
}
const WEBHOOK_ALLOWS: DelegatedApprover = {
  id: 'webhook-allows',
  decide: () => Promise.resolve({ decision: 'allow-once', reason: 'webhook ok' }),
}

/** Who allows the first request; the second meets the same. */
const DOORS = [
  { name: 'the person', mode: 'ask-for-approval' as const, parts: {} },
  {
    name: 'a reviewer that allows everything',
    mode: 'approve-for-me' as const,
    parts: { reviewer: ALLOWS_EVERYTHING },
  },
  {
    name: 'an approver webhook that always approves',
    mode: 'ask-for-approval' as const,
    parts: { delegate: WEBHOOK_ALLOWS },
  },
]

/** The second request, for the same call: as its door would answer it. */
const SECONDS = [
  {
    name: 'the same command again (its door would allow it)',
    cwd: (workspace: string) => workspace,
  },
  { name: 'a command in a folder outside the workspace (refused)', cwd: () => tmpdir() },
]

const PROTOCOLS = ['codex-app-server', 'acp'] as const

const ROWS = DOORS.flatMap((door) =>
  SECONDS.flatMap((second) => PROTOCOLS.map((protocol) => ({ door, second, protocol }))),
)

const pending = (world: ExternalAskerWorld) =>
  world.stores.approvals.listByRoom(ROOM_ID).filter((each) => each.status === 'pending')

describe.each(ROWS)('$door.name, then $second.name, $protocol', ({ door, second, protocol }) => {
  it('refuses the second unasked, and moves aside what the run made', async () => {
    root = mkdtempSync(join(tmpdir(), 'assent-second-request-'))
    const workspace = await layMadeWorkspace(join(root, 'ws'))
    let clock = 1_000
    world = new ExternalAskerWorld({
      prefix: 'assent-second-request-db-',
      mac: MAC,
      agent: AGENT,
      workspace,
      now: () => (clock += 1),
      grantFor: (approval) => grantForDecision(approval, { now: () => clock }),
    })
    const { asker, timeline } = world.askerUnder(policyForMode(door.mode), door.parts)
    const first = {
      ...codexRequest({
        kind: 'command',
        commandLine: `sh ${MADE_SCRIPT}`,
        argv: null,
        cwd: workspace,
      }),
      protocol,
    }
    const answer = asker.ask(first, new AbortController().signal)
    if (door.name === 'the person') {
      await expect.poll(() => pending(world!).length).toBe(1)
      const [asked] = pending(world)
      await world.gate.decide({ approvalId: asked!.id, decision: 'allow-once', decidedBy: 'user' })
    }
    await expect(answer).resolves.toBe('allow-once')

    // The allowed run makes the hook while it goes on.
    await writeFile(join(workspace, MADE_SCRIPT), madeScript(HOOK[1]))
    await promisify(execFile)('sh', [MADE_SCRIPT], { cwd: workspace })

    const again: ExternalActionRequest = {
      ...first,
      requestId: `${first.requestId}-again`,
      action: {
        kind: 'command',
        commandLine: `sh ${MADE_SCRIPT}`,
        argv: null,
        cwd: second.cwd(workspace),
      },
    }
    const secondAnswer = asker.ask(again, new AbortController().signal)
    const asked = await Promise.race([
      secondAnswer,
      expect
        .poll(() => pending(world!).length)
        .toBe(1)
        .then(() => 'asked' as const),
    ])
    expect.soft(asked).toBe('deny')
    if (protocol === 'acp') reportDenied(timeline, again)

    // The agent says the allowed run ended.
    timeline.record({
      type: 'tool-call',
      toolCallId: first.toolCallId,
      title: `sh ${MADE_SCRIPT}`,
      status: 'succeeded',
      action: null,
      output: 'done',
      exitCode: 0,
    })
    const call = timeline.callFor(first.toolCallId)
    expect(call).toMatchObject({
      status: 'failed',
      result: { ok: false, code: 'person_only_made' },
    })
    await expectMovedAside(workspace, HOOK[2], call?.result?.output ?? '')
    expect(pending(world)).toEqual([])
  })
})

/** What the ACP client reports once a request of a call was told no. */
function reportDenied(timeline: ExternalTurnTimeline, request: ExternalActionRequest): void {
  timeline.record({
    type: 'tool-call',
    toolCallId: request.toolCallId,
    title: `sh ${MADE_SCRIPT}`,
    status: 'denied',
    action: request.action,
    output: null,
    exitCode: null,
  })
}

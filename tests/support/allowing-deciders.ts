import { expect } from 'vitest'
import type {
  ExternalActionRequest,
  ExternalApprovalAsker,
} from '../../src/runtime/external-agents/external-agent-port.ts'
import { policyForMode } from '../../src/runtime/policy/permission-modes.ts'
import type { ActionReviewer } from '../../src/runtime/policy/reviewer.ts'
import type { DelegatedApprover } from '../../src/runtime/ports/delegated-approver.ts'
import {
  codexRequest,
  type ExternalAskerWorld,
} from '../../src/runtime/test-support/external-asker.ts'
import { ROOM_ID } from '../../src/runtime/test-support/sqlite-stores.ts'
import { eventually } from './runtime-harness.ts'

/** An approve-for-me reviewer that allows whatever it is shown. */
export const REVIEWER_ALLOWS: ActionReviewer = {
  review: () => Promise.resolve({ verdict: 'allow', reason: 'looks fine to me' }),
}

/** An approver webhook that allows whatever it is sent. */
export const WEBHOOK_ALLOWS: DelegatedApprover = {
  id: 'webhook-allows',
  decide: () => Promise.resolve({ decision: 'allow-once', reason: 'webhook ok' }),
}

/**
 * The two deciders that may answer an external agent's request for the
 * person, each allowing everything, with the mode that consults it: what
 * a row neither may answer must reach the person even so.
 */
export const ALLOWING_DECIDERS = [
  { by: 'agent-review', mode: 'approve-for-me', parts: { reviewer: REVIEWER_ALLOWS } },
  { by: 'webhook', mode: 'ask-for-approval', parts: { delegate: WEBHOOK_ALLOWS } },
] as const

/**
 * Asks `request()` in `world` under each of `ALLOWING_DECIDERS` and expects
 * each to leave it to the person: its approval waits, with the reason it
 * was escalated. The wait ends as soon as the request is answered or left
 * to the person, whichever comes first, so a decider that answers fails
 * the test at once instead of after the wait's timeout (however busy the
 * machine, no grace cuts the wait short). The person's denial then
 * settles it.
 */
export async function leftToThePersonByEach(
  world: ExternalAskerWorld,
  request: () => ExternalActionRequest,
): Promise<void> {
  for (const decider of ALLOWING_DECIDERS) {
    const { asker } = world.askerUnder(policyForMode(decider.mode), decider.parts)
    const before = world.stores.approvals.listByRoom(ROOM_ID).length
    let answered: string | undefined
    const answer = asker.ask(request(), new AbortController().signal).then((decision) => {
      answered = decision
      return decision
    })
    const seen = await eventually(() => {
      const found = world.stores.approvals.listByRoom(ROOM_ID)[before]
      const settled = answered !== undefined || found?.escalationReason !== undefined
      return Promise.resolve(settled ? { found, answered } : undefined)
    }, 'the request to be answered or left to the person')
    expect(seen.answered, decider.by).toBeUndefined()
    expect(seen.found, decider.by).toMatchObject({ status: 'pending' })
    await world.gate.decide({
      approvalId: seen.found?.id ?? '',
      decision: 'deny',
      decidedBy: 'user',
    })
    expect(await answer).toBe('deny')
  }
}

/**
 * A command line as each external agent asks to run it in `cwd`: Codex's
 * command approval, and an ACP agent's own tool of kind `execute`
 * (claude-agent-acp's Bash), whose raw input carries it. Both run outside
 * Assent's sandbox.
 */
export function agentCommandRequests(
  commandLine: string,
  cwd: string,
): Array<() => ExternalActionRequest> {
  return [
    () => codexRequest({ kind: 'command', commandLine, argv: null, cwd }),
    () => ({
      ...codexRequest({
        kind: 'tool',
        toolKind: 'execute',
        title: commandLine,
        input: { command: commandLine, cwd },
        locations: [],
      }),
      protocol: 'acp',
    }),
  ]
}

/** `leftToThePersonByEach` for `commandLine` as each external agent asks
 *  to run it (`agentCommandRequests`). */
export async function commandLeftToThePersonByEach(
  world: ExternalAskerWorld,
  commandLine: string,
  cwd: string,
): Promise<void> {
  for (const request of agentCommandRequests(commandLine, cwd)) {
    await leftToThePersonByEach(world, request)
  }
}

/**
 * A change to the file at `path` (absolute) as each external agent asks
 * to make one: Codex's diff, and an ACP agent's old and new text.
 */
export function agentFileChangeRequests(path: string): Array<() => ExternalActionRequest> {
  const change = { path, change: 'update', movePath: null } as const
  return [
    () =>
      codexRequest({
        kind: 'file-changes',
        changes: [{ ...change, diff: '@@ -1 +1 @@\n-x\n+y\n', oldText: null, newText: null }],
      }),
    () => ({
      ...codexRequest({
        kind: 'file-changes',
        changes: [{ ...change, diff: null, oldText: 'x\n', newText: 'y\n' }],
      }),
      protocol: 'acp',
    }),
  ]
}

/** `leftToThePersonByEach` for a change to `path` as each external agent
 *  asks to make it (`agentFileChangeRequests`). */
export async function fileChangeLeftToThePersonByEach(
  world: ExternalAskerWorld,
  path: string,
): Promise<void> {
  for (const request of agentFileChangeRequests(path)) await leftToThePersonByEach(world, request)
}

/** Asks `asker` each of `requests` and expects each allowed: the control
 *  that shows a door answers what the rule leaves to it. */
export async function answersEach(
  asker: ExternalApprovalAsker,
  requests: ReadonlyArray<() => ExternalActionRequest>,
): Promise<void> {
  for (const request of requests) {
    expect(await asker.ask(request(), new AbortController().signal)).toBe('allow-once')
  }
}

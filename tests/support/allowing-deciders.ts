import { expect } from 'vitest'
import type { ExternalActionRequest } from '../../src/runtime/external-agents/external-agent-port.ts'
import { policyForMode } from '../../src/runtime/policy/permission-modes.ts'
import type { ActionReviewer } from '../../src/runtime/policy/reviewer.ts'
import type { DelegatedApprover } from '../../src/runtime/ports/delegated-approver.ts'
import type { ExternalAskerWorld } from '../../src/runtime/test-support/external-asker.ts'
import { ROOM_ID } from '../../src/runtime/test-support/sqlite-stores.ts'
import { eventually } from './runtime-harness.ts'

/** An approve-for-me reviewer that allows whatever it is shown. */
export const REVIEWER_ALLOWS: ActionReviewer = {
  review: () => Promise.resolve({ verdict: 'allow', reason: 'looks fine to me' }),
}

/** An approver webhook that allows whatever it is sent. */
export const WEBHOOK_ALLOWS: DelegatedApprover = {
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
 * Asks `request()` in `world` under each of `ALLOWING_DECIDERS`: neither
 * may answer it. Each time the approval waits, with the reason it was
 * left to the person (however busy the machine, no grace cuts the wait
 * short), and the person's deny is the agent's answer.
 */
export async function leftToThePersonByEach(
  world: ExternalAskerWorld,
  request: () => ExternalActionRequest,
): Promise<void> {
  for (const decider of ALLOWING_DECIDERS) {
    const { asker } = world.askerUnder(policyForMode(decider.mode), decider.parts)
    const before = world.stores.approvals.listByRoom(ROOM_ID).length
    const answer = asker.ask(request(), new AbortController().signal)
    const approval = await eventually(() => {
      const found = world.stores.approvals.listByRoom(ROOM_ID)[before]
      return Promise.resolve(found?.escalationReason === undefined ? undefined : found)
    }, 'the request to be left to the person')
    expect(approval, decider.by).toMatchObject({ status: 'pending' })
    await world.gate.decide({ approvalId: approval.id, decision: 'deny', decidedBy: 'user' })
    expect(await answer).toBe('deny')
  }
}

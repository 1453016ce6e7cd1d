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

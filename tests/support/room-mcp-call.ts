import { expect } from 'vitest'
import { scaledMs } from '../../scripts/test-timing.ts'
import type { ApprovalSummary } from '../../src/contracts/approval.ts'
import { decide, roomApprovals } from './policy-helpers.ts'
import { send, turnSettled } from './room-helpers.ts'
import { eventually, type RuntimeHarness } from './runtime-harness.ts'

/** How long a decider has to speak up, where a row expects silence. */
const GRACE_MS = scaledMs(1_500)

/** Asks the notes server to read the note `name` in `roomId`: the
 *  approval once a decider had its say, or left to the person, or the
 *  grace passed; with `decided`, only once it is decided (a control a
 *  decider answers, however busy the machine: no grace cuts it short). */
export async function readNoteApproval(
  harness: RuntimeHarness,
  roomId: string,
  name: string,
  options: { decided?: boolean } = {},
): Promise<{ turnId: string; approval: ApprovalSummary }> {
  const turnId = await send(harness, roomId, `mcp notes read_note ${JSON.stringify({ name })}`)
  const deadline = Date.now() + GRACE_MS
  const approval = await eventually(async () => {
    const found = (await roomApprovals(harness, roomId)).find((a) => a.turnId === turnId)
    if (found === undefined) return undefined
    if (options.decided === true) return found.status === 'pending' ? undefined : found
    const spoken = found.status !== 'pending' || found.escalationReason !== undefined
    return spoken || Date.now() > deadline ? found : undefined
  }, 'the approval to be decided or left to the person')
  return { turnId, approval }
}

/** Denies `approval` if it still waits, and waits for its turn to end. */
export async function settleTurn(
  harness: RuntimeHarness,
  roomId: string,
  turnId: string,
  approval: ApprovalSummary,
): Promise<void> {
  if (approval.status === 'pending') {
    const view = await harness.client.getApproval(approval.id)
    expect((await decide(harness, view, 'deny')).status).toBe(200)
  }
  await turnSettled(harness, roomId, turnId)
}

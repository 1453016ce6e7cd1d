import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { ApprovalSummarySchema, type ApprovalView } from '../../src/contracts/approval.ts'
import { RoomSchema, TimelineSchema, type Room, type Timeline } from '../../src/contracts/room.ts'
import { scaledMs } from '../../scripts/test-timing.ts'
import { eventually, type RuntimeHarness } from './runtime-harness.ts'

export async function createRoom(
  harness: RuntimeHarness,
  fields: { agentId?: string; kind?: 'direct' | 'group'; workspace?: string } = {},
): Promise<Room> {
  const { room } = await harness.client.request(
    z.object({ room: RoomSchema }),
    'POST',
    '/v1/rooms',
    {
      kind: fields.kind ?? 'direct',
      agentId: fields.agentId ?? 'assistant',
      workspace: fields.workspace ?? harness.workspace,
      title: 'Test room',
    },
  )
  return room
}

export async function send(harness: RuntimeHarness, roomId: string, text: string): Promise<string> {
  const { turn } = await harness.client.request(
    z.object({ turn: z.object({ id: z.string() }) }),
    'POST',
    `/v1/rooms/${roomId}/messages`,
    { clientRequestId: randomUUID(), text },
  )
  return turn.id
}

export function timeline(harness: RuntimeHarness, roomId: string): Promise<Timeline> {
  return harness.client.request(TimelineSchema, 'GET', `/v1/rooms/${roomId}/timeline`)
}

/** Sends a message and waits for the approval it asks for. */
export async function pendingApprovalFor(
  harness: RuntimeHarness,
  roomId: string,
  text: string,
): Promise<ApprovalView> {
  const turnId = await send(harness, roomId, text)
  const summary = await eventually(async () => {
    const { approvals } = await harness.client.request(
      z.object({ approvals: z.array(ApprovalSummarySchema) }),
      'GET',
      `/v1/rooms/${roomId}/approvals`,
    )
    return approvals.find((approval) => approval.turnId === turnId && approval.status === 'pending')
  }, `a pending approval for "${text}"`)
  return harness.client.getApproval(summary.id)
}

/** The lifetime of an approval a test lets expire: long enough for a busy
 *  machine to see it pending first (a test that never saw it pending
 *  proves nothing), scaled like every ceiling. */
export const SHORT_APPROVAL_TTL_MS = scaledMs(3_000)

/** Waits until the approval's own expiry time has passed on this machine's
 *  clock (the runtime's too): the event an expiry test waits for, instead
 *  of a guess at how long that takes. */
export function pastExpiry(view: ApprovalView): Promise<true> {
  return eventually(
    () => (Date.now() > view.approval.expiresAt ? true : undefined),
    `approval ${view.approval.id} to pass its expiry`,
  )
}

/** Waits until the turn has no tool call still awaiting or running. */
export async function turnSettled(harness: RuntimeHarness, roomId: string, turnId: string) {
  return eventually(async () => {
    const current = await timeline(harness, roomId)
    const turn = current.turns.find((candidate) => candidate.id === turnId)
    return turn && (turn.status === 'done' || turn.status === 'failed') ? current : undefined
  }, `turn ${turnId} to settle`)
}

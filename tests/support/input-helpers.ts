import { z } from 'zod'
import {
  InputRequestRecordSchema,
  type InputRequestRecord,
} from '../../src/contracts/input-request.ts'
import { eventually, type RuntimeHarness } from './runtime-harness.ts'

export async function inputRequests(
  harness: RuntimeHarness,
  roomId: string,
): Promise<InputRequestRecord[]> {
  const { requests } = await harness.client.request(
    z.object({ requests: z.array(InputRequestRecordSchema) }),
    'GET',
    `/v1/rooms/${roomId}/input-requests`,
  )
  return requests
}

/** Waits for the pending input request of a turn. */
export function pendingInputFor(
  harness: RuntimeHarness,
  roomId: string,
  turnId: string,
): Promise<InputRequestRecord> {
  return eventually(async () => {
    const requests = await inputRequests(harness, roomId)
    return requests.find((request) => request.turnId === turnId && request.status === 'pending')
  }, `a pending input request in turn ${turnId}`)
}

export function respond(
  harness: RuntimeHarness,
  requestId: string,
  body: unknown,
  route: 'response' | 'protected-response' = 'response',
) {
  return harness.client.raw('POST', `/v1/input-requests/${requestId}/${route}`, body)
}

import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openGatewayCall, putFileRequest, readGatewayCall } from './support/gateway-call-request.ts'
import { decide, setMode } from './support/policy-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * A gateway call waits for the person; meanwhile the person puts the
 * gateway room in plan. The gateway runs the call as soon as it reads
 * "allowed", so that read is where what allowed it must still stand
 * (policy/allower-stands.ts), as at every other door: in plan the
 * person's allow, given in the window opened before, is read as refused
 * (`room_narrowed`), and the gateway runs nothing. The control: the same
 * allow with the room left as it was is read as allowed.
 */

let folders = 0
let harness: RuntimeHarness

beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await harness?.close()
})

/** A call the gateway opened in a fresh folder, waiting for the person. */
async function waitingCall() {
  folders += 1
  const workspace = join(harness.root, `gateway-after-plan-${folders}`)
  await mkdir(workspace)
  const opened = await openGatewayCall(
    harness,
    putFileRequest(workspace, { target: 'notes.txt', body: 'x' }),
  )
  expect(opened.status).toBe('pending')
  if (opened.approvalId === null) throw new Error('the call asked nobody')
  return { ...opened, approvalId: opened.approvalId }
}

describe('a gateway call the person allows', () => {
  it('control: is read as allowed while the room is as it was', async () => {
    const call = await waitingCall()
    const view = await harness.client.getApproval(call.approvalId)
    expect((await decide(harness, view, 'allow-once')).status).toBe(200)
    expect(await readGatewayCall(harness, call.callId)).toMatchObject({ status: 'allowed' })
  })

  it('is read as refused once the room was put in plan while it waited', async () => {
    const call = await waitingCall()
    await setMode(harness, call.roomId, 'plan')
    const view = await harness.client.getApproval(call.approvalId)
    expect((await decide(harness, view, 'allow-once')).status).toBe(200)
    expect(await readGatewayCall(harness, call.callId)).toMatchObject({
      status: 'refused',
      code: 'room_narrowed',
    })
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_WAITING_GATEWAY_CALLS } from '../src/runtime/mcp/waiting-asks.ts'
import { noteCallRequest, openGatewayCall, sentAsGateway } from './support/gateway-call-request.ts'
import { decide, gatewayRoom } from './support/mcp-gateway-harness.ts'
import { roomApprovals } from './support/policy-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * Each assent-gateway keeps its own clients to 16 questions waiting, but
 * every gateway holds the same credential: a process that starts many
 * gateways, or calls the runtime's gateway routes itself, opened as many
 * approvals as it liked, one protected window's worth each. The runtime
 * keeps every gateway together to `MAX_WAITING_GATEWAY_CALLS`: past it a
 * call is refused (429 `too_many_waiting`) before anything is stored or
 * anyone asked, and once one is decided another may ask again. Through the
 * real runtime, over loopback, as the gateway's own requests are made.
 */
describe('gateway calls waiting for the person, from every gateway together', () => {
  let harness: RuntimeHarness
  beforeAll(async () => {
    harness = await startHarness()
  })
  afterAll(async () => {
    await harness?.close()
  })

  const waiting = async (roomId: string) =>
    (await roomApprovals(harness, roomId)).filter((approval) => approval.status === 'pending')

  const callWriting = (index: number) => {
    const request = noteCallRequest(harness.workspace)
    return { ...request, arguments: { name: `n${index}.txt`, text: 'x' } }
  }

  it('refuses one past the cap without asking, and asks again once one is decided', async () => {
    const opened = await Promise.all(
      Array.from({ length: MAX_WAITING_GATEWAY_CALLS }, (_, index) =>
        openGatewayCall(harness, callWriting(index)),
      ),
    )
    expect(opened.every((call) => call.status === 'pending')).toBe(true)
    const room = await gatewayRoom(harness)
    expect(await waiting(room.id)).toHaveLength(MAX_WAITING_GATEWAY_CALLS)

    const refused = await sentAsGateway(harness, {
      method: 'POST',
      path: '/v1/gateway/calls',
      body: JSON.stringify(callWriting(MAX_WAITING_GATEWAY_CALLS)),
    })
    expect(refused.status).toBe(429)
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'too_many_waiting' })
    // Nobody was asked: no approval more.
    expect(await waiting(room.id)).toHaveLength(MAX_WAITING_GATEWAY_CALLS)

    const first = opened[0]!
    const view = await harness.client.getApproval(first.approvalId!)
    expect(await decide(harness, view, 'deny')).toBe(200)
    const again = await openGatewayCall(harness, callWriting(MAX_WAITING_GATEWAY_CALLS + 1))
    expect(again.status).toBe('pending')
    expect(await waiting(room.id)).toHaveLength(MAX_WAITING_GATEWAY_CALLS)
  })
})

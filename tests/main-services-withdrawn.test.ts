import { afterEach, describe, expect, it } from 'vitest'
import { GatewayOpenedCallSchema } from '../src/contracts/mcp-gateway.ts'
import { rejectApprovalForMessage } from '../src/main/core/message-rejection.ts'
import { gatewayLinkKeys } from '../src/runtime/mcp/gateway-answer-proof.ts'
import { readGatewayConnectionFile } from '../src/runtime/mcp/gateway-connection-file.ts'
import { noteCallRequest } from './support/gateway-call-request.ts'
import { startServices } from './support/main-services-rig.ts'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

/** The gateway's side, over its own request key, as the gateway calls it. */
function gatewayOf(dataDir: string) {
  const send = async (path: string, body: unknown) => {
    const file = readGatewayConnectionFile(dataDir)
    const response = await fetch(`http://127.0.0.1:${file.port}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${gatewayLinkKeys(file.gatewayCredential).requestKey}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    })
    return { status: response.status, body: (await response.json()) as unknown }
  }
  return {
    open: async (workspace: string) => {
      const request = noteCallRequest(workspace)
      return GatewayOpenedCallSchema.parse((await send('/v1/gateway/calls', request)).body)
    },
    cancel: (callId: string, cancelKey: string) =>
      send(`/v1/gateway/calls/${callId}/cancel`, { cancelKey }),
  }
}

describe('MainServices when a question is withdrawn', () => {
  it('closes the protected window of an approval whose client cancelled, and mints nothing for it', async () => {
    const { main, windows, workspace, dataDir } = await startServices(cleanups)
    const minted: string[] = []
    const decideApproval = main.client.decideApproval.bind(main.client)
    main.client.decideApproval = (approvalId, decision, token, digest) => {
      minted.push(approvalId)
      return decideApproval(approvalId, decision, token, digest)
    }
    const gateway = gatewayOf(dataDir)
    const call = await gateway.open(workspace)
    const review = main.handleWorkbenchCall('review', [call.approvalId])
    const window = await windows.nextShown()
    expect(window.closed).toBe(false)

    expect((await gateway.cancel(call.callId, call.cancelKey)).status).toBe(200)

    await expect(review).resolves.toEqual({ status: 'expired' })
    expect(window.closed).toBe(true)
    expect(main.controller.openPromptCount).toBe(0)
    // A click that arrives now decides nothing: the prompt is gone.
    main.controller.handleDecision(window.promptId, 'allow-once', window)
    expect(minted).toEqual([])
  })

  it('closes an open review when the approval is decided without its window', async () => {
    const { main, windows, dataDir, workspace } = await startServices(cleanups)
    const call = await gatewayOf(dataDir).open(workspace)
    const review = main.handleWorkbenchCall('review', [call.approvalId])
    const window = await windows.nextShown()
    // Denied elsewhere (here a rejection by message told nothing about this
    // window): only the runtime's event can close it.
    const rejected = await rejectApprovalForMessage(
      { client: main.client, connection: () => main.supervisor.current },
      [call.approvalId],
    )
    expect(rejected).toMatchObject({ status: 'rejected' })

    await expect(review).resolves.toMatchObject({
      status: 'closed',
      reason: { code: 'approval_decided' },
    })
    expect(window.closed).toBe(true)
    expect(main.controller.openPromptCount).toBe(0)
  })
})

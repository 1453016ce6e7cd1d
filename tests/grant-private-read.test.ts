import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatewayCallRequest } from '../src/contracts/mcp-gateway.ts'
import { governedRequest } from '../src/runtime/mcp/governed-mcp-action.ts'
import { gatewayRequestOf, openGatewayCall } from './support/gateway-call-request.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { decide, roomGrants } from './support/policy-helpers.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

/**
 * The person allows always one `resources/read` through the gateway, of a
 * file inside the workspace. The grant is bound to the method, not to
 * where it reads; it must still not answer a read of a file outside the
 * workspace: a private read, which only the person who sees that very
 * place may allow, as neither the reviewer nor the webhook may
 * (private-read-approval.ts, `grantForAction`).
 */

let harness: RuntimeHarness
let inside: string
let outside: string

function readRequest(uri: string): GatewayCallRequest {
  const shown = governedRequest(
    {
      id: 'files',
      name: 'Files',
      transport: { type: 'streamable-http', url: 'http://127.0.0.1:1/mcp' },
    } as never,
    'resources/read',
    { uri },
  )
  return gatewayRequestOf(shown, harness.workspace)
}

beforeAll(async () => {
  harness = await startInProcessRuntime({})
  inside = join(harness.workspace, 'docs', 'ok.txt')
  await mkdir(join(harness.workspace, 'docs'), { recursive: true })
  await writeFile(inside, 'inside\n')
  outside = join(harness.root, 'elsewhere', 'diary.txt')
  await mkdir(join(harness.root, 'elsewhere'), { recursive: true })
  await writeFile(outside, 'private\n')
})
afterAll(async () => {
  await harness?.close()
})

describe('a resources/read grant given on a read inside the workspace', () => {
  it('does not answer a read outside the workspace (a private read)', async () => {
    const first = await openGatewayCall(harness, readRequest(`file://${inside}`))
    expect(first.status).toBe('pending')
    expect(first.approvalId).not.toBeNull()
    const view = await harness.client.getApproval(first.approvalId ?? '')
    expect((await decide(harness, view, 'allow-always')).status).toBe(200)
    expect(await roomGrants(harness, first.roomId)).toHaveLength(1)

    const second = await openGatewayCall(harness, readRequest(`file://${outside}`))
    // Secure: the private read goes to the person; no grant answers it.
    expect({ status: second.status, grantId: second.grantId }).toEqual({
      status: 'pending',
      grantId: null,
    })
  })
})

import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GatewayCallRequest, GovernedMcpMethod } from '../src/contracts/mcp-gateway.ts'
import { governedRequest } from '../src/runtime/mcp/governed-mcp-action.ts'
import type { McpServer } from '../src/runtime/mcp/mcp-connection.ts'
import { gatewayRequestOf, openGatewayCall } from './support/gateway-call-request.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { decide } from './support/policy-helpers.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

/**
 * An "always allow" on a gateway resource read or prompt is bound to the
 * server as the person was shown it and as it is started: its folder
 * ("Server works in"), its command and arguments, or its URL. A tool grant
 * binds the definition the server sends; a read or a prompt has none, so
 * without this a grant kept answering after mcp.json started another
 * program under the same id, or the same one in another folder, where its
 * relative URIs mean other files. Each change below is one mcp.json edit
 * of the server the person allowed; the control is no change at all.
 */

let harness: RuntimeHarness

beforeAll(async () => {
  harness = await startInProcessRuntime({})
  await mkdir(join(harness.workspace, 'docs'), { recursive: true })
  await writeFile(join(harness.workspace, 'docs', 'ok.txt'), 'ok\n')
  // A folder that could be a project of its own: reads there count as the
  // server's own, so only the binding keeps the grant from answering them.
  await mkdir(join(harness.root, 'another-project', 'docs'), { recursive: true })
})
afterAll(async () => {
  await harness?.close()
})

type Transport = { type: 'stdio'; command: string; args: string[]; cwd: string } | { url: string }

/** The server the person was shown: started in the workspace. */
const SHOWN = (): Transport => ({
  type: 'stdio',
  command: 'notes-server',
  args: ['--serve'],
  cwd: harness.workspace,
})

const CHANGES: ReadonlyArray<{
  change: string
  transport: () => Transport
  answered: boolean
}> = [
  { change: 'nothing (control)', transport: SHOWN, answered: true },
  {
    change: 'the folder it works in',
    transport: () => ({ ...SHOWN(), cwd: join(harness.root, 'another-project') }),
    answered: false,
  },
  {
    change: 'its command',
    transport: () => ({ ...SHOWN(), command: 'another-server' }),
    answered: false,
  },
  {
    change: 'its arguments',
    transport: () => ({ ...SHOWN(), args: ['--serve', '--root', '/'] }),
    answered: false,
  },
  {
    change: 'its transport, to a URL',
    transport: () => ({ url: 'http://127.0.0.1:1/mcp' }),
    answered: false,
  },
]

/** A governed request of a server `id` started as `transport`. */
function request(
  id: string,
  method: GovernedMcpMethod,
  transport: Transport,
  args: Record<string, unknown>,
): GatewayCallRequest {
  const server = {
    id,
    name: 'Notes',
    transport:
      'url' in transport
        ? { type: 'streamable-http', url: transport.url }
        : { ...transport, env: {} },
    allowed_tools: [],
  } as unknown as McpServer
  const shown = governedRequest(server, method, args)
  return gatewayRequestOf(shown, harness.workspace)
}

describe.each(['resources/read', 'prompts/get'] as const)('a grant on %s', (method) => {
  // A read inside the workspace, which a grant may answer.
  const args = () =>
    method === 'resources/read'
      ? { uri: `file://${join(harness.workspace, 'docs', 'ok.txt')}` }
      : { name: 'summarize', arguments: { file: 'docs/ok.txt' } }

  it.each(CHANGES)('after mcp.json changes $change', async ({ change, transport, answered }) => {
    // A server of its own per case, so no case's grant answers another's.
    const id = `notes-${CHANGES.findIndex((each) => each.change === change)}`
    const first = await openGatewayCall(harness, request(id, method, SHOWN(), args()))
    expect(first.status).toBe('pending')
    const view = await harness.client.getApproval(first.approvalId ?? '')
    expect((await decide(harness, view, 'allow-always')).status).toBe(200)

    const later = await openGatewayCall(harness, request(id, method, transport(), args()))
    expect(later.status === 'allowed' && later.grantId !== null).toBe(answered)
    if (!answered) {
      expect(later.status).toBe('pending')
      const again = await harness.client.getApproval(later.approvalId ?? '')
      expect((await decide(harness, again, 'deny')).status).toBe(200)
    }
  })
})

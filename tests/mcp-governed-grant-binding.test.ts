import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { McpConsentRequest } from '../src/runtime/mcp/gated-mcp-call.ts'
import { toolConsentRequest } from '../src/runtime/mcp/mcp-consent-request.ts'
import { governedRequest } from '../src/runtime/mcp/governed-mcp-action.ts'
import type { McpServer } from '../src/runtime/mcp/mcp-connection.ts'
import type { McpToolDefinition } from '../src/runtime/mcp/mcp-tool-definition.ts'
import { gatewayRequestOf, openGatewayCall } from './support/gateway-call-request.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { decide } from './support/policy-helpers.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

/**
 * Every "always allow" on an MCP server (a tool, every tool of the
 * server, a resource read, a prompt) is bound to the server as the person
 * was shown it and as it is started: its folder ("Server works in"), its
 * command and arguments, or its URL. Without this a grant kept answering
 * after mcp.json started another program under the same id (offering a
 * tool of the same definition), or the same one in another folder, where
 * its relative arguments and URIs mean other files. Each change below is
 * one mcp.json edit of the server the person allowed; the control is no
 * change at all. The table is walked through each kind of grant.
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

/** Server `id` as mcp.json starts it, with `transport`. */
function serverOf(id: string, transport: Transport): McpServer {
  return {
    id,
    name: 'Notes',
    transport:
      'url' in transport
        ? { type: 'streamable-http', url: transport.url }
        : { ...transport, env: {} },
    allowed_tools: [WRITE_NOTE.name, READ_NOTE.name],
  } as unknown as McpServer
}

const WRITE_NOTE: McpToolDefinition = {
  name: 'write_note',
  description: 'Writes a note.',
  inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
}
const READ_NOTE: McpToolDefinition = {
  name: 'read_note',
  description: 'Reads a note.',
  inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
}

/** Each kind of grant: the decision that leaves it, and a request it
 *  could answer, from server `id` started as `transport`. */
const GRANTS: ReadonlyArray<{
  kind: string
  decision: 'allow-always' | 'allow-always-server'
  request: (server: McpServer) => McpConsentRequest
}> = [
  {
    kind: 'a tool',
    decision: 'allow-always',
    request: (server) =>
      toolConsentRequest(server, WRITE_NOTE, [WRITE_NOTE, READ_NOTE], { name: 'a.txt' }, null),
  },
  {
    kind: 'every tool of the server',
    decision: 'allow-always-server',
    request: (server) =>
      toolConsentRequest(server, WRITE_NOTE, [WRITE_NOTE, READ_NOTE], { name: 'a.txt' }, null),
  },
  {
    kind: 'resources/read',
    decision: 'allow-always',
    request: (server) =>
      governedRequest(server, 'resources/read', {
        uri: `file://${join(harness.workspace, 'docs', 'ok.txt')}`,
      }),
  },
  {
    kind: 'prompts/get',
    decision: 'allow-always',
    request: (server) =>
      governedRequest(server, 'prompts/get', {
        name: 'summarize',
        arguments: { file: 'docs/ok.txt' },
      }),
  },
]

describe.each(GRANTS)('a grant on $kind', ({ kind, decision, request }) => {
  it.each(CHANGES)('after mcp.json changes $change', async ({ change, transport, answered }) => {
    // A server of its own per case, so no case's grant answers another's.
    const id = `n${GRANTS.findIndex((each) => each.kind === kind)}-${CHANGES.findIndex((each) => each.change === change)}`
    const asked = (started: Transport) =>
      gatewayRequestOf(request(serverOf(id, started)), harness.workspace)
    const first = await openGatewayCall(harness, asked(SHOWN()))
    expect(first.status).toBe('pending')
    const view = await harness.client.getApproval(first.approvalId ?? '')
    expect((await decide(harness, view, decision)).status).toBe(200)

    const later = await openGatewayCall(harness, asked(transport()))
    expect(later.status === 'allowed' && later.grantId !== null).toBe(answered)
    if (!answered) {
      expect(later.status).toBe('pending')
      const again = await harness.client.getApproval(later.approvalId ?? '')
      expect((await decide(harness, again, 'deny')).status).toBe(200)
    }
  })
})

import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import {
  GatewayCallStateSchema,
  GatewayElicitationStateSchema,
  type GatewayCallRequest,
  type GatewayCallState,
} from '../contracts/mcp-gateway.ts'
import type { ElicitationForm } from '../runtime/mcp/mcp-elicitation.ts'
import { readGatewayConnectionFile } from '../runtime/mcp/gateway-connection-file.ts'
import type {
  McpConsentPort,
  McpConsentRequest,
  McpConsentTicket,
} from '../runtime/mcp/gated-mcp-call.ts'

/**
 * The gateway's way to ask the person: the running runtime's gateway routes,
 * found through the connection file in the data dir. It opens a call, then
 * long-polls its outcome. The credential it reads can do nothing else: the
 * runtime refuses it on every route that decides.
 */
export class RuntimeConsentClient implements McpConsentPort {
  private readonly dataDir: string
  private readonly workspace: string

  constructor(options: { dataDir: string; workspace: string }) {
    this.dataDir = options.dataDir
    this.workspace = options.workspace
  }

  async ask(request: McpConsentRequest): Promise<McpConsentTicket> {
    const body: GatewayCallRequest = { workspace: this.workspace, ...request }
    let state = await this.call('POST', '/v1/gateway/calls', body)
    while (state.status === 'pending') {
      state = await this.call('GET', `/v1/gateway/calls/${state.callId}`)
    }
    const callId = state.callId
    return {
      status: state.status,
      reason: state.reason,
      report: async (result) => {
        await this.send('POST', `/v1/gateway/calls/${callId}/result`, {
          ok: result.ok,
          output: result.output.slice(0, 65_536),
        })
      },
      elicit: (form) => this.elicit(callId, form),
    }
  }

  /** A server's form during the allowed call `callId`: shown in the
   *  gateway room, its answer long-polled like a call's outcome. */
  private async elicit(callId: string, form: ElicitationForm): Promise<ElicitResult> {
    const parse = (value: unknown) => GatewayElicitationStateSchema.parse(value)
    let state = parse(await this.send('POST', `/v1/gateway/calls/${callId}/elicitations`, form))
    while (state.status === 'pending') {
      state = parse(await this.send('GET', `/v1/gateway/elicitations/${state.requestId}`))
    }
    return state.outcome
  }

  private async call(method: string, path: string, body?: unknown): Promise<GatewayCallState> {
    return GatewayCallStateSchema.parse(await this.send(method, path, body))
  }

  /** Re-reads the connection file each time, so a restarted runtime (new
   *  port, new credential) is found without restarting the gateway. */
  private async send(method: string, path: string, body?: unknown): Promise<unknown> {
    const connection = readGatewayConnectionFile(this.dataDir)
    const response = await fetch(`http://127.0.0.1:${connection.port}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${connection.gatewayCredential}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await response.text()
    const value: unknown = text === '' ? null : JSON.parse(text)
    if (!response.ok) {
      const detail = (value as { error?: string } | null)?.error ?? `status ${response.status}`
      throw new Error(`the Assent runtime refused ${method} ${path}: ${detail}`)
    }
    return value
  }
}

import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import {
  GatewayCallStateSchema,
  GatewayElicitationStateSchema,
  type GatewayCallRequest,
  type GatewayCallState,
} from '../contracts/mcp-gateway.ts'
import type { ElicitationForm } from '../runtime/mcp/mcp-elicitation.ts'
import { readGatewayConnectionFile } from '../runtime/mcp/gateway-connection-file.ts'
import { LoopbackClient } from '../loopback/loopback-client.ts'
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
 *
 * What an allowed call returned is reported after the agent has its result,
 * in order, so the agent never waits for the timeline's entry; the runtime
 * recorded (durably) that the call was allowed before it ran. `drain` waits
 * for the reports still on their way, and the gateway calls it before it
 * exits, so none is lost.
 */
export class RuntimeConsentClient implements McpConsentPort {
  private readonly dataDir: string
  private readonly workspace: string
  private readonly log: (line: string) => void
  private readonly loopback = new LoopbackClient()
  private reports: Promise<void> = Promise.resolve()

  constructor(options: { dataDir: string; workspace: string; log: (line: string) => void }) {
    this.dataDir = options.dataDir
    this.workspace = options.workspace
    this.log = options.log
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
      ...(state.grantId === null ? {} : { byGrant: true as const }),
      report: (result) => {
        const body = { ok: result.ok, output: result.output.slice(0, 65_536) }
        this.reports = this.reports.then(() =>
          this.send('POST', `/v1/gateway/calls/${callId}/result`, body).then(
            () => undefined,
            (error: unknown) =>
              this.log(
                `assent-gateway: what ${callId} returned was not recorded: ${(error as Error).message}`,
              ),
          ),
        )
        return Promise.resolve()
      },
      elicit: (form) => this.elicit(callId, form),
    }
  }

  /** Resolves once every report made so far has reached the runtime (or
   *  failed, and said so). */
  async drain(): Promise<void> {
    await this.reports
    this.loopback.close()
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
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const answer = await this.loopback.request(connection.port, {
      method,
      path,
      headers: {
        authorization: `Bearer ${connection.gatewayCredential}`,
        ...(payload === undefined
          ? {}
          : {
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(payload)),
            }),
      },
      ...(payload === undefined ? {} : { body: payload }),
    })
    const value: unknown = answer.text === '' ? null : JSON.parse(answer.text)
    if (answer.status < 200 || answer.status > 299) {
      const detail = (value as { error?: string } | null)?.error ?? `status ${answer.status}`
      throw new Error(`the Assent runtime refused ${method} ${path}: ${detail}`)
    }
    return value
  }
}

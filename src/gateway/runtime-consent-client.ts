import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import {
  GatewayCallStateSchema,
  GatewayElicitationStateSchema,
  GatewayOpenedCallSchema,
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

/** How long a withdrawal may take: a gateway that is closing waits for its
 *  withdrawals, but not on a runtime that stopped answering. */
const WITHDRAW_TIMEOUT_MS = 5_000

/**
 * The gateway's way to ask the person: the running runtime's gateway routes,
 * found through the connection file in the data dir. It opens a call, then
 * long-polls its outcome, and withdraws it with the call's own key when the
 * agent's client cancels the call or goes away. The credential it reads can
 * do nothing else: the runtime refuses it on every route that decides.
 */
export class RuntimeConsentClient implements McpConsentPort {
  private readonly dataDir: string
  private readonly workspace: string
  private readonly withdrawals = new Set<Promise<unknown>>()

  constructor(options: { dataDir: string; workspace: string }) {
    this.dataDir = options.dataDir
    this.workspace = options.workspace
  }

  async ask(request: McpConsentRequest, signal?: AbortSignal): Promise<McpConsentTicket> {
    // Cancelled before anyone was asked (during the preview): nobody is.
    signal?.throwIfAborted()
    const body: GatewayCallRequest = { workspace: this.workspace, ...request }
    const opened = GatewayOpenedCallSchema.parse(await this.send('POST', '/v1/gateway/calls', body))
    const { cancelKey, ...first } = opened
    const callId = first.callId
    const path = `/v1/gateway/calls/${callId}`
    // Started from the abort itself, not after the wait it interrupts: a
    // gateway closing because its client left aborts every call at once,
    // and must see each withdrawal under way before it exits.
    let withdrawal: Promise<GatewayCallState> | undefined
    const onAbort = () => {
      withdrawal ??= this.withdraw(callId, cancelKey)
    }
    const next = async (): Promise<GatewayCallState> => {
      if (withdrawal === undefined) {
        try {
          return await this.call('GET', path, undefined, signal)
        } catch (error) {
          if (withdrawal === undefined) throw error
        }
      }
      // The answer says how the call ended, unless a decision was being
      // committed as the withdrawal came: then the next read has it.
      const after = await withdrawal
      return after.status === 'pending' ? this.call('GET', path) : after
    }
    let state: GatewayCallState = first
    try {
      if (signal?.aborted === true) onAbort()
      else signal?.addEventListener('abort', onAbort, { once: true })
      while (state.status === 'pending') state = await next()
    } finally {
      signal?.removeEventListener('abort', onAbort)
    }
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

  async settled(): Promise<void> {
    await Promise.allSettled([...this.withdrawals])
  }

  /** Withdraws the call's approval in the runtime; kept until answered, so
   *  `settled` can wait for it. */
  private withdraw(callId: string, cancelKey: string): Promise<GatewayCallState> {
    const sent = this.call(
      'POST',
      `/v1/gateway/calls/${callId}/cancel`,
      { cancelKey },
      AbortSignal.timeout(WITHDRAW_TIMEOUT_MS),
    )
    this.withdrawals.add(sent)
    void sent.catch(() => undefined).finally(() => this.withdrawals.delete(sent))
    return sent
  }

  private async call(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<GatewayCallState> {
    return GatewayCallStateSchema.parse(await this.send(method, path, body, signal))
  }

  /** Re-reads the connection file each time, so a restarted runtime (new
   *  port, new credential) is found without restarting the gateway. */
  private async send(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const connection = readGatewayConnectionFile(this.dataDir)
    const response = await fetch(`http://127.0.0.1:${connection.port}${path}`, {
      method,
      ...(signal === undefined ? {} : { signal }),
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

import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import {
  GatewayCallStateSchema,
  GatewayElicitationStateSchema,
  GatewayModeSchema,
  GatewayOpenedCallSchema,
  MAX_GATEWAY_RESULT_CHARS,
  type GatewayCallRequest,
  type GatewayCallState,
  type GatewayMode,
  type GatewayModeRequest,
} from '../contracts/mcp-gateway.ts'
import { GATEWAY_NONCE_HEADER, RUNTIME_PROOF_HEADER } from '../contracts/http-headers.ts'
import type { ElicitationForm } from '../runtime/mcp/mcp-elicitation.ts'
import { GatewayConnectionFileReader } from '../runtime/mcp/gateway-connection-file.ts'
import { LoopbackClient } from '../loopback/loopback-client.ts'
import type { WorkspaceIdentity } from '../contracts/room.ts'
import {
  gatewayLinkKeys,
  type GatewayLinkKeys,
  isProvenAnswer,
  newGatewayNonce,
} from '../runtime/mcp/gateway-answer-proof.ts'
import { McpRefusal, runtimeUnverified } from '../runtime/mcp/mcp-refusal.ts'
import { refuseIfWorkspaceMoved } from '../runtime/mcp/mcp-workspace.ts'
import type {
  McpConsentPort,
  McpConsentRequest,
  McpConsentTicket,
} from '../runtime/mcp/gated-mcp-call.ts'
import { GatewayModeWatch } from './gateway-mode-watch.ts'

/** How long a withdrawal, and the read that may follow it, may take: a
 *  gateway that is closing waits for them, but not on a runtime that
 *  stopped answering. */
const WITHDRAW_TIMEOUT_MS = 5_000

/**
 * The gateway's way to ask the person: the running runtime's gateway routes,
 * found through the connection file in the data folder. It opens a call, then
 * long-polls its outcome, and withdraws it with the call's own key when the
 * agent's client cancels the call or goes away. The credential it reads can
 * do nothing else: the runtime refuses it on every route that decides.
 *
 * Every request goes through `send`, which believes no answer the runtime
 * did not prove (gateway-answer-proof.ts): after a crash the connection file
 * stays and any local process may take its port, so an answer, a refusal
 * included, counts only with the proof made over this request's nonce with
 * a key that was never sent.
 *
 * What an allowed call returned is reported after the agent has its result,
 * in order, so the agent never waits for the timeline's entry; the runtime
 * recorded (durably) that the call was allowed before it ran. `drain` waits
 * for the reports still on their way, and the gateway calls it before it
 * exits, so none is lost.
 *
 * It also watches the gateway room's mode (`watchMode`, gateway-mode-watch.ts):
 * `mayRun` refuses every call in plan mode, or while the runtime cannot
 * confirm the mode, before the gateway runs anything without asking.
 */
export class RuntimeConsentClient implements McpConsentPort {
  private readonly connectionFile: GatewayConnectionFileReader
  private readonly workspaceIdentity: WorkspaceIdentity
  private readonly log: (line: string) => void
  private readonly loopback = new LoopbackClient()
  private reports: Promise<void> = Promise.resolve()
  private readonly withdrawals = new Set<Promise<unknown>>()
  private readonly mode: GatewayModeWatch
  /** The keys of the last credential read: derived again only for
   *  another credential (a restarted runtime's). */
  private keys: { credential: string; keys: GatewayLinkKeys } | undefined

  constructor(options: {
    dataDir: string
    /** The folder the gateway serves, as pinned when it started. */
    workspaceIdentity: WorkspaceIdentity
    log: (line: string) => void
  }) {
    this.connectionFile = new GatewayConnectionFileReader(options.dataDir)
    this.workspaceIdentity = options.workspaceIdentity
    this.log = options.log
    this.mode = new GatewayModeWatch({
      poll: (seen, signal) => this.pollMode(seen, signal),
      log: options.log,
    })
  }

  /** Starts watching the gateway room's mode (once): the gateway does at
   *  its start, so its first call finds the mode known; `mayRun` starts it
   *  too, and waits for its first answer. */
  watchMode(): void {
    this.mode.start()
  }

  /** Refuses the call `name` in plan mode, or while the runtime cannot
   *  confirm the room's mode (gateway-mode-watch.ts): from what the watch
   *  holds, with no round trip to the runtime. */
  mayRun(name: string): Promise<void> | void {
    return this.mode.mayRun(name)
  }

  /** In this process, where the servers run: the folder the gateway was
   *  started for must still be the folder at its path, before a server is
   *  asked anything, once the answer comes and right before the call. The
   *  runtime checks too when it hands out an allow; this closes the gap
   *  between its answer and the server's call. */
  checkWorkspace(): void {
    refuseIfWorkspaceMoved({ workspaceIdentity: this.workspaceIdentity })
  }

  async ask(request: McpConsentRequest, signal?: AbortSignal): Promise<McpConsentTicket> {
    // Cancelled before anyone was asked (during the preview): nobody is.
    signal?.throwIfAborted()
    const body: GatewayCallRequest = { workspaceIdentity: this.workspaceIdentity, ...request }
    const opened = GatewayOpenedCallSchema.parse(await this.send('POST', '/v1/gateway/calls', body))
    const { cancelKey, ...first } = opened
    const callId = first.callId
    const path = `/v1/gateway/calls/${callId}`
    // Started from the abort itself, not after the wait it interrupts: a
    // gateway closing because its client left aborts every call at once,
    // and must see each withdrawal under way before it exits.
    let withdrawal: Promise<GatewayCallState> | undefined
    // Once withdrawn, this ask is work `drain` must wait for: the answer
    // may still be "allowed" (a decision was being committed as the
    // withdrawal came), and its caller then reports that it did not run.
    let asked: () => void = () => undefined
    const onAbort = () => {
      if (withdrawal !== undefined) return
      withdrawal = this.withdraw(callId, cancelKey)
      this.track(new Promise<void>((resolve) => (asked = resolve)))
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
      // Bounded like the withdrawal: a closing gateway waits for this
      // read, but not on a runtime that stopped answering (the call then
      // fails, and nothing runs).
      const after = await withdrawal
      return after.status === 'pending'
        ? this.call('GET', path, undefined, AbortSignal.timeout(WITHDRAW_TIMEOUT_MS))
        : after
    }
    let state: GatewayCallState = first
    try {
      if (signal?.aborted === true) onAbort()
      else signal?.addEventListener('abort', onAbort, { once: true })
      while (state.status === 'pending') state = await next()
    } finally {
      signal?.removeEventListener('abort', onAbort)
      asked()
    }
    if (state.status === 'refused') {
      // Allowed, then refused by the runtime before it ran (its workspace
      // moved): nothing runs, and there is nothing to report.
      throw new McpRefusal(
        'not_allowed',
        state.reason ?? 'refused by Assent',
        state.code ?? undefined,
      )
    }
    return {
      status: state.status,
      reason: state.reason,
      ...(state.decidedBy === undefined ? {} : { decidedBy: state.decidedBy }),
      ...(state.reasonMessage === null ? {} : { reasonMessage: state.reasonMessage }),
      ...(state.grantId === null ? {} : { byGrant: true as const }),
      report: (result) => {
        const body = { ok: result.ok, output: result.output.slice(0, MAX_GATEWAY_RESULT_CHARS) }
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
      elicit: (form, over) => this.elicit(callId, form, over),
    }
  }

  /** Resolves once every withdrawal started so far has been answered, its
   *  ask has ended, and every report made so far has reached the runtime (or
   *  failed, and said so). */
  async drain(): Promise<void> {
    // A withdrawn ask hands its caller a ticket, and the caller's report
    // comes only after: each round waits for the asks and withdrawals under
    // way, lets their callers run (a turn of the event loop), and waits for
    // the reports; it ends once a round found nothing new, so no outcome is
    // lost to the connection closing.
    for (;;) {
      await Promise.allSettled([...this.withdrawals])
      await new Promise((resolve) => setImmediate(resolve))
      const reports = this.reports
      await reports
      if (this.withdrawals.size === 0 && reports === this.reports) break
    }
    this.mode.close()
    this.loopback.close()
  }

  /** A server's form during the allowed call `callId`: shown in the
   *  gateway room, its answer long-polled like a call's outcome. Once the
   *  call is over or its server cancelled the request (`over`), the form is
   *  withdrawn, so the person is not left answering what nobody waits for;
   *  the runtime also withdraws a call's forms once its result is reported. */
  private async elicit(
    callId: string,
    form: ElicitationForm,
    over: AbortSignal,
  ): Promise<ElicitResult> {
    const parse = (value: unknown) => GatewayElicitationStateSchema.parse(value)
    let state = parse(await this.send('POST', `/v1/gateway/calls/${callId}/elicitations`, form))
    const path = `/v1/gateway/elicitations/${state.requestId}`
    while (state.status === 'pending') {
      if (over.aborted) {
        const timeout = AbortSignal.timeout(WITHDRAW_TIMEOUT_MS)
        state = parse(await this.send('POST', `${path}/withdraw`, undefined, timeout))
        break
      }
      try {
        state = parse(await this.send('GET', path, undefined, over))
      } catch (error) {
        // The long poll cut short by `over` is followed by the withdrawal.
        if (!over.aborted) throw error
      }
    }
    return state.status === 'answered' ? state.outcome : { action: 'cancel' }
  }

  /** One long poll of the gateway room's mode. */
  private async pollMode(seen: string | null, signal: AbortSignal): Promise<GatewayMode> {
    const body: GatewayModeRequest = { workspaceIdentity: this.workspaceIdentity, seen }
    return GatewayModeSchema.parse(await this.send('POST', '/v1/gateway/mode', body, signal))
  }

  /** Withdraws the call's approval in the runtime; kept until answered, so
   *  `drain` can wait for it. */
  private withdraw(callId: string, cancelKey: string): Promise<GatewayCallState> {
    const sent = this.call(
      'POST',
      `/v1/gateway/calls/${callId}/cancel`,
      { cancelKey },
      AbortSignal.timeout(WITHDRAW_TIMEOUT_MS),
    )
    this.track(sent)
    return sent
  }

  /** Work `drain` waits for, kept until it settles. */
  private track(work: Promise<unknown>): void {
    this.withdrawals.add(work)
    void work.catch(() => undefined).finally(() => this.withdrawals.delete(work))
  }

  private async call(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<GatewayCallState> {
    return GatewayCallStateSchema.parse(await this.send(method, path, body, signal))
  }

  /** Checks the connection file each time, so a restarted runtime (new
   *  port, new credential) is found without restarting the gateway. The one
   *  way this client reaches the runtime: every call, poll and report. */
  private keysOf(credential: string): GatewayLinkKeys {
    if (this.keys?.credential !== credential) {
      this.keys = { credential, keys: gatewayLinkKeys(credential) }
    }
    return this.keys.keys
  }

  private async send(
    method: string,
    path: string,
    body?: unknown,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const connection = this.connectionFile.read()
    const keys = this.keysOf(connection.gatewayCredential)
    const nonce = newGatewayNonce()
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const answer = await this.loopback.request(connection.port, {
      method,
      path,
      ...(signal === undefined ? {} : { signal }),
      headers: {
        // The request key, never the credential: whoever answers on the
        // port learns what is sent, and the credential would let it prove
        // its answers as the runtime does.
        authorization: `Bearer ${keys.requestKey}`,
        [GATEWAY_NONCE_HEADER]: nonce,
        ...(payload === undefined
          ? {}
          : {
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(payload)),
            }),
      },
      ...(payload === undefined ? {} : { body: payload }),
    })
    // Checked before anything in the answer is read, its status and its
    // refusals included: an unproven answer is not the runtime's, and
    // nothing it says (least of all "allowed") is believed. The call fails
    // with the reason instead, and nothing runs.
    const proof = answer.headers[RUNTIME_PROOF_HEADER]
    const seen = { nonce, method, path, status: answer.status, body: answer.text }
    if (!isProvenAnswer(keys.responseKey, seen, typeof proof === 'string' ? proof : undefined)) {
      throw runtimeUnverified(`${method} ${path}`, connection.port)
    }
    const value: unknown = answer.text === '' ? null : JSON.parse(answer.text)
    if (answer.status < 200 || answer.status > 299) {
      const detail = (value as { error?: string } | null)?.error ?? `status ${answer.status}`
      throw new Error(`the Assent runtime refused ${method} ${path}: ${detail}`)
    }
    return value
  }
}

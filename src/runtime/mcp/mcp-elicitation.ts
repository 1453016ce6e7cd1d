import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { requestedSchemaProblem } from '../../contracts/form-schema.ts'
import { FormRequestSchema } from '../../contracts/input-request.ts'
import { formLengthProblem } from '../../contracts/mcp-gateway.ts'
import {
  RPC_INVALID_PARAMS,
  RPC_INVALID_REQUEST,
  RPC_METHOD_NOT_FOUND,
  RpcError,
} from '../domain/json-rpc-error.ts'
import type { McpElicitationHandler } from './mcp-connection.ts'

/** The methods a connection answers through `installElicitation` rather
 *  than a handler of its own. */
export const RAW_REQUEST_METHODS = ['elicitation/create'] as const

/**
 * Answers a server's `elicitation/create` on `client` with `answer`, the
 * request's params read as they arrived, and whether the request the form
 * came during is the one thing the client awaits from the server
 * (`alone`), and the signal the SDK aborts when the server cancels the
 * request (`notifications/cancelled`). The SDK's own handler parses it with the
 * SDK's schema first, and answers one outside it (a nested object, a list
 * of objects, a type no field has) with an internal error whose message is
 * the parser's dump, before Assent sees it; read here, every schema a form
 * cannot draw is refused the same way, with its reason in words
 * (`elicitationForm`). Any other request no handler serves is "method not
 * found", as the SDK would answer it.
 */
export function installElicitation(
  client: Client,
  answer: (params: unknown, alone: boolean, cancelled: AbortSignal) => Promise<ElicitResult>,
): void {
  const inFlight = requestsInFlight(client)
  client.fallbackRequestHandler = async (request, extra) => {
    if (request.method !== 'elicitation/create') {
      throw new RpcError(RPC_METHOD_NOT_FOUND, 'Method not found')
    }
    return answer(request.params, inFlight() === 1, extra.signal)
  }
}

/** The count of each client's requests not yet answered, kept once per
 *  client however often it is asked for. */
const counted = new WeakMap<Client, () => number>()

/**
 * How many requests `client` has sent its server and not had answered: a
 * tool call, but also a resource read, a prompt, a completion, a list. A
 * form says no more of which it belongs to than that it came while they
 * were in flight (over stdio nothing names the request), so with more than
 * one nobody can tell the person which it is for. Every request of the
 * SDK's client goes through its `request`, counted here.
 */
function requestsInFlight(client: Client): () => number {
  const known = counted.get(client)
  if (known !== undefined) return known
  let pending = 0
  const request = client.request.bind(client)
  client.request = ((...args: Parameters<typeof request>) => {
    pending += 1
    return request(...args).finally(() => {
      pending -= 1
    })
  }) as typeof client.request
  const count = () => pending
  counted.set(client, count)
  return count
}

/**
 * The form an elicitation asks for, or a JSON-RPC "invalid params" error
 * saying why no form can show it: a mode other than a form (URL
 * elicitation is not offered), no message (or one too long), or a `requestedSchema` outside
 * the subset the room's forms and the protected window draw
 * (form-schema.ts). The server hears the reason; nobody is asked.
 */
export function elicitationForm(params: unknown): ElicitationForm {
  const { mode, message, requestedSchema } = (params ?? {}) as Record<string, unknown>
  const refuse = (why: string) =>
    new RpcError(RPC_INVALID_PARAMS, `Assent cannot show this form to the person: ${why}`)
  if (mode !== undefined && mode !== 'form') {
    throw refuse(`only form elicitation is offered, not ${JSON.stringify(mode)}`)
  }
  const text = FormRequestSchema.shape.message.safeParse(message)
  if (!text.success) throw refuse(`message: ${text.error.issues[0]?.message}`)
  if (requestedSchema === undefined) return { message: text.data }
  const schema = withoutAnnotations(requestedSchema)
  const problem = requestedSchemaProblem(schema)
  if (problem !== undefined) throw refuse(problem)
  const form = { message: text.data, requestedSchema: schema }
  const tooLong = formLengthProblem(form)
  if (tooLong !== null) throw refuse(tooLong)
  return form
}

/** Top-level keys that describe the whole form and change nothing a form
 *  draws or sends: schema generators add them, and the SDK's parsing used
 *  to drop them. Anything else stays, to be drawn or refused. */
const FORM_ANNOTATIONS = new Set(['$schema', 'title', 'description', 'additionalProperties'])

function withoutAnnotations(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema
  return Object.fromEntries(Object.entries(schema).filter(([key]) => !FORM_ANNOTATIONS.has(key)))
}

/** What an elicitation carries to the person: its message and the schema
 *  of the form it asks them to fill. */
export interface ElicitationForm {
  message: string
  requestedSchema?: unknown
}

/** Turns an elicitation into a form for the person, for the call it came
 *  during: a form in that call's room (the runtime), or the runtime's
 *  gateway route for that call (the gateway). `ended` aborts once the call
 *  is over, or once the server cancels the request: a form still open then
 *  is withdrawn (the runtime's gateway routes also withdraw a gateway
 *  call's once its result is reported). */
export type AskPersonForForm<Call> = (
  call: Call,
  form: ElicitationForm,
  ended: AbortSignal,
) => Promise<ElicitResult>

/** A call in a room, as the runtime's own MCP calls know it. */
export interface RoomCall {
  roomId: string
  turnId: string
}

/** A call in flight, and whether its server may ask the person now
 *  (`asks`): once it runs, and only if someone answered for it; and
 *  whether one of its forms waits for the person (`asking`). */
interface Routed<Call> {
  call: Call
  asks: boolean
  asking: boolean
  ended: AbortController
}

/**
 * Routes an MCP server's elicitation (a form it asks the person to fill) to
 * the call it came during. A connection serves every call, so the call is
 * known only while exactly one call to that server is in flight, and while
 * its request is the one thing the server was sent and has not answered
 * (`alone`): with a resource read, a prompt or a list beside it, the form
 * may be the read's, which nobody let ask, shown under the call the person
 * allowed. With none or several, the request is cancelled rather than
 * shown to a person who may not be the one the server is working for. And
 * only once that call runs, as allowed: while its preview runs or the
 * person is still asked whether it may run, what they typed would reach a
 * server nobody let act (a preview asking for a password), so the request
 * is cancelled then too. A call that runs unasked (a read-only manifest's)
 * never asks: nobody saw it, so a form under it (a password, say) would
 * reach further than anything the person allowed.
 */
export class McpElicitationRouter<Call = RoomCall> {
  private readonly ask: AskPersonForForm<Call>
  private readonly onError: (error: unknown) => void
  private readonly active = new Map<string, Array<Routed<Call>>>()

  constructor(ask: AskPersonForForm<Call>, onError: (error: unknown) => void) {
    this.ask = ask
    this.onError = onError
  }

  /** Runs `run`, during which elicitations from `serverId` belong to
   *  `call`; they reach the person only after `run` called `running`
   *  with `asked` true, right before the allowed call itself (its consent
   *  port's `beforeRun`). */
  async during<T>(
    serverId: string,
    call: Call,
    run: (running: (asked: boolean) => void) => Promise<T>,
  ): Promise<T> {
    const calls = this.active.get(serverId) ?? []
    const routed: Routed<Call> = {
      call,
      asks: false,
      asking: false,
      ended: new AbortController(),
    }
    calls.push(routed)
    this.active.set(serverId, calls)
    try {
      return await run((asked) => {
        routed.asks = asked
      })
    } finally {
      // A form the call asked for is the call's: once the call is over,
      // an answer to it would reach the server for nothing the person
      // allowed, so it is withdrawn and the server told `cancel`.
      routed.ended.abort()
      calls.splice(calls.indexOf(routed), 1)
      if (calls.length === 0) this.active.delete(serverId)
    }
  }

  /** A server's elicitation, as it arrived, and whether the request it
   *  came during is the only one its server has not answered. A form no
   *  one can draw is refused with its reason (and reported), whoever would
   *  have been asked. */
  readonly handle: McpElicitationHandler = async (
    serverId: string,
    params: unknown,
    alone: boolean,
    cancelled: AbortSignal,
  ): Promise<ElicitResult> => {
    let form: ElicitationForm
    try {
      form = elicitationForm(params)
    } catch (error) {
      this.onError(error)
      throw error
    }
    const calls = this.active.get(serverId) ?? []
    const routed = calls.length === 1 && alone ? calls[0] : undefined
    if (routed === undefined || !routed.asks) return { action: 'cancel' }
    // A form the server cancelled goes as a form of an ended call does:
    // the person is not left answering a question nobody waits for, and
    // an answer typed later reaches no one.
    const over = AbortSignal.any([routed.ended.signal, cancelled])
    if (over.aborted) return { action: 'cancel' }
    // One form of a call at a time, as a server's sampling requests are
    // passed on one at a time: a server sending forms as fast as it can
    // would bury the person in questions (a password asked again and again
    // until one is answered). One sent while another waits is refused, and
    // the server hears why; nobody is asked.
    if (routed.asking) {
      const refusal = new RpcError(
        RPC_INVALID_REQUEST,
        `${serverId} already has a form waiting for the person; Assent shows a server's forms during a call one at a time`,
      )
      this.onError(refusal)
      throw refusal
    }
    routed.asking = true
    try {
      return await this.ask(routed.call, form, over)
    } catch (error) {
      // An asker that cannot reach the person: nobody is asked, and the
      // server hears that the request was not answered.
      this.onError(error)
      return { action: 'cancel' }
    } finally {
      routed.asking = false
    }
  }
}

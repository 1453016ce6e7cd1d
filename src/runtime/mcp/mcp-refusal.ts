import { message, type RuntimeMessage } from '../../contracts/runtime-message.ts'
import { deniedCallWords, deniedMcpText, type Denial } from '../policy/denial-words.ts'

/**
 * Why a gated MCP call did not run, as the agent sees it in `error.data`.
 * The codes sit in JSON-RPC's implementation-defined range (-32000 to
 * -32099), inside -32002..-32019 that Assent reserves; -32000 and -32001 are
 * left alone because SDKs already use them (connection closed, timeout) and
 * an agent must never mistake a person's "no" for a dropped connection.
 */
export const MCP_REFUSAL_CODES = {
  denied: -32002,
  expired: -32003,
  not_allowed: -32004,
} as const

export type McpRefusalReason = keyof typeof MCP_REFUSAL_CODES

export class McpRefusal extends Error {
  readonly reason: McpRefusalReason
  readonly detail: string | undefined
  /** The same, in the person's words, when the refusal has its own (a
   *  moved workspace names the folder and what happened to it). */
  readonly words: RuntimeMessage | undefined

  constructor(reason: McpRefusalReason, message: string, detail?: string, words?: RuntimeMessage) {
    super(message)
    this.reason = reason
    this.detail = detail
    this.words = words
  }

  get code(): number {
    return MCP_REFUSAL_CODES[this.reason]
  }

  /** The `error.data` an agent can act on without parsing the message. */
  get data(): { reason: McpRefusalReason; detail?: string } {
    return this.detail === undefined
      ? { reason: this.reason }
      : { reason: this.reason, detail: this.detail }
  }
}

/** The MCP call `name` was denied: by whom and why, for the calling agent
 *  in English and for the person in words, at every door (in a room, a
 *  gateway call, a resource read or a sampling request). */
export function deniedRefusal(denial: Denial, name: string): McpRefusal {
  return new McpRefusal('denied', deniedMcpText(denial, name), undefined, deniedCallWords(denial))
}

/** Plan mode (a policy that never asks) refuses the MCP call `name`
 *  before anything is consulted or run: a server's word that it only
 *  reads is not Assent's. At the gateway, also a room whose stored mode
 *  cannot be trusted until the person confirms one again. */
export function notOfferedInPlan(name: string): McpRefusal {
  return new McpRefusal(
    'not_allowed',
    `${name} did not run: the room is in plan mode (or its mode must be confirmed again in Assent), which runs no MCP call, a read-only server's included`,
    'not_offered_in_plan',
    message('call.notOfferedInPlan', { tool: name }),
  )
}

/** The gateway cannot tell its room's mode (the runtime has not answered,
 *  or stopped answering): nothing runs unasked, since the room may be in
 *  plan mode. */
export function modeUnknown(name: string, why: string): McpRefusal {
  return new McpRefusal(
    'not_allowed',
    `${name} did not run: Assent's runtime cannot confirm the gateway room's mode (${why}), and in plan mode no MCP call runs. Is Assent running?`,
    'mode_unknown',
  )
}

/** What answered the gateway on the runtime's port did not prove it is the
 *  runtime the connection file names (gateway-answer-proof.ts): most often
 *  a runtime that stopped without removing the file, its port now free for
 *  any process. Nothing it said is believed, so nothing runs. */
export function runtimeUnverified(request: string, port: number): McpRefusal {
  return new McpRefusal(
    'not_allowed',
    `Assent's runtime could not be verified: what answered ${request} on 127.0.0.1:${port} did not prove it is the runtime named in the data folder's connection file, so nothing it said was believed and nothing ran. Is Assent running?`,
    'runtime_unverified',
  )
}

import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import type { McpElicitationHandler } from './mcp-connection.ts'

/** What an elicitation carries to the person: its message and the schema
 *  of the form it asks them to fill. */
export interface ElicitationForm {
  message: string
  requestedSchema?: unknown
}

/** Turns an elicitation into a form for the person, for the call it came
 *  during: a form in that call's room (the runtime), or the runtime's
 *  gateway route for that call (the gateway). */
export type AskPersonForForm<Call> = (call: Call, form: ElicitationForm) => Promise<ElicitResult>

/** A call in a room, as the runtime's own MCP calls know it. */
export interface RoomCall {
  roomId: string
  turnId: string
}

/**
 * Routes an MCP server's elicitation (a form it asks the person to fill) to
 * the call it came during. A connection serves every call, so the call is
 * known only while exactly one call to that server is in flight; with none
 * or several, the request is cancelled rather than shown to a person who
 * may not be the one the server is working for.
 */
export class McpElicitationRouter<Call = RoomCall> {
  private readonly ask: AskPersonForForm<Call>
  private readonly onError: (error: unknown) => void
  private readonly active = new Map<string, Call[]>()

  constructor(ask: AskPersonForForm<Call>, onError: (error: unknown) => void) {
    this.ask = ask
    this.onError = onError
  }

  /** Runs `run`, during which elicitations from `serverId` belong to
   *  `call`. */
  async during<T>(serverId: string, call: Call, run: () => Promise<T>): Promise<T> {
    const calls = this.active.get(serverId) ?? []
    calls.push(call)
    this.active.set(serverId, calls)
    try {
      return await run()
    } finally {
      calls.splice(calls.indexOf(call), 1)
      if (calls.length === 0) this.active.delete(serverId)
    }
  }

  readonly handle: McpElicitationHandler = async (
    serverId: string,
    request: ElicitRequest['params'],
  ): Promise<ElicitResult> => {
    const calls = this.active.get(serverId) ?? []
    const call = calls.length === 1 ? calls[0] : undefined
    if (call === undefined) return { action: 'cancel' }
    try {
      return await this.ask(call, {
        message: request.message,
        ...('requestedSchema' in request ? { requestedSchema: request.requestedSchema } : {}),
      })
    } catch (error) {
      // A schema outside the subset the workbench can draw, or an asker
      // that cannot reach the person: nobody is asked, and the server
      // hears that the request was not answered.
      this.onError(error)
      return { action: 'cancel' }
    }
  }
}

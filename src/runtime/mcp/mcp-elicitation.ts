import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import type { McpElicitationHandler } from './mcp-connection.ts'

/** What an elicitation is turned into: a form for the person in one room
 *  (InputRequestService.requestForm). */
export type AskPersonForForm = (
  roomId: string,
  form: { message: string; requestedSchema?: unknown },
  options: { turnId: string | null },
) => Promise<ElicitResult>

interface ActiveCall {
  roomId: string
  turnId: string
}

/**
 * Routes an MCP server's elicitation (a form it asks the person to fill) to
 * the room whose tool call it came during. A connection serves every room,
 * so the room is known only while exactly one call to that server is in
 * flight; with none or several, the request is cancelled rather than shown
 * to a person who may not be the one the server is working for.
 */
export class McpElicitationRouter {
  private readonly ask: AskPersonForForm
  private readonly onError: (error: unknown) => void
  private readonly active = new Map<string, ActiveCall[]>()

  constructor(ask: AskPersonForForm, onError: (error: unknown) => void) {
    this.ask = ask
    this.onError = onError
  }

  /** Runs `call`, during which elicitations from `serverId` belong to this
   *  room and turn. */
  async during<T>(serverId: string, at: ActiveCall, call: () => Promise<T>): Promise<T> {
    const calls = this.active.get(serverId) ?? []
    calls.push(at)
    this.active.set(serverId, calls)
    try {
      return await call()
    } finally {
      calls.splice(calls.indexOf(at), 1)
      if (calls.length === 0) this.active.delete(serverId)
    }
  }

  readonly handle: McpElicitationHandler = async (
    serverId: string,
    request: ElicitRequest['params'],
  ): Promise<ElicitResult> => {
    const calls = this.active.get(serverId) ?? []
    const call = calls.length === 1 ? calls[0] : undefined
    if (!call) return { action: 'cancel' }
    try {
      return await this.ask(
        call.roomId,
        {
          message: request.message,
          ...('requestedSchema' in request ? { requestedSchema: request.requestedSchema } : {}),
        },
        { turnId: call.turnId },
      )
    } catch (error) {
      // A schema outside the subset the workbench can draw: nobody is asked,
      // and the server hears that the request was not answered.
      this.onError(error)
      return { action: 'cancel' }
    }
  }
}

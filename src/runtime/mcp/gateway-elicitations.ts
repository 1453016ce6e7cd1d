import type { FormOutcome, InputRequestRecord } from '../../contracts/input-request.ts'
import type { GatewayElicitationState } from '../../contracts/mcp-gateway.ts'
import type { ToolCallRecord } from '../../contracts/room.ts'
import { Refusal } from '../domain/refusal.ts'
import type { ElicitationForm } from './mcp-elicitation.ts'

/** Shows a form in a room and hands back the request at once, with its
 *  outcome to wait on (InputRequestService.openForm). Throws for a form the
 *  workbench cannot draw. */
export type OpenForm = (
  roomId: string,
  form: ElicitationForm,
  options: { turnId: string },
) => { request: InputRequestRecord; outcome: Promise<FormOutcome> }

interface OpenElicitation {
  outcome: FormOutcome | undefined
  settled: Promise<void>
}

/**
 * Elicitation through the MCP gateway: a server behind the gateway asks the
 * person for input during a call, and the gateway forwards the request
 * here. It becomes a form in the gateway room, in the call's turn, exactly
 * as an elicitation during an agent's own MCP call does; the gateway
 * long-polls the answer and hands it to the server.
 *
 * Only a call that was allowed and is running may ask: the gateway's
 * credential cannot put a form in front of the person for a call the
 * person never allowed, nor for one that is over. And a form the call
 * asked for goes when the call does (`ended`, once its result is
 * reported): answered later, it would reach the server for nothing the
 * person allowed.
 */
export class GatewayElicitations {
  private readonly openForm: OpenForm
  private readonly runningCall: (callId: string) => ToolCallRecord
  private readonly withdraw: (requestId: string) => void
  private readonly open = new Map<string, OpenElicitation>()
  /** The forms each running call asked for, until it ends. */
  private readonly byCall = new Map<string, Set<string>>()

  constructor(options: {
    openForm: OpenForm
    /** The gateway call, refused unless it is the gateway's and running. */
    runningCall: (callId: string) => ToolCallRecord
    /** Withdraws a form still open (InputRequestService.withdrawForm): its
     *  outcome becomes `cancel`. */
    withdraw: (requestId: string) => void
  }) {
    this.openForm = options.openForm
    this.runningCall = options.runningCall
    this.withdraw = options.withdraw
  }

  /** The call `callId` is over: every form it asked for that is still
   *  open is withdrawn, and its server hears `cancel`. */
  ended(callId: string): void {
    const forms = this.byCall.get(callId)
    this.byCall.delete(callId)
    for (const requestId of forms ?? []) this.withdraw(requestId)
  }

  ask(callId: string, form: ElicitationForm): GatewayElicitationState {
    const call = this.runningCall(callId)
    let opened: ReturnType<OpenForm>
    try {
      opened = this.openForm(call.roomId, form, { turnId: call.turnId })
    } catch (error) {
      throw new Refusal('invalid_body', `form: ${(error as Error).message}`)
    }
    const entry: OpenElicitation = { outcome: undefined, settled: Promise.resolve() }
    entry.settled = opened.outcome.then((outcome) => {
      entry.outcome = outcome
    })
    this.open.set(opened.request.id, entry)
    const forms = this.byCall.get(callId) ?? new Set<string>()
    forms.add(opened.request.id)
    this.byCall.set(callId, forms)
    void entry.settled.then(() => forms.delete(opened.request.id))
    return { requestId: opened.request.id, status: 'pending' }
  }

  /** The gateway's server cancelled its request, or the call is over: the
   *  form is withdrawn if still open (its outcome becomes `cancel`), and
   *  its outcome handed out, then forgotten. Like `state`, only for the
   *  gateway that opened the form: nobody else is given its request id. */
  async withdrawn(requestId: string): Promise<GatewayElicitationState> {
    const entry = this.open.get(requestId)
    if (!entry) throw new Refusal('unknown_request', 'unknown gateway elicitation')
    this.withdraw(requestId)
    // Settled at once: by the withdrawal, or by an answer that came first.
    await entry.settled
    this.open.delete(requestId)
    return { requestId, status: 'answered', outcome: entry.outcome ?? { action: 'cancel' } }
  }

  /** The answer once the person gave it, or `pending` after `waitMs`. An
   *  answer is handed out once, then forgotten. */
  async state(requestId: string, waitMs: number): Promise<GatewayElicitationState> {
    const entry = this.open.get(requestId)
    if (!entry) throw new Refusal('unknown_request', 'unknown gateway elicitation')
    if (entry.outcome === undefined) {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        entry.settled,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, waitMs)
        }),
      ])
      clearTimeout(timer)
    }
    if (entry.outcome === undefined) return { requestId, status: 'pending' }
    this.open.delete(requestId)
    return { requestId, status: 'answered', outcome: entry.outcome }
  }
}

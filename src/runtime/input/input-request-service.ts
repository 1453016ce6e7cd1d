import { randomUUID } from 'node:crypto'
import {
  FormRequestSchema,
  QUESTION_PHASE_MS,
  type FormOutcome,
  type FormRequest,
  type InputRequestRecord,
  type InputResponse,
  type Question,
  type QuestionsOutcome,
} from '../../contracts/input-request.ts'
import {
  applyResponse,
  createFormRequest,
  createQuestionsRequest,
  keepWaiting,
  type ResponseSource,
} from '../domain/input-request.ts'
import { Refusal } from '../domain/refusal.ts'
import type { EventBus } from '../events/event-bus.ts'
import type { InputRequestStore } from '../ports/input-request-store.ts'

export interface InputRequestServiceOptions {
  requests: InputRequestStore
  events: EventBus
  now: () => number
  /** Whether a room exists; a form for an unknown room is refused. */
  roomExists: (roomId: string) => boolean
  /** Each phase of an ordinary question's wait (see `QUESTION_PHASE_MS`). */
  questionPhaseMs?: number
  /** Where the runtime keeps each question's timer; real timers unless a
   *  test fires them itself. */
  timers?: InputTimers
  /** A timer that could not close its question (the store failed). */
  onError?: (error: unknown) => void
  newId?: () => string
}

/** Timers as a port, so tests can fire a question's deadline themselves. */
export interface InputTimers {
  set(fn: () => void, ms: number): unknown
  clear(handle: unknown): void
}

const REAL_TIMERS: InputTimers = {
  // Unref'd: a question nobody answers must not keep the process alive.
  set: (fn, ms) => setTimeout(fn, ms).unref(),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
}

type Outcome = QuestionsOutcome | FormOutcome

/**
 * The lifecycle of questions and forms: create (stored and audited, then
 * announced), wait, and resolve exactly once (answer, dismiss, auto-resolve,
 * accept, decline, cancel). The full answer goes only to the waiting asker,
 * in memory; what is stored, audited and sent as events is redacted: a
 * secret answer or a sensitive form's content is never written anywhere.
 */
export class InputRequestService {
  private readonly options: InputRequestServiceOptions
  private readonly newId: () => string
  private readonly waiters = new Map<string, (outcome: Outcome) => void>()
  /** The runtime's own timer of each ordinary question still waited for. */
  private readonly deadlines = new Map<string, unknown>()
  private readonly timers: InputTimers

  constructor(options: InputRequestServiceOptions) {
    this.options = options
    this.newId = options.newId ?? randomUUID
    this.timers = options.timers ?? REAL_TIMERS
  }

  /** The agent asks one or more questions in a turn and waits for them. */
  askQuestions(input: {
    roomId: string
    turnId: string
    questions: Question[]
    blocking: boolean
  }): { request: InputRequestRecord; outcome: Promise<QuestionsOutcome> } {
    const phase = this.options.questionPhaseMs ?? QUESTION_PHASE_MS
    const request = createQuestionsRequest({
      ...input,
      id: this.newId(),
      now: this.options.now(),
      timing: input.blocking ? null : { silentMs: phase, countdownMs: phase },
    })
    const outcome = this.open(request) as Promise<QuestionsOutcome>
    this.schedule(request)
    return { request, outcome }
  }

  /**
   * An MCP server's elicitation: shows a form in the room and resolves with
   * MCP's answer (`accept` with content valid against `requestedSchema`,
   * `decline` or `cancel`). Never rejects once the form is shown; a form the
   * runtime stops waiting for (a restart), or whose call is over (`ended`
   * aborts), is withdrawn and resolves as `cancel`.
   */
  requestForm(
    roomId: string,
    form: { message: string; requestedSchema?: unknown },
    options: { turnId?: string | null; ended?: AbortSignal } = {},
  ): Promise<FormOutcome> {
    try {
      const opened = this.openForm(roomId, form, options)
      const withdraw = () => this.withdrawForm(opened.request.id)
      if (options.ended?.aborted === true) withdraw()
      else options.ended?.addEventListener('abort', withdraw, { once: true })
      return opened.outcome
    } catch (error) {
      return Promise.reject(error as Error)
    }
  }

  /** `requestForm`, handing back the request as soon as it is shown, for an
   *  asker that waits elsewhere (the MCP gateway's long poll). Throws, with
   *  nothing shown, for a form the workbench cannot draw or an unknown
   *  room. */
  openForm(
    roomId: string,
    form: { message: string; requestedSchema?: unknown },
    options: { turnId?: string | null } = {},
  ): { request: InputRequestRecord; outcome: Promise<FormOutcome> } {
    const parsed = FormRequestSchema.safeParse(form)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const where = issue?.path.join('.') || 'form'
      throw new Error(`invalid form request: ${where}: ${issue?.message ?? ''}`)
    }
    if (!this.options.roomExists(roomId)) {
      throw new Error(`invalid form request: unknown room ${roomId}`)
    }
    const request = createFormRequest({
      id: this.newId(),
      roomId,
      turnId: options.turnId ?? null,
      form: parsed.data as FormRequest,
      now: this.options.now(),
    })
    return { request, outcome: this.open(request) as Promise<FormOutcome> }
  }

  /** Withdraws a form still waited for: it turns stale (the workbench
   *  mutes its card, and an answer is refused as `not_pending`), and its
   *  asker gets `cancel`. A form already answered or closed stays so. */
  withdrawForm(requestId: string): void {
    const request = this.options.requests.get(requestId)
    const waiter = this.waiters.get(requestId)
    if (request?.status !== 'pending' || request.kind !== 'form' || waiter === undefined) return
    this.waiters.delete(requestId)
    this.markStale(request)
    waiter({ action: 'cancel' })
  }

  list(roomId: string): InputRequestRecord[] {
    return this.options.requests.listByRoom(roomId)
  }

  get(requestId: string): InputRequestRecord {
    const request = this.options.requests.get(requestId)
    if (!request) throw new Refusal('unknown_request', 'unknown input request')
    return request
  }

  /** Applies a response from the workbench or (sensitive forms) from main's
   *  protected window. A request nobody in this instance waits for is stale. */
  respond(requestId: string, response: InputResponse, source: ResponseSource): InputRequestRecord {
    const request = this.get(requestId)
    const waiter = this.waitedFor(request)
    const result = applyResponse(request, response, source, this.options.now())
    if (!result.ok) throw new Refusal(result.code, result.message)
    this.close(result.record, response.action, source)
    this.waiters.delete(requestId)
    waiter?.(result.outcome)
    return result.record
  }

  /**
   * Starts an ordinary question's whole wait again (the person is busy with
   * its card): its new `autoResolveAt` is stored, audited and timed here,
   * and the workbench counts down to it. A blocking question and a form
   * have no timer to move.
   */
  keepWaiting(requestId: string): InputRequestRecord {
    const request = this.get(requestId)
    this.waitedFor(request)
    const at = this.options.now()
    const result = keepWaiting(request, at)
    if (!result.ok) throw new Refusal(result.code, result.message)
    this.options.requests.extendDeadline(result.record, at)
    this.schedule(result.record)
    return result.record
  }

  /** At start: requests a previous instance left pending have nobody
   *  waiting; they turn stale so the workbench mutes their cards. */
  staleOrphans(): void {
    const at = this.options.now()
    const stale = this.options.requests.markPendingStale(at)
    for (const request of stale) {
      this.options.events.emit('input.resolved', {
        request: { ...request, status: 'stale', resolvedAt: at },
      })
    }
  }

  /** Resolves every waiter as stale, e.g. when the runtime closes. */
  abandonAll(): void {
    for (const requestId of [...this.deadlines.keys()]) this.unschedule(requestId)
    for (const [requestId, waiter] of [...this.waiters]) {
      this.waiters.delete(requestId)
      const request = this.options.requests.get(requestId)
      waiter(request?.kind === 'form' ? { action: 'cancel' } : { status: 'stale' })
    }
  }

  private open(request: InputRequestRecord): Promise<Outcome> {
    this.options.requests.open(request)
    const outcome = new Promise<Outcome>((resolve) => this.waiters.set(request.id, resolve))
    this.options.events.emit('input.requested', { request })
    this.options.events.emit('timeline.updated', { roomId: request.roomId })
    return outcome
  }

  /** The waiter of a request, throwing `not_pending` for a pending request
   *  nobody in this instance waits for (it turns stale) so no answer lands
   *  where nobody will read it. */
  private waitedFor(request: InputRequestRecord): ((outcome: Outcome) => void) | undefined {
    const waiter = this.waiters.get(request.id)
    if (request.status === 'pending' && !waiter) {
      this.markStale(request)
      throw new Refusal('not_pending', 'the request is no longer waiting (stale)')
    }
    return waiter
  }

  /** (Re)arms the runtime's timer of a question that has a deadline. */
  private schedule(request: InputRequestRecord): void {
    this.unschedule(request.id)
    if (request.autoResolveAt === null) return
    const delay = Math.max(0, request.autoResolveAt - this.options.now())
    this.deadlines.set(
      request.id,
      this.timers.set(() => this.autoResolve(request.id), delay),
    )
  }

  private unschedule(requestId: string): void {
    const handle = this.deadlines.get(requestId)
    if (handle === undefined) return
    this.deadlines.delete(requestId)
    this.timers.clear(handle)
  }

  /**
   * The question's deadline came and nobody answered: the agent gets an
   * empty answer, exactly as when the workbench sent `auto-resolve`, and
   * the audit event says the runtime closed it. A timer that fires before
   * the stored deadline (it moved meanwhile) is armed again; one for a
   * request already closed does nothing.
   */
  private autoResolve(requestId: string): void {
    this.deadlines.delete(requestId)
    const request = this.options.requests.get(requestId)
    if (!request || request.status !== 'pending' || !this.waiters.has(requestId)) return
    if (request.autoResolveAt !== null && this.options.now() < request.autoResolveAt) {
      this.schedule(request)
      return
    }
    try {
      this.respond(requestId, { action: 'auto-resolve' }, 'runtime')
    } catch (error) {
      // Answered or closed in the same instant: whoever came first stands.
      if (error instanceof Refusal) return
      this.options.onError?.(error)
    }
  }

  private close(
    record: InputRequestRecord,
    action: InputResponse['action'],
    by: ResponseSource,
  ): void {
    this.unschedule(record.id)
    this.options.requests.close(record, action, record.resolvedAt ?? this.options.now(), by)
    this.options.events.emit('input.resolved', { request: record })
    this.options.events.emit('timeline.updated', { roomId: record.roomId })
  }

  private markStale(request: InputRequestRecord): void {
    const record = { ...request, status: 'stale' as const, resolvedAt: this.options.now() }
    this.close(record, 'cancel', 'runtime')
  }
}

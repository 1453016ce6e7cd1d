import { randomBytes as nodeRandomBytes, randomUUID } from 'node:crypto'
import {
  BUTTON_ENABLE_DELAY_MS,
  ConsentAnswerSchema,
  type ConsentAnswer,
  type ConsentView,
  type Language,
  type Theme,
} from '../../common/consent-view.ts'
import { workbenchError, type WorkbenchError } from '../../common/workbench-error.ts'
import {
  applyAnswer,
  type ConsentOutcome,
  type Prompt,
  type PromptBase,
  type PromptKit,
} from './consent-prompts.ts'
import { activeLongEnough, widens } from './decision-timing.ts'
import { reviewApproverWebhook } from './approver-webhook-review.ts'
import {
  ModeChangeArgsSchema,
  ReviewApprovalArgsSchema,
  answerFits,
  parseArgs,
  parseWebhookArgs,
  subjectOf,
} from './consent-prompt-rules.ts'
import { reviewApprovalRequest, reviewModeChange, reviewSensitiveForm } from './consent-reviews.ts'
import type { ProtectedWindow, ProtectedWindowFactory } from './host-port.ts'
import { OpenSensitiveFormArgsSchema, submitProtectedForm } from './sensitive-form.ts'
import type { RuntimeClient } from './runtime-client.ts'
import type { RuntimeConnection } from './runtime-supervisor.ts'
import { WorkbenchRefusal, workbenchErrorOf } from './workbench-refusal.ts'

export const CONSENT_WINDOW_SIZE = { width: 560, height: 680 } as const
export {
  ApproverWebhookArgsSchema,
  ModeChangeArgsSchema,
  ReviewApprovalArgsSchema,
} from './consent-prompt-rules.ts'

export type { ConsentOutcome } from './consent-prompts.ts'

/** One review per subject: reserved before the first await, so a double
 *  click or a second card opens nothing new and shares the first outcome. */
interface SubjectEntry {
  outcome: Promise<ConsentOutcome>
  window?: ProtectedWindow
  /** Whether its window may take focus (`mayTakeFocus` at the request). */
  activate: boolean
}

export interface ConsentControllerOptions {
  client: RuntimeClient
  connection: () => RuntimeConnection | undefined
  windows: ProtectedWindowFactory
  preferences: () => { lang: Language; theme: Theme }
  /** The wall clock (`Date.now`): approvals expire by it. */
  now?: () => number
  /** A monotonic clock (`performance.now`) for the enable delay: a wall
   *  clock set forward (NTP, the person, a suspend) must not shorten it. */
  monotonicNow?: () => number
  /** Whether a review asked for now may take focus: the host saw a
   *  trusted press in the workbench just before (input-recency.ts). A
   *  review asked for without one is shown without focus and asks for
   *  attention, so a compromised workbench cannot move someone's typing
   *  into it. Without it, every review takes focus. */
  mayTakeFocus?: () => boolean
  randomBytes?: (size: number) => Buffer
  enableDelayMs?: number
  onDiagnostic?: (message: string) => void
}

/**
 * Opens the protected window for one subject at a time, waits for the
 * person's decision and only then mints a consent token bound to exactly
 * what the window displayed. Closing, cancelling, expiry and a runtime
 * restart all end the prompt with nothing minted.
 */
export class ConsentController {
  private readonly options: ConsentControllerOptions
  private readonly now: () => number
  private readonly monotonicNow: () => number
  private readonly prompts = new Map<string, Prompt>()
  private readonly bySubject = new Map<string, SubjectEntry>()

  constructor(options: ConsentControllerOptions) {
    this.options = options
    this.now = options.now ?? Date.now
    this.monotonicNow = options.monotonicNow ?? (() => performance.now())
  }

  private get enableDelayMs(): number {
    return this.options.enableDelayMs ?? BUTTON_ENABLE_DELAY_MS
  }

  /** `assentGui.reviewApproval(approvalId)`: both card buttons end here. */
  async reviewApproval(args: unknown): Promise<ConsentOutcome> {
    const [approvalId] = parseArgs(ReviewApprovalArgsSchema, args, 'reviewApproval(approvalId)')
    return this.once(`approval:${approvalId}`, async (entry) =>
      reviewApprovalRequest(this.kit(entry), approvalId),
    )
  }

  /** `assentGui.requestModeChange(roomId, mode)`: widening or narrowing a
   *  room goes through the protected window, except entering plan mode,
   *  which narrows from every mode and is applied at once. */
  async requestModeChange(args: unknown): Promise<ConsentOutcome> {
    const [roomId, mode] = parseArgs(ModeChangeArgsSchema, args, 'requestModeChange(roomId, mode)')
    return this.once(`room:${roomId}`, async (entry) =>
      reviewModeChange(this.kit(entry), roomId, mode),
    )
  }

  /** `assentGui.requestApproverWebhook(roomId, url | null)`: setting or
   *  removing a room's approver webhook, confirmed in the protected window
   *  (approver-webhook-review.ts). */
  async requestApproverWebhook(args: unknown): Promise<ConsentOutcome> {
    const [roomId, url] = parseWebhookArgs(args)
    return this.once(`webhook:${roomId}`, async (entry) =>
      reviewApproverWebhook(this.kit(entry), roomId, url),
    )
  }

  /** `assentGui.openSensitiveForm(requestId)`: a form asking for a password
   *  or a secret is filled in here, never in the workbench. */
  async openSensitiveForm(args: unknown): Promise<ConsentOutcome> {
    const [requestId] = parseArgs(OpenSensitiveFormArgsSchema, args, 'openSensitiveForm(requestId)')
    return this.once(`form:${requestId}`, async (entry) =>
      reviewSensitiveForm(this.kit(entry), requestId),
    )
  }

  /** What a subject's review needs to open its window, bound to the runtime
   *  instance running now: a review never opens while the runtime is down,
   *  and its prompt is decided only for that instance. */
  private kit(entry: SubjectEntry): PromptKit {
    const connection = this.requireConnection()
    return {
      client: this.options.client,
      now: this.now,
      roomLabel: (roomId) => this.roomLabel(roomId),
      preferences: () => this.options.preferences(),
      enableDelayMs: this.enableDelayMs,
      open: (build, view) => this.openPrompt(entry, connection, build, view),
    }
  }

  /**
   * Called by a host after it validated that the message came from this
   * window's main frame on the consent page. Everything else is checked
   * here, and any doubt ends in doing nothing.
   */
  handleDecision(
    promptId: string,
    answer: unknown,
    window: ProtectedWindow,
    values?: unknown,
  ): void {
    const prompt = this.prompts.get(promptId)
    if (!prompt || prompt.window !== window || prompt.used || prompt.finished) {
      this.diagnostic(
        `ignored a decision for prompt ${promptId}: not open, not this window, or used`,
      )
      return
    }
    const parsed = ConsentAnswerSchema.safeParse(answer)
    if (!parsed.success || !answerFits(prompt, parsed.data)) {
      this.refuse(window, `ignored an answer that does not fit prompt ${promptId}`)
      return
    }
    if (parsed.data !== 'cancel' && (!window.isVisible() || !window.isFocused())) {
      this.refuse(window, `ignored a decision from a hidden or unfocused window (${promptId})`)
      return
    }
    if (
      widens(subjectOf(prompt), parsed.data) &&
      !activeLongEnough(prompt.activeSinceMs, this.monotonicNow(), this.enableDelayMs)
    ) {
      // Sooner than the person could have seen the window for the whole
      // delay: the preload's own timer said otherwise, so it is not trusted.
      this.refuse(window, `ignored ${parsed.data} before the enable delay had passed (${promptId})`)
      return
    }
    prompt.used = true
    if (prompt.kind === 'form') prompt.values = values
    if (parsed.data === 'cancel') {
      this.end(prompt, { status: 'cancelled' })
      return
    }
    void this.apply(prompt, parsed.data).then(
      (outcome) => this.end(prompt, outcome),
      (error: unknown) => this.end(prompt, { status: 'failed', error: workbenchErrorOf(error) }),
    )
  }

  /** Closes every open prompt, e.g. when the runtime restarted: their tokens
   *  would be bound to an instance that no longer exists. */
  closeAll(reason: WorkbenchError): void {
    for (const prompt of [...this.prompts.values()]) this.end(prompt, { status: 'closed', reason })
  }

  /** Closes an approval's open review without a decision, e.g. after the
   *  person rejected it by sending a message instead. */
  closeApprovalReview(approvalId: string, reason: WorkbenchError): void {
    for (const prompt of [...this.prompts.values()]) {
      if (prompt.kind === 'approval' && prompt.approvalId === approvalId && !prompt.used) {
        this.end(prompt, { status: 'closed', reason })
      }
    }
  }

  /** An approval that expired early (withdrawn: whoever asked stopped
   *  waiting) closes its open window as its timer would have; nothing is
   *  minted for it. A window already applying a decision is left to it. */
  approvalExpired(approvalId: string): void {
    for (const prompt of [...this.prompts.values()]) {
      if (prompt.kind === 'approval' && prompt.approvalId === approvalId && !prompt.used) {
        this.end(prompt, { status: 'expired' })
      }
    }
  }

  get openPromptCount(): number {
    return this.prompts.size
  }

  private async openPrompt(
    entry: SubjectEntry,
    connection: RuntimeConnection,
    build: (base: PromptBase) => Prompt,
    view: (promptId: string) => ConsentView,
  ): Promise<ConsentOutcome> {
    const promptId = randomUUID()
    let finish: (outcome: ConsentOutcome) => void = () => undefined
    const outcome = new Promise<ConsentOutcome>((resolve) => {
      finish = resolve
    })
    const window = await this.options.windows.open(promptId, CONSENT_WINDOW_SIZE)
    entry.window = window
    const prompt = build({
      promptId,
      window,
      instanceId: connection.instanceId,
      used: false,
      finished: false,
      outcome,
      finish,
    })
    prompt.activate = entry.activate
    this.prompts.set(promptId, prompt)
    // Closing the window is a cancel, unless a decision is already being
    // applied: then the outcome is that decision's.
    window.onClosed(() => {
      if (!prompt.used) this.end(prompt, { status: 'cancelled' })
    })
    if (prompt.kind === 'approval') {
      // An approval that expires while its window is open closes the window;
      // nothing is minted for it afterwards.
      prompt.timer = setTimeout(
        () => this.end(prompt, { status: 'expired' }),
        Math.max(0, prompt.expiresAt - this.now()),
      )
    }
    window.onFocused?.(() => {
      if (prompt.activeSinceMs !== undefined) prompt.activeSinceMs = this.monotonicNow()
    })
    const shown = view(promptId)
    window.onPageReset?.((onConsentPage) => {
      if (prompt.finished || prompt.used) return
      // The page came back empty (a reload): it shows the same prompt again,
      // timed afresh. Anywhere else, the prompt cannot be decided: close it
      // and say why, rather than leave a blank window the card points to.
      if (!onConsentPage) {
        this.end(prompt, { status: 'closed', reason: WINDOW_LEFT_PAGE })
        return
      }
      void this.present(prompt, shown)
    })
    await this.present(prompt, shown)
    return outcome
  }

  /**
   * Shows the view, focusing the window only if the review may take focus.
   * The enable delay main enforces runs from when the page reported it had
   * drawn the view, which a host that can tell reports (the window stays
   * hidden until then, so the person cannot have seen it sooner); from
   * just before the view was sent otherwise. Either way the page cannot
   * start its own delay any sooner (it starts once the window is shown and
   * focused), so main's deadline is never later than the page's, and a
   * person who clicks the moment Allow enables is never refused. A drawn
   * time before the send is not believed.
   */
  private async present(prompt: Prompt, view: ConsentView): Promise<void> {
    prompt.activeSinceMs = undefined
    const activate = prompt.activate ?? true
    const sentAtMs = this.monotonicNow()
    try {
      const shown = await prompt.window.show(view, { activate })
      if (activate) prompt.window.focus()
      if (!prompt.finished) prompt.activeSinceMs = Math.max(sentAtMs, shown?.drawnAtMs ?? sentAtMs)
    } catch (error) {
      this.end(prompt, {
        status: 'failed',
        error: workbenchError('window_not_shown', (error as Error).message),
      })
    }
  }

  private apply(prompt: Prompt, answer: ConsentAnswer): Promise<ConsentOutcome> {
    return applyAnswer(prompt, answer, {
      client: this.options.client,
      connection: this.options.connection(),
      now: this.now(),
      randomBytes: this.options.randomBytes ?? nodeRandomBytes,
    })
  }

  private end(prompt: Prompt, outcome: ConsentOutcome): void {
    if (prompt.finished) return
    prompt.finished = true
    if (prompt.timer) clearTimeout(prompt.timer)
    this.prompts.delete(prompt.promptId)
    prompt.window.close()
    // Closing a form is its `cancel` in MCP's terms; the asker hears it.
    if (prompt.kind === 'form' && outcome.status === 'cancelled') {
      void submitProtectedForm(this.options.client, prompt.requestId, prompt.schema, 'cancel', {})
        .then((result) => {
          if (result.status === 'failed') this.diagnostic(`form cancel: ${result.error.detail}`)
        })
        .catch((error: unknown) => this.diagnostic(`form cancel: ${(error as Error).message}`))
    }
    prompt.finish(outcome)
  }

  private once(
    subjectKey: string,
    open: (entry: SubjectEntry) => Promise<ConsentOutcome>,
  ): Promise<ConsentOutcome> {
    // Asked now, before any await: the press must precede the request.
    const activate = this.options.mayTakeFocus?.() ?? true
    const existing = this.bySubject.get(subjectKey)
    if (existing) {
      if (activate) existing.window?.focus()
      else existing.window?.requestAttention?.()
      return existing.outcome
    }
    const entry: SubjectEntry = { activate, outcome: Promise.resolve({ status: 'cancelled' }) }
    this.bySubject.set(subjectKey, entry)
    entry.outcome = open(entry).finally(() => {
      if (this.bySubject.get(subjectKey) === entry) this.bySubject.delete(subjectKey)
    })
    return entry.outcome
  }

  private requireConnection(): RuntimeConnection {
    const connection = this.options.connection()
    if (!connection) throw new WorkbenchRefusal('runtime_down', 'the runtime is not running')
    return connection
  }

  /** The room's title, as the window shows it. A room the runtime cannot
   *  answer for (or answers for in a shape main cannot read) opens no window. */
  private async roomLabel(roomId: string): Promise<string> {
    return (await this.options.client.getRoom(roomId)).title
  }

  /** A decision refused on an open prompt: the page disabled its buttons
   *  when it sent it, so it is told, and re-arms them; otherwise the
   *  window would sit there with nothing left to press. */
  private refuse(window: ProtectedWindow, message: string): void {
    this.diagnostic(message)
    window.decisionRefused?.()
  }

  private diagnostic(message: string): void {
    this.options.onDiagnostic?.(message)
  }
}

/** The reason a prompt closes when its window left the consent page. */
export const WINDOW_LEFT_PAGE = workbenchError(
  'window_left_page',
  'the protected window left its page, so it was closed',
)

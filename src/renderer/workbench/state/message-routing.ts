import type { ApprovalSummary } from '../../../contracts/approval.ts'
import type { InputRequestRecord, QuestionAnswer } from '../../../contracts/input-request.ts'
import type { QuestionDrafts } from '../components/question-card.tsx'
import { inputGone } from '../gui/error-text.ts'
import { WorkbenchCallError, type WorkbenchApi } from '../gui/workbench-api.ts'
import { inputKey, type InputCard } from './input-cards.ts'

/** An identical text sent as a message again within this long is dropped:
 *  it is a double send, not a new message. */
export const DUPLICATE_MESSAGE_WINDOW_MS = 5_000

export interface MessageRoutingDeps {
  api: WorkbenchApi
  roomId: string
  newId: () => string
  /** The open question the composer answers, if any (the oldest). */
  openQuestion: () => InputCard | undefined
  draftsOf: (key: string) => QuestionDrafts | undefined
  /** Approval cards still open in this room. */
  openApprovals: () => readonly ApprovalSummary[]
  onInputAnswered: (request: InputRequestRecord) => void
  onInputStale: (key: string) => void
  onApprovalRejected: (approvalId: string) => void
  afterMessage: () => void
  now?: () => number
}

/**
 * What the composer's text becomes:
 * - while a question is open, its answer (in the free-text field of each
 *   question not answered yet, keeping options already chosen on the card);
 *   if the runtime no longer waits for it, a normal message, so nothing the
 *   person typed is lost;
 * - while approvals are open, first their rejection (main mints a deny and
 *   nothing else), then a normal message;
 * - otherwise a normal message, unless it repeats the last one within
 *   `DUPLICATE_MESSAGE_WINDOW_MS`.
 * `routeAsMessage` skips the question: the person chose to send a message
 * instead of answering it.
 */
export function createMessageRouter(deps: MessageRoutingDeps) {
  const now = deps.now ?? Date.now
  let last: { text: string; at: number } | undefined
  let unsent: { text: string; clientRequestId: string } | undefined

  const sendMessage = async (text: string) => {
    const at = now()
    if (last && last.text === text && at - last.at < DUPLICATE_MESSAGE_WINDOW_MS) return
    last = { text, at }
    // A resend of the same text after a failure reuses its id, so the
    // runtime treats it as the same message if the first one did arrive.
    const clientRequestId = unsent?.text === text ? unsent.clientRequestId : deps.newId()
    unsent = { text, clientRequestId }
    try {
      await deps.api.sendMessage(deps.roomId, { clientRequestId, text })
    } catch (failure) {
      last = undefined
      throw failure
    }
    unsent = undefined
    deps.afterMessage()
  }

  const answerQuestion = async (card: InputCard, text: string): Promise<boolean> => {
    const key = inputKey(card.request)
    const drafts = deps.draftsOf(key) ?? {}
    const answers = card.request.questions.map((question) => {
      const draft = drafts[question.id]
      const typed = draft?.text.trim() ?? ''
      return {
        questionId: question.id,
        ...(draft?.option === undefined ? {} : { option: draft.option }),
        text: typed === '' ? text : typed,
      }
    })
    try {
      deps.onInputAnswered(
        await deps.api.respondToInput(card.request.id, { action: 'answer', answers }),
      )
      return true
    } catch (failure) {
      if (inputGone(failure)) {
        deps.onInputStale(key)
        return false
      }
      throw failure
    }
  }

  /** A message: the open approvals are rejected first, then it is sent. */
  const routeAsMessage = async (text: string): Promise<void> => {
    for (const approval of deps.openApprovals()) {
      const outcome = await deps.api.rejectApprovalForMessage(approval.id)
      if (outcome.status === 'failed') {
        throw new WorkbenchCallError(outcome.error.detail, undefined, outcome.error.code)
      }
      deps.onApprovalRejected(approval.id)
    }
    await sendMessage(text)
  }

  const route = async (text: string): Promise<void> => {
    const question = deps.openQuestion()
    if (question && (await answerQuestion(question, text))) return
    // What was typed for a secret question must not land in the thread,
    // which is history, because the question closed meanwhile.
    if (question?.request.sensitive) throw new SecretNotSentError()
    await routeAsMessage(text)
  }
  return { route, routeAsMessage, sendMessage }
}

/** The composer keeps the text and shows this; nothing was sent. */
export class SecretNotSentError extends Error {
  constructor() {
    super('the question closed; an answer to a secret question is never sent as a message')
    this.name = 'SecretNotSentError'
  }
}

/**
 * An answer given on a card whose request the runtime already closed, as a
 * message, so it is not lost. A secret answer never becomes a message: the
 * thread is history, which must never hold it.
 */
export function answerAsMessage(
  request: InputRequestRecord,
  answers: readonly QuestionAnswer[],
): string | undefined {
  const lines: string[] = []
  for (const answer of answers) {
    const question = request.questions.find((candidate) => candidate.id === answer.questionId)
    if (!question || question.secret) continue
    const option = answer.option === undefined ? undefined : question.options[answer.option]?.label
    const parts = [option, answer.text?.trim()].filter((part) => part !== undefined && part !== '')
    if (parts.length > 0) lines.push(`${question.title}: ${parts.join(' — ')}`)
  }
  return lines.length > 0 ? lines.join('\n') : undefined
}

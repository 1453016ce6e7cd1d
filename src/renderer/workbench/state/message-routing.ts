import type { ApprovalSummary } from '../../../runtime/contracts/approval.ts'
import type { InputRequestRecord } from '../../../runtime/contracts/input-request.ts'
import type { QuestionDrafts } from '../components/question-card.tsx'
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
      if (
        failure instanceof WorkbenchCallError &&
        (failure.status === 409 || failure.status === 404)
      ) {
        deps.onInputStale(key)
        return false
      }
      throw failure
    }
  }

  return async function route(text: string): Promise<void> {
    const question = deps.openQuestion()
    if (question && (await answerQuestion(question, text))) return
    for (const approval of deps.openApprovals()) {
      const outcome = await deps.api.rejectApprovalForMessage(approval.id)
      if (outcome.status === 'failed') throw new Error(outcome.error)
      deps.onApprovalRejected(approval.id)
    }
    await sendMessage(text)
  }
}

import { ConsentDecisionMessageSchema, type ConsentAnswer } from '../../common/consent-view.ts'
import { decisionHasRecentInput } from '../core/input-recency.ts'
import { validateSender, type ExpectedSender } from '../core/sender-validator.ts'

export interface DecisionIntakeInput {
  /** The IPC event, read by the sender validator. */
  event: unknown
  /** The payload, untrusted until parsed. */
  message: unknown
  /** The prompt this window was opened for. */
  promptId: string
  expected: ExpectedSender
  /** Last primary mouse press or release, or Space key, main saw in this
   *  window (input-recency.ts). */
  lastInputAtMs: number | undefined
  nowMs: number
}

export type DecisionIntake =
  | { ok: true; answer: ConsentAnswer; values?: Record<string, unknown> }
  | { ok: false; reason: string }

/**
 * Everything the Electron host checks before it hands a decision to the
 * consent controller, in order: the sender (before the payload is even
 * parsed), the message shape, that it names this window's prompt, and, for
 * an answer that widens anything, a real primary mouse press or Space key
 * in this window just before. The controller then checks the prompt is
 * open, unused, visible and focused.
 */
export function takeDecision(input: DecisionIntakeInput): DecisionIntake {
  const sender = validateSender({ event: input.event, expected: input.expected })
  if (!sender.ok) return { ok: false, reason: `sender refused: ${sender.reason}` }
  const parsed = ConsentDecisionMessageSchema.safeParse(input.message)
  if (!parsed.success) return { ok: false, reason: 'malformed decision message' }
  if (parsed.data.promptId !== input.promptId) {
    return { ok: false, reason: 'the decision names another prompt' }
  }
  const recent = decisionHasRecentInput({
    answer: parsed.data.answer,
    lastInputAtMs: input.lastInputAtMs,
    decisionAtMs: input.nowMs,
  })
  if (!recent) {
    return {
      ok: false,
      reason: 'no mouse press, touch tap or Space key in this window just before the decision',
    }
  }
  return {
    ok: true,
    answer: parsed.data.answer,
    ...(parsed.data.values ? { values: parsed.data.values } : {}),
  }
}

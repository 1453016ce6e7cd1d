import type { ConsentAnswer } from '../../common/consent-view.ts'
import type { PermissionMode } from '../../contracts/policy-axes.ts'

/**
 * Main's own half of the enable delay (docs/architecture.md §3): the
 * preload keeps the buttons disabled until its window has been shown and
 * focused for the delay, but a preload is code in a renderer. Main times
 * the same delay on a monotonic clock from what it saw itself (the view
 * drawn, or sent) and from the window's focus events, and refuses an answer
 * that widens anything if it arrives sooner, whatever the preload says.
 */

/** How far each mode lets the agent go without asking. */
const MODE_REACH: Readonly<Record<PermissionMode, number>> = {
  plan: -1,
  'ask-for-approval': 0,
  'approve-for-me': 1,
  'full-access': 2,
}

/** What a prompt is about, for deciding which answers widen. */
export type PromptSubject =
  | { kind: 'approval' }
  /** `vouches`: confirming also accepts a replaced workspace folder or
   *  seals a room's stored settings again (ModePrompt). */
  | { kind: 'mode-change'; from: PermissionMode; to: PermissionMode; vouches: boolean }
  | { kind: 'form' }
  /** Setting (`sets`) or removing a room's approver webhook. */
  | { kind: 'approver-webhook'; sets: boolean }
  | { kind: 'webhook-secret' }

/**
 * Whether `answer` widens what may happen: allowing an action, moving a
 * room to a mode that reaches as far or further, confirming any mode for a
 * room whose workspace folder was replaced or whose stored settings failed
 * their check, or setting an approver webhook. A confirm that vouches so
 * counts whatever the modes: the runtime accepts the new folder, or gives
 * the room back its grants and webhook, even on a narrowing. Deny, cancel,
 * a plain narrowing, removing a webhook and a form's answers do not widen,
 * and must stay quick to give.
 */
export function widens(subject: PromptSubject, answer: ConsentAnswer): boolean {
  if (subject.kind === 'approval') {
    return answer === 'allow-once' || answer === 'allow-always' || answer === 'allow-always-server'
  }
  if (subject.kind === 'mode-change') {
    return (
      answer === 'confirm' &&
      (subject.vouches || MODE_REACH[subject.to] >= MODE_REACH[subject.from])
    )
  }
  // Setting a webhook hands the person's decisions to someone else;
  // removing one gives them back.
  if (subject.kind === 'approver-webhook') return answer === 'confirm' && subject.sets
  return false
}

/**
 * Whether the window has been shown and focused for at least `delayMs`
 * by `nowMs`. `activeSinceMs` is undefined until main has shown and focused
 * it, and again while it is being shown anew: no answer can be in time
 * then. A clock that runs backwards (`nowMs` before `activeSinceMs`) is
 * not in time either.
 */
export function activeLongEnough(
  activeSinceMs: number | undefined,
  nowMs: number,
  delayMs: number,
): boolean {
  if (activeSinceMs === undefined) return false
  return nowMs - activeSinceMs >= delayMs
}

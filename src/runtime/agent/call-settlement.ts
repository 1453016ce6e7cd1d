import type { AllowFallen, Allower } from '../policy/allower-stands.ts'
import type { ApprovalPolicy } from '../../contracts/policy-axes.ts'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import type { FileTarget } from '../../contracts/file-target.ts'
import { englishText, message, type RuntimeMessage } from '../../contracts/runtime-message.ts'
import type { ToolCallRecord } from '../../contracts/room.ts'
import { refusedAccessWords } from '../policy/access-words.ts'
import { deniedCallText, deniedCallWords } from '../policy/denial-words.ts'
import { describeTarget, observeTarget, sameTarget } from '../tools/file-target.ts'
import type { ToolDefinition, ToolResult } from '../tools/tool-types.ts'
import type { CallAllowance, ConversationStore } from '../ports/conversation-store.ts'
import type { EventBus } from '../events/event-bus.ts'
import type { ActionOutcome, AgentToolCall } from './agent-model.ts'

/*
 * How a tool call ends: the record the runner settles it with, and the
 * refusals and words it carries (for the model in English, for the person
 * as a runtime message).
 */

export type Settled = {
  status: ToolCallRecord['status']
  result: ToolResult
  /** Allowed, then refused when it was about to run: audited. */
  refusedAfterConsent?: boolean
  /** The approval that allowed the call, where one did. */
  approvalId?: string | null
}

/** How a call that may run is run: what let it (for the audit event), how
 *  far a read may reach, and the approval that allowed it, if one did. */
export interface Execution {
  allowedBy: CallAllowance | null
  /** Who or what allowed it, judged again right before it runs. */
  allower: Allower
  readReach: 'workspace' | 'any'
  approval?: ApprovalRecord
}

/** Codes of an allowed call refused before it acted because what it would
 *  act on is no longer what was shown or checked: each is audited as
 *  `execution_refused`. The MCP ones come from a gated MCP call. */
export const AFTER_CONSENT_CODES: ReadonlySet<string> = new Set([
  'target_changed',
  'definition_changed',
  'preview_changed',
  'containment_changed',
  'workspace_changed',
])

export function refusedAfterConsent(result: ToolResult, approvalId: string | null): Settled {
  return { status: 'refused', result, refusedAfterConsent: true, approvalId }
}

/** A refusal when the file at `realPath` is no longer `bound`, or null. */
export async function targetChange(
  bound: FileTarget,
  realPath: string | undefined,
): Promise<ToolResult | null> {
  if (realPath === undefined || realPath !== bound.path) {
    return refusal(
      `The path now resolves to ${realPath ?? 'nothing'}, not ${bound.path} as approved; it did not run.`,
      'target_changed',
    )
  }
  try {
    const readContent = bound.exists && bound.contentSha256 !== undefined
    const { target } = await observeTarget(realPath, { readContent })
    if (sameTarget(bound, target)) return null
    return refusal(
      `${realPath} is now ${describeTarget(target)}; the person approved acting on ${describeTarget(bound)}. It did not run.`,
      'target_changed',
    )
  } catch (error) {
    return refusal(
      `${realPath} could not be checked against what was approved: ${(error as Error).message}; it did not run.`,
      'target_changed',
    )
  }
}

/** A call that ended before its tool ran, said in words (its English is
 *  the output the model reads). */
export function said(
  status: ToolCallRecord['status'],
  words: RuntimeMessage,
  code: string,
): Settled {
  return { status, result: { ...refusal(englishText(words), code), message: words } }
}

/** The sandbox's refusal: its reason (English, naming the resolved path)
 *  for the model, and the same in words with the path as asked for. */
export function refusedAccess(
  access: { code: string; reason: string; message?: RuntimeMessage },
  tool: ToolDefinition<unknown>,
  args: unknown,
): Settled {
  const words = refusedAccessWords(access, tool.effect, tool.targetPaths(args))
  return { status: 'refused', result: { ...refusal(access.reason, access.code), message: words } }
}

/** A decided call that was not allowed: denied, or expired. */
export function notAllowed(decided: ApprovalRecord): Settled {
  if (decided.status === 'expired') {
    // Withdrawn for a reason (its stored action changed), the reason is
    // what the agent hears, as at every other door; otherwise nobody
    // answered in time.
    return said('expired', decided.reasonMessage ?? message('call.expired'), 'approval_expired')
  }
  const result = { ...refusal(deniedText(decided), 'approval_denied') }
  return { status: 'denied', result: { ...result, message: deniedMessage(decided) } }
}

/** The approval policy's refusal of a call it never lets run. */
export function deniedByPolicy(
  policy: ApprovalPolicy,
  tool: string,
  privateRead: string | null,
): Settled {
  const why = privateRead === null ? '' : ` (${privateRead})`
  const output = `Denied by the room's approval policy (${policy}): it does not allow ${tool}${why}.`
  return {
    status: 'denied',
    result: {
      ...refusal(output, 'policy_denied'),
      message: message('call.policyDenied', { tool }),
    },
  }
}

/** An allowed call refused right before it ran, since what allowed it no
 *  longer stands (policy/allower-stands.ts): nothing ran. */
export function refusedAsFallen(fallen: AllowFallen, approvalId: string | null): Settled {
  const result = { ...refusal(fallen.reason, fallen.code), message: fallen.message }
  return { status: 'refused', result, approvalId }
}

export function refusal(output: string, code: string): ToolResult {
  return { ok: false, output, code }
}

/** Names who said no (the person, the automatic review, the approver
 *  webhook or the room's policy), so the agent, and the person reading its
 *  reply, can tell another's refusal from the person's own. */
export function deniedText(approval: ApprovalRecord): string {
  return deniedCallText(approval)
}

/** `deniedText` in words: a decider's reason as its own code where it
 *  has one, else as its words, shown as they are. */
export function deniedMessage(approval: ApprovalRecord): RuntimeMessage {
  return deniedCallWords(approval)
}

export function toRecordResult(result: ToolResult): NonNullable<ToolCallRecord['result']> {
  return {
    ok: result.ok,
    output: result.output,
    ...(result.exitCode === undefined ? {} : { exitCode: result.exitCode }),
    ...(result.code === undefined ? {} : { code: result.code }),
    ...(result.message === undefined ? {} : { message: result.message }),
  }
}

/** What recording a call's end needs of the runner. */
export interface OutcomeDeps {
  conversations: ConversationStore
  events: EventBus
  now: () => number
}

/** How a tool call ended, as the model is told. */
export type ToolOutcome = Extract<ActionOutcome, { type: 'tool' }>

/** Records how the call ended. A call refused when it was about to act,
 *  because what it would act on is no longer what was shown (by the
 *  runtime's check or the tool's own last check), ends `refused` with an
 *  `execution_refused` audit event. After a decision (`turnWaited`), the
 *  turn is written running again with the call's end. */
export function recordOutcome(
  deps: OutcomeDeps,
  call: ToolCallRecord,
  planned: AgentToolCall,
  settled: Settled,
  { turnWaited = false } = {},
): ToolOutcome {
  const { result } = settled
  const { conversations, events, now } = deps
  const recorded = toRecordResult(result)
  const audited = settled.refusedAfterConsent === true || AFTER_CONSENT_CODES.has(result.code ?? '')
  const status = audited ? 'refused' : settled.status
  if (audited) {
    const approvalId = settled.approvalId ?? conversations.getToolCall(call.id)?.approvalId ?? null
    const turnStatus = turnWaited ? 'running' : undefined
    conversations.refuseExecution(call, recorded, approvalId, now(), turnStatus)
  } else if (turnWaited) {
    // The turn may never have been marked running since its decision (a
    // denial, or a call refused before it ran): it is, with the call's end.
    conversations.settleCall(call, { status, result: recorded }, 'running', now())
  } else {
    conversations.updateToolCall(call.id, { status, result: recorded, at: now() })
  }
  events.emit('timeline.updated', { roomId: call.roomId })
  return { type: 'tool', call: planned, status, result: recorded }
}

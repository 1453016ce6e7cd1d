/**
 * The deterministic offline model fixture: no network, no weights. It turns
 * a tiny command language (offline-commands.ts) into tool calls so the app,
 * the smoke scenario and tests can drive real approvals without a model. A
 * real model client replaces it by implementing `AgentModel`
 * (agent-model.ts) and passing it as `RuntimeOptions.model`.
 *
 * If any line of a message does not fit the grammar, the whole message gets
 * a reply explaining the grammar and no tool calls: half a plan is worse
 * than none.
 */

import type {
  AgentAction,
  AgentContext,
  AgentModel,
  AgentStep,
  AgentToolCall,
} from './agent-model.ts'
import { COMMAND_GRAMMAR, parseCommandLine } from './offline-commands.ts'
import { outcomesReport } from './offline-outcome-report.ts'
import { englishText, message, type RuntimeMessage } from '../../contracts/runtime-message.ts'

/** What the grammar makes of one message: what the agent says while acting,
 *  the actions in order, and `toolCalls`, the tool actions alone. */
export type AgentPlan = {
  reply: string
  /** `reply` as a code, for the person's language. */
  replyMessage: RuntimeMessage
  toolCalls: AgentToolCall[]
  steps: AgentAction[]
}

const HELP = message('offline.help', { grammar: COMMAND_GRAMMAR, example: 'read "my notes.txt"' })

export const OFFLINE_MODEL_HELP = englishText(HELP)

/**
 * Two steps per turn at most. First: the person's message, read by the
 * grammar, becomes every action at once (or, if it does not fit, a reply
 * explaining the grammar). Then, once those actions ran: a reply reporting
 * each tool's outcome, so the person reads in the agent's words what was
 * written, refused and why, denied, or left to expire.
 */
export class OfflineModel implements AgentModel {
  async next(context: AgentContext): Promise<AgentStep> {
    if (context.outcomes.length > 0) {
      const report = outcomesReport(context.outcomes)
      return report === undefined
        ? { type: 'reply', text: '' }
        : { type: 'reply', text: englishText(report), message: report }
    }
    const plan = this.plan(context.userText)
    if (plan.steps.length === 0)
      return { type: 'reply', text: plan.reply, message: plan.replyMessage }
    return { type: 'act', say: plan.reply, sayMessage: plan.replyMessage, actions: plan.steps }
  }

  /** The grammar alone: the same message always gives the same plan. */
  plan(text: string): AgentPlan {
    const lines = text.split(/\r?\n/)
    const steps: AgentAction[] = []
    const says: RuntimeMessage[] = []
    const only = (replyMessage: RuntimeMessage): AgentPlan => ({
      reply: englishText(replyMessage),
      replyMessage,
      toolCalls: [],
      steps: [],
    })
    for (const [index, line] of lines.entries()) {
      if (line.trim() === '') continue
      const step = parseCommandLine(line, steps)
      if (step === null) {
        return only(
          message('offline.notUnderstood', {
            line: index + 1,
            text: JSON.stringify(line.trim()),
            help: HELP,
          }),
        )
      }
      if (step === 'joined') continue
      steps.push(step.step)
      says.push(step.says)
    }
    if (steps.length === 0) return only(HELP)
    const replyMessage = message('lines.joined', { lines: says })
    return {
      reply: englishText(replyMessage),
      replyMessage,
      toolCalls: steps.flatMap((step) => (step.type === 'tool' ? [step.call] : [])),
      steps,
    }
  }
}

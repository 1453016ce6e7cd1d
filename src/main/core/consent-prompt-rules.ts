import { z } from 'zod'
import type { ConsentAnswer, Language } from '../../common/consent-view.ts'
import { translate } from '../../common/i18n/index.ts'
import { approverWebhookUrlProblem } from '../../contracts/approver-webhook.ts'
import { PermissionModeSchema } from '../../contracts/policy-axes.ts'
import type { Prompt } from './consent-prompts.ts'
import type { PromptSubject } from './decision-timing.ts'
import { WorkbenchRefusal } from './workbench-refusal.ts'

/** What the workbench may ask of the consent controller, and which answer
 *  each kind of prompt takes: the rules, apart from the machinery. */

const ID = z.string().regex(/^[A-Za-z0-9_-]{1,128}$/)

/** The workbench may name what to review and nothing else: a decision, a
 *  source or any extra field is a forgery attempt and is refused. */
export const ReviewApprovalArgsSchema = z.tuple([ID])
export const ModeChangeArgsSchema = z.tuple([ID, PermissionModeSchema])
/** A URL to set, or null to remove; the protected window shows exactly it. */
export const ApproverWebhookArgsSchema = z.tuple([ID, z.string().max(2_048).nullable()])

export function parseArgs<S extends z.ZodType>(
  schema: S,
  args: unknown,
  usage: string,
): z.infer<S> {
  const parsed = schema.safeParse(args)
  if (!parsed.success) {
    throw new WorkbenchRefusal(
      'invalid_arguments',
      `${usage} takes exactly those arguments; decisions are made only in the protected window`,
    )
  }
  return parsed.data
}

/** `[roomId, url | null]`, with a URL the runtime would refuse refused
 *  here, before a window shows it. */
export function parseWebhookArgs(args: unknown): [string, string | null] {
  const [roomId, url] = parseArgs(
    ApproverWebhookArgsSchema,
    args,
    'requestApproverWebhook(roomId, url | null)',
  )
  const problem = url === null ? null : approverWebhookUrlProblem(url)
  if (problem !== null) {
    throw new WorkbenchRefusal('invalid_arguments', `the webhook URL is refused: ${problem}`)
  }
  return [roomId, url]
}

/** What a prompt is about, for main's enable-delay rule. */
export function subjectOf(prompt: Prompt): PromptSubject {
  switch (prompt.kind) {
    case 'mode-change':
      return {
        kind: prompt.kind,
        from: prompt.fromMode,
        to: prompt.mode,
        vouches: prompt.acceptsReplacedWorkspace || prompt.resealsRoom,
      }
    case 'approver-webhook':
      return { kind: prompt.kind, sets: prompt.url !== null }
    default:
      return { kind: prompt.kind }
  }
}

/** Whether `answer` is one this prompt's window offers. */
export function answerFits(prompt: Prompt, answer: ConsentAnswer): boolean {
  if (answer === 'cancel') return true
  if (prompt.kind === 'approval') {
    return (
      answer === 'allow-once' ||
      answer === 'deny' ||
      (answer === 'allow-always' && prompt.alwaysOffered) ||
      (answer === 'allow-always-server' && prompt.serverWideOffered)
    )
  }
  if (prompt.kind === 'form') return answer === 'submit' || answer === 'decline'
  // The secret window decides nothing: closing it (cancel) is its one answer.
  if (prompt.kind === 'webhook-secret') return false
  return answer === 'confirm'
}

const AGENT_NAMES = {
  assistant: 'agent.assistant',
  reader: 'agent.reader',
  scoped: 'agent.scoped',
  'mcp-gateway': 'agent.mcpGateway',
} as const

/** The agent's name as the window says it; an agent the catalogs do not
 *  name is called by its id. */
export function agentLabel(lang: Language, agentId: string): string {
  return Object.hasOwn(AGENT_NAMES, agentId)
    ? translate(lang, AGENT_NAMES[agentId as keyof typeof AGENT_NAMES])
    : agentId
}

import { randomUUID } from 'node:crypto'
import type { ConsentAnswer, ConsentView, Language, Theme } from '../../common/consent-view.ts'
import { workbenchError, type WorkbenchError } from '../../common/workbench-error.ts'
import type { RequestedSchema } from '../../contracts/form-content.ts'
import { CONSENT_LIFETIME_MS, mintConsentToken } from '../../consent/consent-token.ts'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import type { ApproverWebhook } from '../../contracts/approver-webhook.ts'
import type { ApprovalDecision } from '../../contracts/consent.ts'
import type { InputRequestRecord } from '../../contracts/input-request.ts'
import type { PermissionMode } from '../../contracts/policy-axes.ts'
import type { RoomPermissions } from '../../contracts/room.ts'
import type { ProtectedWindow } from './host-port.ts'
import { parseApprovalDecisionAnswer, type RuntimeClient } from './runtime-client.ts'
import type { RuntimeConnection } from './runtime-supervisor.ts'
import { submitProtectedForm } from './sensitive-form.ts'

/** The open prompts of the consent controller, and what a decision on each
 *  does once the controller has accepted it from the prompt's own window. */

export type ConsentOutcome =
  | {
      status: 'decided'
      decision: ApprovalDecision
      approval: ApprovalRecord
    }
  | { status: 'changed'; permissions: RoomPermissions }
  /** A room's approver webhook was set or removed; never its secret, which
   *  only the protected window shows. */
  | { status: 'webhook-changed'; webhook: ApproverWebhook | null }
  | { status: 'submitted'; request: InputRequestRecord }
  | { status: 'unchanged'; permissions: RoomPermissions }
  | { status: 'cancelled' }
  | { status: 'expired' }
  /** The window closed without a decision, for the reason named. */
  | { status: 'closed'; reason: WorkbenchError }
  | { status: 'failed'; error: WorkbenchError }

export interface PromptBase {
  promptId: string
  window: ProtectedWindow
  instanceId: string
  used: boolean
  finished: boolean
  outcome: Promise<ConsentOutcome>
  finish: (outcome: ConsentOutcome) => void
  timer?: ReturnType<typeof setTimeout>
  /** When the page drew the view (or, with a host that does not say,
   *  when the view was sent), or the window last gained focus; undefined
   *  while it is being shown. On the controller's monotonic clock. */
  activeSinceMs?: number
  /** Whether this review may take focus: the person pressed something in
   *  the workbench just before asking for it. */
  activate?: boolean
}

export interface ApprovalPrompt extends PromptBase {
  kind: 'approval'
  approvalId: string
  actionDigest: string
  expiresAt: number
  /** Whether the window offered "Always allow", and "Always allow every
   *  tool of <server>": an answer for a button that was not shown is not
   *  the person's. */
  alwaysOffered: boolean
  serverWideOffered: boolean
}

export interface ModePrompt extends PromptBase {
  kind: 'mode-change'
  roomId: string
  /** The room's mode when the window opened, and the one asked for. */
  fromMode: PermissionMode
  mode: PermissionMode
  expectedRevision: number
  /** What the runtime reported of the room when the window opened, and the
   *  window said confirming does: accept the folder now at its workspace
   *  path (`workspaceMoved`), seal its stored settings again (`integrity`
   *  not `ok`). */
  acceptsReplacedWorkspace: boolean
  resealsRoom: boolean
}

export interface FormPrompt extends PromptBase {
  kind: 'form'
  requestId: string
  schema: RequestedSchema
  values?: unknown
}

export interface WebhookPrompt extends PromptBase {
  kind: 'approver-webhook'
  roomId: string
  /** The URL the window shows, or null for a removal. */
  url: string | null
  /** The new webhook's secret once the runtime set it, for main to show in
   *  the protected window: never in an outcome, which the workbench sees. */
  secret?: { value: string; webhookId: string; url: string }
}

/** The window that shows a new webhook's secret once; it decides nothing. */
export interface SecretPrompt extends PromptBase {
  kind: 'webhook-secret'
}

export type Prompt = ApprovalPrompt | ModePrompt | FormPrompt | WebhookPrompt | SecretPrompt

/** What a subject's review (consent-reviews.ts, approver-webhook-review.ts)
 *  needs of the consent controller to open its protected window. */
export interface PromptKit {
  client: RuntimeClient
  now: () => number
  roomLabel: (roomId: string) => Promise<string>
  /** Read when the review builds its view, so it shows the current choice. */
  preferences: () => { lang: Language; theme: Theme }
  enableDelayMs: number
  /** Opens one protected window for the prompt `build` makes, showing
   *  `view`, and resolves with its outcome. */
  open: (
    build: (base: PromptBase) => Prompt,
    view: (promptId: string) => ConsentView,
  ) => Promise<ConsentOutcome>
}

export interface ApplyDeps {
  client: RuntimeClient
  /** The runtime now: a decision applies only to the instance its window
   *  was opened for. */
  connection: RuntimeConnection | undefined
  now: number
  randomBytes: (size: number) => Buffer
}

/** Mints the consent token for the person's answer (approvals and mode
 *  changes) or submits a sensitive form, and reports the outcome. */
export async function applyAnswer(
  prompt: Prompt,
  answer: ConsentAnswer,
  deps: ApplyDeps,
): Promise<ConsentOutcome> {
  const connection = deps.connection
  // Mint only for the instance the window was opened for: after a restart
  // the approval belongs to a dead instance and must not be decided.
  if (!connection || connection.instanceId !== prompt.instanceId) {
    return {
      status: 'closed',
      reason: workbenchError('runtime_restarted', 'the runtime restarted'),
    }
  }
  const now = deps.now
  const random = deps.randomBytes
  if (prompt.kind === 'form') {
    const answered = answer === 'submit' ? 'submit' : 'decline'
    return submitProtectedForm(
      deps.client,
      prompt.requestId,
      prompt.schema,
      answered,
      prompt.values,
    )
  }
  if (prompt.kind === 'webhook-secret') return { status: 'cancelled' }
  if (prompt.kind === 'approver-webhook') return changeWebhook(prompt, connection, deps)
  if (prompt.kind === 'approval') {
    if (now >= prompt.expiresAt) return { status: 'expired' }
    const decision = answer as ApprovalDecision
    const token = mintConsentToken({
      key: connection.consentKey,
      now,
      lifetimeMs: CONSENT_LIFETIME_MS,
      randomBytes: random,
      binding: {
        kind: 'approval',
        subject: {
          approvalId: prompt.approvalId,
          decision,
          actionDigest: prompt.actionDigest,
          instanceId: connection.instanceId,
        },
      },
    })
    const decided = parseApprovalDecisionAnswer(
      await deps.client.decideApproval(prompt.approvalId, decision, token, prompt.actionDigest),
    )
    if (decided.status === 'refused') {
      if (decided.code === 'approval_expired') return { status: 'expired' }
      return {
        status: 'failed',
        error: workbenchError(decided.code ?? 'main_failed', decided.error),
      }
    }
    return { status: 'decided', decision, approval: decided.approval }
  }
  const clientRequestId = randomUUID()
  // The token binds what the window said, so the runtime refuses it for a
  // room that is no longer the one shown rather than re-pin or re-seal it.
  const change = {
    clientRequestId,
    expectedRevision: prompt.expectedRevision,
    mode: prompt.mode,
    ...(prompt.acceptsReplacedWorkspace ? { acceptsReplacedWorkspace: true as const } : {}),
    ...(prompt.resealsRoom ? { resealsRoom: true as const } : {}),
  }
  const token = mintConsentToken({
    key: connection.consentKey,
    now,
    lifetimeMs: CONSENT_LIFETIME_MS,
    randomBytes: random,
    binding: {
      kind: 'room-permission',
      subject: { roomId: prompt.roomId, ...change, instanceId: connection.instanceId },
    },
  })
  const permissions = await deps.client.changePermissions(prompt.roomId, change, token)
  return { status: 'changed', permissions }
}

/** Mints a token bound to the room and exactly the URL the window showed
 *  (or its removal), and applies it. */
async function changeWebhook(
  prompt: WebhookPrompt,
  connection: RuntimeConnection,
  deps: ApplyDeps,
): Promise<ConsentOutcome> {
  const change = { clientRequestId: randomUUID(), url: prompt.url }
  const token = mintConsentToken({
    key: connection.consentKey,
    now: deps.now,
    lifetimeMs: CONSENT_LIFETIME_MS,
    randomBytes: deps.randomBytes,
    binding: {
      kind: 'approver-webhook',
      subject: { roomId: prompt.roomId, ...change, instanceId: connection.instanceId },
    },
  })
  const answer = await deps.client.changeApproverWebhook(prompt.roomId, change, token)
  if (answer.secret !== null && answer.webhook !== null) {
    prompt.secret = {
      value: answer.secret,
      webhookId: answer.webhook.webhookId,
      url: answer.webhook.url,
    }
  }
  return { status: 'webhook-changed', webhook: answer.webhook }
}

import { randomBytes as nodeRandomBytes } from 'node:crypto'
import { z } from 'zod'
import { CONSENT_LIFETIME_MS, mintConsentToken } from '../../consent/consent-token.ts'
import { workbenchError, type WorkbenchError } from '../../common/workbench-error.ts'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import { parseApprovalDecisionAnswer, type RuntimeClient } from './runtime-client.ts'
import type { RuntimeConnection } from './runtime-supervisor.ts'
import { WorkbenchRefusal } from './workbench-refusal.ts'

/** The one decision main mints without the protected window. A deny never
 *  widens anything: at worst an action the person wanted does not run. */
const DENY_ONLY = 'deny' as const

/** The runtime's answers that mean someone (or the clock) decided first. */
const NO_LONGER_PENDING: ReadonlySet<string> = new Set([
  'approval_decided',
  'approval_expired',
  'decision_in_progress',
])

/** `assentGui.rejectApprovalForMessage(approvalId)`: an id and nothing else.
 *  A decision, a digest or any extra argument is refused, so the workbench
 *  cannot turn this path into an allow. */
export const RejectForMessageArgsSchema = z.tuple([z.string().regex(/^[A-Za-z0-9_-]{1,128}$/)])

export type MessageRejectionOutcome =
  | { status: 'rejected'; approval: ApprovalRecord }
  /** Nothing was pending any more (decided, expired): nothing to do. */
  | { status: 'not-pending' }
  | { status: 'failed'; error: WorkbenchError }

export interface MessageRejectionOptions {
  client: Pick<RuntimeClient, 'getApproval' | 'decideApproval'>
  connection: () => RuntimeConnection | undefined
  now?: () => number
  randomBytes?: (size: number) => Buffer
  /** Closes a protected review still open for the approval. */
  closeReview?: (approvalId: string) => void
}

/**
 * When the person sends a message while an approval card is open, that
 * approval is closed as rejected first. Main mints the token itself, bound
 * to the approval's current digest like any other, but its decision is the
 * constant `deny`: nothing the workbench passes can change it.
 */
export async function rejectApprovalForMessage(
  options: MessageRejectionOptions,
  args: unknown,
): Promise<MessageRejectionOutcome> {
  const parsed = RejectForMessageArgsSchema.safeParse(args)
  if (!parsed.success) {
    throw new WorkbenchRefusal(
      'invalid_arguments',
      'rejectApprovalForMessage(approvalId) takes exactly one id; it can only deny',
    )
  }
  const [approvalId] = parsed.data
  const connection = options.connection()
  if (!connection) throw new WorkbenchRefusal('runtime_down', 'the runtime is not running')
  const view = await options.client.getApproval(approvalId)
  if (view.approval.status !== 'pending') return { status: 'not-pending' }
  const token = mintConsentToken({
    key: connection.consentKey,
    now: (options.now ?? Date.now)(),
    lifetimeMs: CONSENT_LIFETIME_MS,
    randomBytes: options.randomBytes ?? nodeRandomBytes,
    binding: {
      kind: 'approval',
      subject: {
        approvalId,
        decision: DENY_ONLY,
        actionDigest: view.actionDigest,
        instanceId: connection.instanceId,
      },
    },
  })
  const answer = parseApprovalDecisionAnswer(
    await options.client.decideApproval(approvalId, DENY_ONLY, token, view.actionDigest),
  )
  if (answer.status === 'refused') {
    if (answer.code !== undefined && NO_LONGER_PENDING.has(answer.code)) {
      return { status: 'not-pending' }
    }
    return { status: 'failed', error: workbenchError(answer.code ?? 'main_failed', answer.error) }
  }
  options.closeReview?.(approvalId)
  return { status: 'rejected', approval: answer.approval }
}

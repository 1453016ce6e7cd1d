import type {
  ApproverWebhookChangeAnswer,
  ApproverWebhookChangeRequest,
  ApproverWebhookView,
} from '../../contracts/approver-webhook.ts'
import type {
  ApproverWebhookStore,
  StoredApproverWebhook,
} from '../ports/approver-webhook-store.ts'
import type { EventBus } from '../events/event-bus.ts'
import type { DelegatedApprover } from '../ports/delegated-approver.ts'
import { WebhookApprover } from './webhook-approver.ts'

export interface ApproverWebhooksOptions {
  store: ApproverWebhookStore
  /** Throws `unknown_room` for a room that does not exist. */
  requireRoom: (roomId: string) => void
  now: () => number
  randomBytes: (size: number) => Buffer
  /** Resolves once the rollback anchor is not behind (it rejects while it
   *  is): a webhook decides in the person's place, so setting one widens. */
  beforeWidening: () => Promise<void>
  /** `WEBHOOK_TIMEOUT_MS` unless a test or an option shortens it. */
  timeoutMs?: number
  /** Told of every change, as a grant's is (`grant.changed`). */
  events: Pick<EventBus, 'emit'>
}

/**
 * Rooms' approver webhooks: setting one (with a fresh secret, handed out
 * once), removing it, showing it without its secret, and the approver the
 * gate's requester asks in the person's place. A change reaches here only
 * through the route that verified a consent token for exactly it.
 */
export class ApproverWebhooks {
  private readonly options: ApproverWebhooksOptions

  constructor(options: ApproverWebhooksOptions) {
    this.options = options
  }

  view(roomId: string): ApproverWebhookView {
    this.options.requireRoom(roomId)
    return { roomId, webhook: publicView(this.options.store.get(roomId)) }
  }

  async change(
    roomId: string,
    request: ApproverWebhookChangeRequest,
  ): Promise<ApproverWebhookChangeAnswer> {
    const { store, now, randomBytes } = this.options
    this.options.requireRoom(roomId)
    if (request.url === null) {
      store.remove(roomId, request.clientRequestId, now())
      this.changed(roomId)
      return { roomId, webhook: null, secret: null }
    }
    // Removing narrows and never waits; setting waits until a restored older
    // database could not bring back a webhook removed since.
    await this.options.beforeWidening()
    // A new secret with every change: whoever had the last one (and the old
    // URL) can sign no answer for the new webhook.
    const webhook: StoredApproverWebhook = {
      roomId,
      webhookId: randomBytes(16).toString('base64url'),
      url: request.url,
      secret: randomBytes(32).toString('base64url'),
      clientRequestId: request.clientRequestId,
      createdAt: now(),
    }
    store.set(webhook)
    this.changed(roomId)
    return { roomId, webhook: publicView(webhook), secret: webhook.secret }
  }

  /**
   * Who may allow in the room changed, as when a grant is revoked: a call
   * the webhook allowed is allowed only while that webhook stands
   * (policy/allower-stands.ts), and a command acts for as long as it runs.
   * Without this a command the removed (or replaced) webhook allowed ran
   * on to its end, since nothing told its watch (agent/
   * narrowed-command-stop.ts) that the webhook was gone.
   */
  private changed(roomId: string): void {
    this.options.events.emit('grant.changed', { roomId })
  }

  /** Who decides in the person's place in this room, if anyone. */
  approverFor(roomId: string): DelegatedApprover | undefined {
    const webhook = this.options.store.get(roomId)
    if (!webhook) return undefined
    return new WebhookApprover(webhook, {
      now: this.options.now,
      randomBytes: this.options.randomBytes,
      ...(this.options.timeoutMs === undefined ? {} : { timeoutMs: this.options.timeoutMs }),
    })
  }
}

function publicView(webhook: StoredApproverWebhook | undefined): ApproverWebhookView['webhook'] {
  if (!webhook) return null
  return { webhookId: webhook.webhookId, url: webhook.url, createdAt: webhook.createdAt }
}

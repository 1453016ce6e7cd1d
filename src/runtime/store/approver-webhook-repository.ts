import type { DatabaseSync } from 'node:sqlite'
import type {
  ApproverWebhookStore,
  StoredApproverWebhook,
} from '../ports/approver-webhook-store.ts'
import type { AuditAppender } from './audit-log.ts'
import { inTransaction } from './database.ts'
import type { IntegrityMac, OnTampered } from './integrity-mac.ts'
import type { SecretSealer } from './secret-sealer.ts'

export interface ApproverWebhookRepositoryOptions {
  mac: IntegrityMac
  sealer: SecretSealer
  audit: AuditAppender
  /** Whether the room's own row verified: a tampered room has no webhook. */
  roomIntact: (roomId: string) => boolean
  onTampered: OnTampered
}

/** Approver webhooks: one sealed row per room. */
export class SqliteApproverWebhookRepository implements ApproverWebhookStore {
  private readonly db: DatabaseSync
  private readonly options: ApproverWebhookRepositoryOptions

  constructor(db: DatabaseSync, options: ApproverWebhookRepositoryOptions) {
    this.db = db
    this.options = options
  }

  get(roomId: string): StoredApproverWebhook | undefined {
    const row = this.db.prepare('SELECT * FROM approver_webhooks WHERE room_id = ?').get(roomId)
    if (!row || !this.options.roomIntact(roomId)) return undefined
    const raw = rawWebhook(row)
    const mac = row.mac == null ? null : String(row.mac)
    const secret = this.options.sealer.open(raw.sealedSecret, secretContext(raw))
    // An edited row would send the person's decisions to a URL they never
    // confirmed: it is reported and read as no webhook, so the person decides.
    if (!this.options.mac.verify('approver-webhook', raw, mac) || secret === undefined) {
      this.options.onTampered({
        table: 'approver_webhooks',
        rowId: raw.roomId,
        roomId: raw.roomId,
        problem: mac === null ? 'mac_missing' : 'mac_mismatch',
        foundMac: mac,
      })
      return undefined
    }
    return {
      roomId: raw.roomId,
      webhookId: raw.webhookId,
      url: raw.url,
      secret,
      clientRequestId: raw.clientRequestId,
      createdAt: raw.createdAt,
    }
  }

  set(webhook: StoredApproverWebhook): void {
    const raw: RawWebhook = {
      roomId: webhook.roomId,
      webhookId: webhook.webhookId,
      url: webhook.url,
      sealedSecret: '',
      clientRequestId: webhook.clientRequestId,
      createdAt: webhook.createdAt,
    }
    raw.sealedSecret = this.options.sealer.seal(webhook.secret, secretContext(raw))
    inTransaction(this.db, () => {
      this.db
        .prepare(
          `INSERT INTO approver_webhooks (room_id, webhook_id, url, sealed_secret, client_request_id, created_at, mac)
           VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (room_id) DO UPDATE SET webhook_id = excluded.webhook_id, url = excluded.url,
             sealed_secret = excluded.sealed_secret, client_request_id = excluded.client_request_id,
             created_at = excluded.created_at, mac = excluded.mac`,
        )
        .run(
          raw.roomId,
          raw.webhookId,
          raw.url,
          raw.sealedSecret,
          raw.clientRequestId,
          raw.createdAt,
          this.options.mac.sign('approver-webhook', raw),
        )
      // Never the secret: the audit log is exported and read by people.
      this.options.audit.append(
        {
          type: 'approver_webhook_set',
          subjectId: raw.roomId,
          payload: { webhookId: raw.webhookId, url: raw.url, clientRequestId: raw.clientRequestId },
          at: raw.createdAt,
        },
        // Counted, like a room's mode: an older copy of the database put back
        // must not bring back a webhook since removed or replaced.
        { count: 'next' },
      )
    })
  }

  /** Deletes every room's webhook, in the caller's transaction (a rollback
   *  detected: the person sets each again through the protected window).
   *  Returns the rooms that had one. */
  removeAll(): string[] {
    const rows = this.db.prepare('SELECT room_id FROM approver_webhooks ORDER BY room_id').all()
    this.db.prepare('DELETE FROM approver_webhooks').run()
    return rows.map((row) => String(row.room_id))
  }

  remove(roomId: string, clientRequestId: string, at: number): boolean {
    return inTransaction(this.db, () => {
      const row = this.db.prepare('SELECT * FROM approver_webhooks WHERE room_id = ?').get(roomId)
      if (!row) return false
      // Removing narrows (the person decides again), so it is allowed on
      // any row, verified or not.
      this.db.prepare('DELETE FROM approver_webhooks WHERE room_id = ?').run(roomId)
      const raw = rawWebhook(row)
      this.options.audit.append(
        {
          type: 'approver_webhook_removed',
          subjectId: roomId,
          payload: { webhookId: raw.webhookId, url: raw.url, clientRequestId },
          at,
        },
        { count: 'next' },
      )
      return true
    })
  }
}

/** Everything the row's MAC covers: all of it. */
interface RawWebhook {
  roomId: string
  webhookId: string
  url: string
  sealedSecret: string
  clientRequestId: string
  createdAt: number
}

function rawWebhook(row: Record<string, unknown>): RawWebhook {
  return {
    roomId: String(row.room_id),
    webhookId: String(row.webhook_id),
    url: String(row.url),
    sealedSecret: String(row.sealed_secret),
    clientRequestId: String(row.client_request_id),
    createdAt: Number(row.created_at),
  }
}

/** The sealed secret opens only in its own room and webhook. */
function secretContext(raw: Pick<RawWebhook, 'roomId' | 'webhookId'>): string {
  return `approver-webhook\u0000${raw.roomId}\u0000${raw.webhookId}`
}

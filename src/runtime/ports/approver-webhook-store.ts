/** A room's approver webhook as the runtime reads it back: the secret is in
 *  clear here, in memory only, for signing. */
export interface StoredApproverWebhook {
  roomId: string
  webhookId: string
  url: string
  secret: string
  clientRequestId: string
  createdAt: number
}

/**
 * Approver webhooks, one per room, sealed against edits on disk.
 *
 * Invariants the adapter keeps: the secret is stored only sealed (encrypted
 * under a key derived from the integrity key) and never written to the
 * audit log; a row and its `approver_webhook_set` or
 * `approver_webhook_removed` event are one transaction; a row whose MAC
 * does not verify, or in a room whose own row does not verify, is never
 * returned (it is reported instead), so an edit on disk can only leave the
 * person deciding, never hand their decisions to another URL.
 */
export interface ApproverWebhookStore {
  get(roomId: string): StoredApproverWebhook | undefined
  /** Sets (or replaces) the room's webhook with its audit event. */
  set(webhook: StoredApproverWebhook): void
  /** Removes the room's webhook with its audit event; false, with nothing
   *  written, when the room has none. */
  remove(roomId: string, clientRequestId: string, at: number): boolean
}

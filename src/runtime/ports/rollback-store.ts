import type { RollbackReason, SealedCounter } from '../domain/rollback-check.ts'

export type { SealedCounter } from '../domain/rollback-check.ts'

/** What the runtime found at start about a database older than its anchor. */
export interface RollbackDetection {
  reason: RollbackReason
  databaseCounter: number | null
  anchor: number | null
  /** The counter sealed with the record. */
  counter: number
  at: number
}

/** What recording a rollback changed. */
export interface RollbackRecord {
  /** Rooms now read as rolled back until a mode is confirmed. */
  roomIds: string[]
  /** Grants revoked: whether the person had revoked them since this copy
   *  was made cannot be told. */
  revokedGrantIds: string[]
}

/** An anchor write that failed, for the audit trail. */
export interface AnchorLag {
  /** The committed counter the anchor should hold. */
  counter: number
  /** What the anchor held as far as this instance knows (null: nothing). */
  anchored: number | null
  error: string
}

/**
 * The database's side of rollback detection: a counter that every change
 * of a room's permissions or grants moves forward in its own transaction
 * (RoomStore, GrantStore), sealed in the audit log's head with a digest of
 * the rooms and grants, and the events about it.
 *
 * Invariants the adapter keeps: the counter only moves forward and is
 * sealed under the integrity key together with the newest event and the
 * digest; `recordRollback` marks the rooms, revokes the grants, seals the
 * counter and writes `rollback_detected` in one transaction, and never
 * reseals a row whose own seal does not verify; `recordCleanShutdown`
 * advances the counter with its `clean_shutdown` event. Each counter change
 * calls the listener given to `onAdvanced` (inside the transaction: the
 * listener must not read before it commits).
 */
export interface RollbackStore {
  readCounter(): SealedCounter
  /** Whether the rooms and grants are those the sealed head vouches for. */
  rowsMatchCounter(): boolean
  /** The counter this instance counts from: never below `counter`. */
  countFrom(counter: number): void
  onAdvanced(listener: () => void): void
  recordRollback(detection: RollbackDetection): RollbackRecord
  /** Advances the counter; answers the new value. */
  recordCleanShutdown(instanceId: string, at: number): number
  recordAnchorLag(lag: AnchorLag, at: number): void
}

/**
 * Main's copy of the rollback anchor, outside the database
 * (docs/integrity.md#rollback).
 *
 * Invariant the adapter keeps: `advance(counter)` resolves only once main
 * has stored `counter` in the SecretStore and read it back; it rejects
 * when that did not happen (the keychain refused, the channel to main is
 * closed, main did not answer in time), never resolves on a guess. Main
 * refuses to lower the anchor, so the caller only ever asks for counters
 * that are committed and on disk.
 */
export interface RollbackAnchor {
  advance(counter: number): Promise<void>
}

/**
 * What a service that changes permissions needs of rollback detection.
 *
 * Invariants the adapter keeps: `beforeWidening` resolves only when the
 * anchor holds every counter committed so far (it retries the write once
 * when it does not), and otherwise rejects with a `Refusal` coded
 * `rollback_anchor_unavailable`, having changed nothing; `settled`
 * resolves once the anchor has been tried for every change committed
 * before the call, and never rejects (a failed write is recorded as a lag
 * instead).
 */
export interface RollbackAnchorSync {
  beforeWidening(): Promise<void>
  settled(): Promise<void>
}

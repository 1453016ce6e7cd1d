/**
 * Whether a database is older than its rollback anchor
 * (docs/integrity.md#rollback). Pure: the runtime decides with it at start,
 * and `assent audit verify` with the same function.
 */

/** The database's own rollback counter, as its sealed head reads. */
export type SealedCounter =
  | { state: 'absent' }
  | { state: 'sealed'; counter: number }
  /** A row whose MAC does not verify under the data dir's key: edited, or
   *  from another data dir's database. */
  | { state: 'tampered' }

export type RollbackReason =
  /** The database's counter is below the anchor: an older copy. */
  | 'older_than_anchor'
  /** The database has counted changes but no anchor was ever stored for
   *  it: the anchor was removed, or the database came from elsewhere. */
  | 'anchor_missing'
  /** The sealed head that holds the counter does not verify, or does not
   *  name the newest event: its value says nothing. */
  | 'counter_tampered'
  /** The counter is current, but the rooms and grants are not the ones
   *  the sealed head vouches for: rows, or a table, put back from an older
   *  copy, each row's own seal still verifying. */
  | 'rows_changed'

export type RollbackVerdict =
  /** Neither a counter nor an anchor: a new data dir, or the first start
   *  after an upgrade. The anchor is stored at 0 before anything counts. */
  | { kind: 'initialise' }
  /** The database is as new as the anchor or newer (newer after a crash
   *  between a commit and the anchor's write): the anchor catches up. */
  | { kind: 'current'; counter: number; anchor: number }
  | {
      kind: 'rolled-back'
      reason: RollbackReason
      databaseCounter: number | null
      anchor: number | null
      /** The counter to seal once the rollback is recorded: past both, so
       *  the same copy put back again is older than the new anchor. */
      next: number
    }

/**
 * A missing counter reads as 0 (the database never counted a change), so
 * a copy from before the first counted change, or from before an upgrade,
 * is older than any anchor above 0. `rowsMatch` says whether the rooms and
 * grants are those the sealed head vouches for. Anything this function
 * cannot vouch for is a rollback: a false alarm costs the person a
 * confirmation per room, a missed one hands an agent what the person took
 * back.
 */
export function checkRollback(
  counter: SealedCounter,
  anchor: number | null,
  rowsMatch: boolean,
): RollbackVerdict {
  if (counter.state === 'tampered') return rolledBack('counter_tampered', null, anchor)
  const databaseCounter = counter.state === 'sealed' ? counter.counter : 0
  if (anchor === null) {
    return counter.state === 'absent'
      ? { kind: 'initialise' }
      : rolledBack('anchor_missing', databaseCounter, null)
  }
  if (databaseCounter < anchor) return rolledBack('older_than_anchor', databaseCounter, anchor)
  if (!rowsMatch) return rolledBack('rows_changed', databaseCounter, anchor)
  return { kind: 'current', counter: databaseCounter, anchor }
}

function rolledBack(
  reason: RollbackReason,
  databaseCounter: number | null,
  anchor: number | null,
): RollbackVerdict {
  return {
    kind: 'rolled-back',
    reason,
    databaseCounter,
    anchor,
    next: Math.max(databaseCounter ?? 0, anchor ?? 0) + 1,
  }
}

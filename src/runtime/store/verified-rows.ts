/** How many rows a memo keeps before it starts again: far more rooms than
 *  anyone has, so the memo never grows with whatever a file holds. */
const MAX_KEPT_ROWS = 1_000

/**
 * What each sealed row was last read as, by its id. A row read again with
 * the very same stored bytes is the same row: its MAC, checked under the
 * same key (a repository's key never changes), verifies again, and its
 * fields parse the same, so both are skipped. Only a row that verified is
 * kept; one that did not is checked, and reported, at every read. Each
 * read hands out its own copy, so what one caller does with its room
 * cannot change what the next is handed.
 *
 * The bytes are the row's columns as JSON, which escapes every character
 * that could join or split two values, with SQLite's integers and blobs
 * written as objects no text can spell: two rows that differ in any
 * column, or in a column's type, never read as the same.
 */
export class VerifiedRows<T> {
  private readonly rows = new Map<string, { bytes: string; value: T }>()

  /** `make` reads the row afresh and says whether it verified (`keep`). */
  read(id: string, row: Record<string, unknown>, make: () => { value: T; keep: boolean }): T {
    const bytes = JSON.stringify(row, storedValue)
    const kept = this.rows.get(id)
    if (kept !== undefined && kept.bytes === bytes) return structuredClone(kept.value)
    const { value, keep } = make()
    if (!keep) {
      this.rows.delete(id)
      return value
    }
    if (this.rows.size >= MAX_KEPT_ROWS) this.rows.clear()
    this.rows.set(id, { bytes, value: structuredClone(value) })
    return value
  }
}

function storedValue(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return { integer: value.toString() }
  if (value instanceof Uint8Array) return { blob: Buffer.from(value).toString('base64') }
  return value
}

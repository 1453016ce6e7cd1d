import { join } from 'node:path'
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import { makePrivateFolder } from './private-folder.ts'
import { registerDurability, WalDurability } from './durability.ts'
import { MIGRATIONS } from './migrations.ts'

export const DATABASE_FILE_NAME = 'assent.sqlite'

export interface OpenDatabaseOptions {
  /** Called once if an fsync of the WAL fails; the connection is then
   *  unusable for anything that must be durable (store/durability.ts). */
  onDurabilityFailure?: (error: Error) => void
}

/**
 * One SQLite file per data folder, WAL mode. Commits do not wait for the disk
 * (`synchronous = NORMAL`); durability comes from the connection's group
 * commit barrier (`durabilityOf(db).durable()`), which everything that acts
 * on a write awaits first. So a decision and its audit event are on disk
 * before anyone hears of them, and survive power loss, not only a process
 * crash: the audit trail is the evidence a reviewer relies on.
 */
export function openDatabase(dataDir: string, options: OpenDatabaseOptions = {}): DatabaseSync {
  // The store holds every conversation and what each tool call returned:
  // its folder is its owner's alone before the first byte of it is written.
  makePrivateFolder(dataDir)
  const path = join(dataDir, DATABASE_FILE_NAME)
  const db = new DatabaseSync(path)
  db.exec('PRAGMA journal_mode = WAL')
  db.exec('PRAGMA synchronous = NORMAL')
  db.exec('PRAGMA foreign_keys = ON')
  db.exec('PRAGMA busy_timeout = 5000')
  migrate(db)
  cacheStatements(db)
  const onFailure =
    options.onDurabilityFailure ??
    ((error: Error) => {
      // Without a handler, say it where an operator looks; every caller of
      // durable() is refused from now on anyway.
      console.error(`assent store: ${error.message}`)
    })
  registerDurability(db, new WalDurability(db, path, onFailure))
  return db
}

/** Enough for every statement the repositories spell; SQL text is never
 *  built from data (values are bound), so the set is fixed. */
const MAX_CACHED_STATEMENTS = 256

/**
 * Compiles each SQL text once per connection: `db.prepare` returns the
 * statement it compiled before for the same text. Compiling cost several
 * times the query itself on the decision path. Safe because every use binds
 * its values and runs the statement to completion (`run`, `get`, `all`)
 * before anything else can use it: node:sqlite is synchronous.
 */
function cacheStatements(db: DatabaseSync): void {
  const compile = db.prepare.bind(db)
  const cache = new Map<string, StatementSync>()
  db.prepare = (sql: string) => {
    let statement = cache.get(sql)
    if (!statement) {
      statement = compile(sql)
      if (cache.size < MAX_CACHED_STATEMENTS) cache.set(sql, statement)
    }
    return statement
  }
}

export function migrate(db: DatabaseSync): void {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)',
  )
  const applied = new Set(
    db
      .prepare('SELECT version FROM schema_migrations')
      .all()
      .map((row) => Number(row.version)),
  )
  for (const migration of MIGRATIONS) {
    if (applied.has(migration.version)) continue
    inTransaction(db, () => {
      db.exec(migration.sql)
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(
        migration.version,
        Date.now(),
      )
    })
  }
}

/**
 * Runs `work` in one IMMEDIATE transaction (the write lock is taken up front,
 * so two writers never interleave reads and writes). Any throw rolls back
 * everything `work` wrote.
 */
export function inTransaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec('BEGIN IMMEDIATE')
  try {
    const result = work()
    db.exec('COMMIT')
    return result
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK')
    throw error
  }
}

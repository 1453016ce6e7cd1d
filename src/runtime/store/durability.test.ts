import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DATABASE_FILE_NAME, openDatabase } from './database.ts'
import { durabilityOf } from './durability.ts'

let dir: string
let db: DatabaseSync
let failures: Error[]

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'assent-durability-'))
  failures = []
  db = openDatabase(dir, { onDurabilityFailure: (error) => failures.push(error) })
  db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)')
})
afterEach(async () => {
  await durabilityOf(db)
    .close()
    .catch(() => undefined)
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

const insert = (text: string) => db.prepare('INSERT INTO notes (text) VALUES (?)').run(text)

describe('WalDurability (group commit on a real SQLite file)', () => {
  it('opens the store with NORMAL sync, so a commit itself never waits for the disk', () => {
    expect(db.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 1 })
    expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
  })

  it('fsyncs only when something was committed since the last fsync', async () => {
    const durability = durabilityOf(db)
    await durability.durable()
    expect(durability.completedFsyncs).toBe(0)
    insert('a')
    await durability.durable()
    expect(durability.completedFsyncs).toBe(1)
    await durability.durable()
    expect(durability.completedFsyncs).toBe(1)
  })

  it('lets commits made together share one fsync', async () => {
    const durability = durabilityOf(db)
    const waits: Array<Promise<void>> = []
    for (let i = 0; i < 10; i += 1) {
      insert(`n${i}`)
      waits.push(durability.durable())
    }
    await Promise.all(waits)
    // The fsync starts when this turn of the event loop is over, so it sees
    // all ten rows, though each caller asked right after its own.
    expect(durability.completedFsyncs).toBe(1)
    // Every row is covered: nothing is left to flush.
    await durability.durable()
    expect(durability.completedFsyncs).toBe(1)
  })

  it('never counts a commit as durable by an fsync that started before it', async () => {
    const durability = durabilityOf(db)
    insert('before')
    let firstDone = false
    const first = durability.durable().then(() => (firstDone = true))
    // The fsync starts after this turn of the event loop (setImmediate,
    // first in line): from here on it is under way and has not seen the
    // next row.
    await new Promise((resolve) => setImmediate(resolve))
    insert('during')
    const second = durability.durable()
    await first
    expect(firstDone).toBe(true)
    expect(durability.completedFsyncs).toBe(1)
    await second
    expect(durability.completedFsyncs).toBe(2)
  })

  it('fails closed, for good, when the WAL cannot be synced', async () => {
    const durability = durabilityOf(db)
    insert('x')
    // The WAL file vanishing under an open connection: nothing can vouch
    // for what was written to it.
    rmSync(join(dir, `${DATABASE_FILE_NAME}-wal`))
    await expect(durability.durable()).rejects.toThrow(/could not be made durable/)
    expect(failures).toHaveLength(1)
    await expect(durability.durable()).rejects.toThrow(/could not be made durable/)
    expect(failures).toHaveLength(1)
  })
})

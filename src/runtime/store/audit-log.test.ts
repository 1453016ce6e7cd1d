import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { auditEventHash, verifyAuditChain } from './audit-chain.ts'
import { SqliteAuditLog, readAuditHead, type AuditEvent } from './audit-log.ts'
import { inTransaction, openDatabase } from './database.ts'
import { IntegrityMac } from './integrity-mac.ts'

const MAC = new IntegrityMac(Buffer.alloc(32, 9))
let dir: string
let db: DatabaseSync
let log: SqliteAuditLog

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'assent-audit-'))
  db = openDatabase(dir)
  log = new SqliteAuditLog(db, { mac: MAC })
  inTransaction(db, () => {
    for (let index = 1; index <= 5; index += 1) {
      log.append({ type: 'test', subjectId: `s${index}`, payload: { index }, at: index })
    }
  })
})

afterEach(() => {
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

function sealed(events: AuditEvent[] = log.list()) {
  return verifyAuditChain(events, { mac: MAC, head: readAuditHead(db) })
}

/** Re-hashes an edited event and relinks every later one, as anyone can:
 *  hashes are public. Only the MACs stay as they were. */
function rechain(events: AuditEvent[]): AuditEvent[] {
  let prevHash = events[0]?.prevHash ?? ''
  return events.map((event) => {
    const { hash: _hash, mac, ...rest } = { ...event, prevHash }
    const hash = auditEventHash(rest)
    prevHash = hash
    return { ...rest, hash, mac }
  })
}

describe('the sealed audit log', () => {
  it('seals every event and moves the head with each append', () => {
    const events = log.list()
    expect(events.map((event) => event.mac)).not.toContain(null)
    expect(readAuditHead(db)).toMatchObject({ seq: 5, hash: events[4]?.hash })
    expect(sealed()).toEqual({ ok: true, checked: 5 })
  })

  it('catches an edit whose hashes were all recomputed: only the MAC is left to tell', () => {
    const events = log.list()
    events[2] = { ...events[2]!, payload: { index: 300 } }
    const rewritten = rechain(events)
    expect(verifyAuditChain(rewritten).ok).toBe(true)
    expect(sealed(rewritten)).toMatchObject({
      ok: false,
      seq: 3,
      problem: expect.stringContaining('MAC does not verify'),
    })
  })

  it('names a deleted event by its seq', () => {
    const events = log.list().filter((event) => event.seq !== 2)
    expect(sealed(events)).toMatchObject({
      ok: false,
      seq: 2,
      problem: expect.stringContaining('event 2 is missing'),
    })
  })

  it('names two rows stored in each other’s place as a reordering', () => {
    const events = log.list()
    const [second, third] = [events[1]!, events[2]!]
    events[1] = { ...third, seq: 2 }
    events[2] = { ...second, seq: 3 }
    expect(sealed(events)).toMatchObject({
      ok: false,
      seq: 2,
      problem: expect.stringContaining('reordered'),
    })
  })

  it('catches the newest events deleted, which leaves a valid but shorter chain', () => {
    const events = log.list().slice(0, 3)
    expect(verifyAuditChain(events).ok).toBe(true)
    expect(sealed(events)).toMatchObject({
      ok: false,
      seq: 4,
      problem: expect.stringContaining('truncated'),
    })
  })

  it('refuses a head the key did not seal', () => {
    const events = log.list().slice(0, 3)
    const head = { seq: 3, hash: events[2]!.hash, mac: readAuditHead(db)!.mac }
    expect(verifyAuditChain(events, { mac: MAC, head })).toMatchObject({
      ok: false,
      problem: expect.stringContaining('head of the log does not verify'),
    })
  })

  it('refuses a log with events and no head', () => {
    expect(verifyAuditChain(log.list(), { mac: MAC, head: undefined })).toMatchObject({
      ok: false,
      problem: expect.stringContaining('head of the log is missing'),
    })
  })

  it('refuses the same log under another key', () => {
    const other = new IntegrityMac(Buffer.alloc(32, 10))
    expect(verifyAuditChain(log.list(), { mac: other, head: readAuditHead(db) })).toMatchObject({
      ok: false,
      seq: 1,
    })
  })
})

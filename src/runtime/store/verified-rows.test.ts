import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { DatabaseSync } from 'node:sqlite'
import type { IntegrityProblem } from '../ports/audit-trail.ts'
import { policyForMode } from '../policy/permission-modes.ts'
import { openTempDatabase, sqliteStores, type SqliteStores } from '../test-support/sqlite-stores.ts'
import { SqliteAuditLog } from './audit-log.ts'
import { IntegrityMac } from './integrity-mac.ts'
import { VerifiedRows } from './verified-rows.ts'

describe('VerifiedRows', () => {
  function counted() {
    const memo = new VerifiedRows<{ n: number; list: number[] }>()
    let made = 0
    const read = (row: Record<string, unknown>, keep = true) =>
      memo.read('r1', row, () => {
        made += 1
        return { value: { n: made, list: [made] }, keep }
      })
    return { read, made: () => made }
  }

  it('makes a row once while its bytes stay the same, handing each read its own copy', () => {
    const { read, made } = counted()
    const first = read({ id: 'r1', policy: '{"a":1}', revision: 1 })
    first.list.push(99)
    const second = read({ id: 'r1', policy: '{"a":1}', revision: 1 })
    expect(made()).toBe(1)
    expect(second).toEqual({ n: 1, list: [1] })
  })

  it.each([
    ['a value', { id: 'r1', policy: '{"a":2}', revision: 1 }],
    ['a type: text where an integer was', { id: 'r1', policy: '{"a":1}', revision: '1' }],
    ['a type: a 64-bit integer', { id: 'r1', policy: '{"a":1}', revision: 1n }],
    ['a type: a blob', { id: 'r1', policy: new Uint8Array([123, 125]), revision: 1 }],
    ['a split between two columns', { id: 'r1', policy: '{"a":1}","revision":1', revision: 1 }],
    ['a missing column', { id: 'r1', policy: '{"a":1}' }],
  ])('makes the row again when it changed in %s', (_what, changed) => {
    const { read, made } = counted()
    read({ id: 'r1', policy: '{"a":1}', revision: 1 })
    read(changed)
    expect(made()).toBe(2)
  })

  it('keeps nothing of a row that did not verify: it is made at every read', () => {
    const { read, made } = counted()
    read({ id: 'r1', policy: 'x' }, false)
    read({ id: 'r1', policy: 'x' }, false)
    expect(made()).toBe(2)
  })
})

describe('a room read again', () => {
  const MAC = new IntegrityMac(Buffer.alloc(32, 5))
  let db: DatabaseSync
  let close: () => void
  let stores: SqliteStores
  let problems: IntegrityProblem[]

  beforeEach(() => {
    ;({ db, close } = openTempDatabase('assent-verified-rows-'))
    problems = []
    stores = sqliteStores(db, {
      mac: MAC,
      audit: new SqliteAuditLog(db, { mac: MAC }),
      onTampered: (problem) => problems.push(problem),
    })
    stores.rooms.create({
      id: 'r1',
      kind: 'direct',
      agentId: 'assistant',
      workspace: '/home/ada/project',
      title: 'Room',
      policy: policyForMode('ask-for-approval'),
      revision: 0,
      createdAt: 1,
    })
  })
  afterEach(() => close())

  it('is tampered, and reported at every read, once its row is changed after it verified', () => {
    expect(stores.rooms.get('r1')?.integrity).toBe('ok')
    const widened = JSON.stringify(policyForMode('full-access'))
    db.prepare('UPDATE rooms SET policy_json = ? WHERE id = ?').run(widened, 'r1')
    for (let read = 0; read < 2; read++) {
      const room = stores.rooms.get('r1')
      expect(room?.integrity).toBe('tampered')
      expect(room?.policy).not.toEqual(policyForMode('full-access'))
    }
    expect(problems.map((problem) => problem.problem)).toEqual(['mac_mismatch', 'mac_mismatch'])
  })

  it('is what it was once its row holds the sealed bytes again, and a change of one read is not seen by the next', () => {
    const sealed = stores.rooms.get('r1')!
    const { policy_json: original } = db
      .prepare('SELECT policy_json FROM rooms WHERE id = ?')
      .get('r1') as { policy_json: string }
    db.prepare('UPDATE rooms SET policy_json = ? WHERE id = ?').run('{}', 'r1')
    expect(stores.rooms.get('r1')?.integrity).toBe('tampered')
    db.prepare('UPDATE rooms SET policy_json = ? WHERE id = ?').run(original, 'r1')
    const again = stores.rooms.get('r1')!
    expect(again).toEqual(sealed)
    again.title = 'changed by one caller'
    expect(stores.rooms.get('r1')?.title).toBe('Room')
  })
})

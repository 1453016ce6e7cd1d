import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { openDatabase } from './database.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

it('compiles each SQL text once per connection, and binds fresh values on every use', () => {
  const dir = mkdtempSync(join(tmpdir(), 'assent-statements-'))
  dirs.push(dir)
  const db = openDatabase(dir)
  try {
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)')
    const sql = 'INSERT INTO t (v) VALUES (?)'
    expect(db.prepare(sql)).toBe(db.prepare(sql))
    db.prepare(sql).run('a')
    db.prepare(sql).run('b')
    const read = 'SELECT v FROM t WHERE id = ?'
    expect(db.prepare(read).get(1)).toEqual({ v: 'a' })
    expect(db.prepare(read).get(2)).toEqual({ v: 'b' })
    expect(db.prepare('SELECT v FROM t ORDER BY id').all()).toEqual([{ v: 'a' }, { v: 'b' }])
  } finally {
    db.close()
  }
})

import { describe, expect, it } from 'vitest'
import { GENESIS_HASH, auditEventHash } from '../../src/runtime/store/audit-chain.ts'
import { verifyExportedChain } from './audit-evidence.ts'

/** A chain written with the runtime's own hash, which the smoke's
 *  independent reader must accept. */
function chain(length: number) {
  const events = []
  let prevHash = GENESIS_HASH
  for (let seq = 1; seq <= length; seq += 1) {
    const unhashed = {
      seq,
      id: `event-${seq}`,
      type: 'room_created',
      subjectId: 'room-1',
      payload: { name: `room ${seq}`, nested: { b: 2, a: 1 } },
      at: 1_700_000_000_000 + seq,
      prevHash,
    }
    const hash = auditEventHash(unhashed)
    events.push({ ...unhashed, hash })
    prevHash = hash
  }
  return events
}

describe("the smoke's reader of an exported audit chain", () => {
  it('accepts a chain the runtime wrote, from the format alone', () => {
    expect(verifyExportedChain(chain(3))).toEqual({ ok: true, checked: 3 })
  })

  it('refuses an event whose payload was edited after it was hashed', () => {
    const events = chain(3)
    events[1] = { ...events[1]!, payload: { name: 'edited', nested: { b: 2, a: 1 } } }
    expect(verifyExportedChain(events)).toMatchObject({ ok: false, seq: 2 })
  })

  it('refuses a chain with an event taken out', () => {
    const events = chain(3)
    expect(verifyExportedChain([events[0]!, events[2]!])).toMatchObject({ ok: false, seq: 3 })
  })

  it('refuses a chain whose first event does not start from genesis', () => {
    const events = chain(2)
      .slice(1)
      .map((event) => ({ ...event, seq: 1 }))
    expect(verifyExportedChain(events)).toMatchObject({ ok: false, seq: 1 })
  })
})

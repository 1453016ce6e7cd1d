import { canonicalJson } from '../../contracts/canonical-json.ts'
import { sha256Hex } from '../domain/sha256.ts'
import type { AuditEvent } from '../ports/audit-trail.ts'
import type { IntegrityMac } from './integrity-mac.ts'
import { headSealContent, type AuditHead } from './sealed-head.ts'

export const GENESIS_HASH = '0'.repeat(64)

/** The fields an event's hash covers, in one place so the writer and the
 *  verifier can never disagree about them. */
export function auditEventHash(event: Omit<AuditEvent, 'hash' | 'mac'>): string {
  return sha256Hex(
    canonicalJson({
      seq: event.seq,
      id: event.id,
      type: event.type,
      subjectId: event.subjectId,
      payload: event.payload,
      at: event.at,
      prevHash: event.prevHash,
    }),
  )
}

export interface BrokenChain {
  ok: false
  /** How many events before the broken one verified. */
  checked: number
  seq: number
  problem: string
}
export type ChainVerdict = { ok: true; checked: number } | BrokenChain

/**
 * Walks the chain from genesis and stops at the first broken event: a gap or
 * a repeat in `seq`, a link that does not point at its predecessor (named as
 * a reordering when it points at another event in the log), or a hash that
 * does not cover its own fields.
 *
 * With `seal`, it also checks what only the key holder can produce: each
 * event's MAC (hashes are public, so whoever edits a row can recompute every
 * hash after it; they cannot recompute the MACs), and the sealed head, which
 * must name the last event, so deleting the newest events is caught too.
 */
export function verifyAuditChain(
  events: readonly AuditEvent[],
  seal?: { mac: IntegrityMac; head: AuditHead | undefined },
): ChainVerdict {
  const seqOfHash = new Map(events.map((event) => [event.hash, event.seq]))
  let prevHash = GENESIS_HASH
  let expectedSeq = 1
  for (const [index, event] of events.entries()) {
    const broken = (problem: string): BrokenChain => ({
      ok: false,
      checked: index,
      seq: event.seq,
      problem,
    })
    if (event.seq > expectedSeq) {
      const missing =
        event.seq - 1 === expectedSeq
          ? `event ${expectedSeq} is missing`
          : `events ${expectedSeq}–${event.seq - 1} are missing`
      return {
        ...broken(`${missing} (deleted); the log goes on at ${event.seq}`),
        seq: expectedSeq,
      }
    }
    if (event.seq < expectedSeq) {
      return broken(`expected event ${expectedSeq}, found event ${event.seq} again`)
    }
    if (event.prevHash !== prevHash) {
      const linked = seqOfHash.get(event.prevHash)
      return broken(
        linked === undefined
          ? 'its link does not point at the previous event'
          : `reordered: it links to the event stored at seq ${linked}, not to seq ${event.seq - 1}`,
      )
    }
    const { hash, mac, ...unhashed } = event
    if (auditEventHash(unhashed) !== hash) {
      return broken('its content does not match its hash (edited)')
    }
    if (seal && !seal.mac.verify('audit-event', { hash }, mac)) {
      return broken(
        mac === null
          ? 'it carries no MAC'
          : 'its MAC does not verify under the integrity key (rewritten without the key)',
      )
    }
    prevHash = hash
    expectedSeq += 1
  }
  if (seal) {
    const last = events.at(-1)
    const { head } = seal
    if (!head) {
      if (last) {
        return {
          ok: false,
          checked: events.length,
          seq: last.seq,
          problem: 'the sealed head of the log is missing',
        }
      }
      return { ok: true, checked: 0 }
    }
    if (!seal.mac.verify('audit-head', headSealContent(head), head.mac)) {
      return {
        ok: false,
        checked: events.length,
        seq: head.seq,
        problem: 'the sealed head of the log does not verify under the integrity key',
      }
    }
    if (!last || head.seq > last.seq) {
      const from = (last?.seq ?? 0) + 1
      return {
        ok: false,
        checked: events.length,
        seq: from,
        problem: `truncated: the sealed head names event ${head.seq}, the log ends at ${last?.seq ?? 0}: events ${from}–${head.seq} were deleted`,
      }
    }
    if (head.seq < last.seq) {
      return {
        ok: false,
        checked: events.length,
        seq: head.seq + 1,
        problem: `events ${head.seq + 1}–${last.seq} come after the sealed head (${head.seq}): appended without the key`,
      }
    }
    if (head.hash !== last.hash) {
      return {
        ok: false,
        checked: events.length,
        seq: last.seq,
        problem: `the sealed head does not match event ${last.seq}`,
      }
    }
  }
  return { ok: true, checked: events.length }
}

import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { canonicalJson } from '../../src/contracts/canonical-json.ts'
import type { SmokeDriver } from './drivers/smoke-driver.ts'

export const AUDIT_EXPORT_FILE = 'audit-export.json'

const ExportSchema = z.object({
  instanceId: z.string(),
  events: z.array(
    z
      .object({
        seq: z.number(),
        id: z.string(),
        type: z.string(),
        subjectId: z.string(),
        payload: z.record(z.string(), z.unknown()),
        at: z.number(),
        prevHash: z.string(),
        hash: z.string(),
      })
      .passthrough(),
  ),
})

type ExportedEvent = z.infer<typeof ExportSchema>['events'][number]

const GENESIS_HASH = '0'.repeat(64)

/**
 * Walks an exported chain as an outside reader would, from the format alone
 * (each event's hash is SHA-256 over the canonical JSON of its seq, id,
 * type, subjectId, payload, at and prevHash; the first links to 64 zeros),
 * not with the runtime's own verifier: the smoke drives the product from
 * outside, and a verifier that shared the writer's code would vouch for its
 * own mistakes. The MACs and the sealed head are the real `assent audit
 * verify`'s to check, on the stopped runtime's data folder.
 */
export function verifyExportedChain(
  events: readonly ExportedEvent[],
): { ok: true; checked: number } | { ok: false; seq: number; problem: string } {
  let prevHash = GENESIS_HASH
  for (const [index, event] of events.entries()) {
    if (event.seq !== index + 1) {
      return { ok: false, seq: event.seq, problem: `expected event ${index + 1}` }
    }
    if (event.prevHash !== prevHash) {
      return { ok: false, seq: event.seq, problem: 'its link does not point at the previous event' }
    }
    const { seq, id, type, subjectId, payload, at } = event
    const hash = createHash('sha256')
      .update(canonicalJson({ seq, id, type, subjectId, payload, at, prevHash }))
      .digest('hex')
    if (hash !== event.hash) {
      return { ok: false, seq, problem: 'its hash does not cover its own fields' }
    }
    prevHash = event.hash
  }
  return { ok: true, checked: events.length }
}

/** The runtime's audit trail as it is now (main's export route). */
export async function auditTrail(driver: SmokeDriver) {
  const { client } = await driver.runtime()
  return client.request(ExportSchema, 'GET', '/v1/audit/export')
}

/** Exports the runtime's audit trail into the evidence folder and verifies
 *  its hash chain; the verdict goes into the report. */
export async function exportAndVerifyAudit(driver: SmokeDriver, evidence: string) {
  const exported = await auditTrail(driver)
  writeFileSync(join(evidence, AUDIT_EXPORT_FILE), `${JSON.stringify(exported, null, 2)}\n`)
  const verdict = verifyExportedChain(exported.events)
  const types = new Set(exported.events.map((event) => event.type))
  return {
    file: AUDIT_EXPORT_FILE,
    events: exported.events.length,
    verified: verdict.ok,
    detail: verdict.ok
      ? `${verdict.checked} events chained from genesis (${[...types].sort().join(', ')})`
      : `broken at event ${verdict.seq}: ${verdict.problem}`,
  }
}

import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { verifyAuditChain } from '../../src/runtime/store/audit-chain.ts'
import type { AuditEvent } from '../../src/runtime/store/audit-log.ts'
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
  const verdict = verifyAuditChain(exported.events as unknown as AuditEvent[])
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

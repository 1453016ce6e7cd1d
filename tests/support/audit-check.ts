import { IntegrityMac } from '../../src/runtime/store/integrity-mac.ts'
import { verifyAuditChain } from '../../src/runtime/store/audit-chain.ts'
import type { AuditEvent } from '../../src/runtime/store/audit-log.ts'
import type { RuntimeHarness } from './runtime-harness.ts'

/** The audit chain as main exports it (`GET /v1/audit/export`). */
export async function exportedAudit(harness: RuntimeHarness): Promise<AuditEvent[]> {
  const { status, body } = await harness.client.raw('GET', '/v1/audit/export')
  if (status !== 200) throw new Error(`the audit export answered ${status}`)
  return (body as { events: AuditEvent[] }).events
}

/**
 * Why the exported chain does not verify, or undefined when it does: every
 * link and hash from genesis, and every event's MAC under the harness's
 * integrity key (what an on-disk editor without the key cannot forge). The
 * sealed head is not exported, so truncation of the newest events is the
 * store's own check, not this one.
 */
export function auditChainProblem(
  harness: RuntimeHarness,
  events: readonly AuditEvent[],
): string | undefined {
  const chain = verifyAuditChain(events)
  if (!chain.ok) return `event ${chain.seq}: ${chain.problem}`
  const mac = new IntegrityMac(harness.integrityKey)
  const unsealed = events.find(
    (event) => !mac.verify('audit-event', { hash: event.hash }, event.mac),
  )
  return unsealed ? `event ${unsealed.seq} carries no valid MAC` : undefined
}

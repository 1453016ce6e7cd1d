import { randomUUID } from 'node:crypto'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import { writesGrant } from '../../contracts/consent.ts'
import type { Grant } from '../../contracts/room.ts'
import { grantScopeFor, serverGrantScopeFor } from './grant-scope.ts'

export interface GrantIssuerDeps {
  now: () => number
  newId?: () => string
}

/**
 * The grant a person's allow-always (for one tool, or for a whole MCP
 * server) stands for, or undefined for any other
 * decision. The gate hands it to the store, which writes it with its
 * `grant_created` event inside the decision's transaction, so the grant
 * commits with the decision or not at all. An allow-always that no grant
 * can be scoped to throws, rolling the decision back: the route refuses
 * such a decision with 409 before it gets here, and if it ever did get
 * here, recording "always" while granting nothing would tell the person
 * something false.
 */
export function grantForDecision(
  approval: ApprovalRecord,
  deps: GrantIssuerDeps,
): Grant | undefined {
  if (approval.decidedBy !== 'user') return undefined
  if (!writesGrant(approval.decision)) return undefined
  const scope =
    approval.decision === 'allow-always-server'
      ? serverGrantScopeFor(approval)
      : grantScopeFor(approval)
  if (!scope.ok) throw new Error(`always allow is unavailable: ${scope.reason}`)
  return {
    id: (deps.newId ?? randomUUID)(),
    roomId: approval.roomId,
    ...scope.draft,
    approvalId: approval.id,
    createdAt: deps.now(),
  }
}

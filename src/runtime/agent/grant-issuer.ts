import { randomUUID } from 'node:crypto'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import type { Grant } from '../../contracts/room.ts'
import type { AuditAppender } from '../store/audit-log.ts'
import type { SqliteGrantRepository } from '../store/grant-repository.ts'
import { grantScopeFor } from './grant-scope.ts'

export interface GrantIssuerDeps {
  grants: SqliteGrantRepository
  audit: AuditAppender
  now: () => number
  newId?: () => string
}

/**
 * Writes the grant a person's allow-always stands for, with its
 * `grant_created` event. Runs inside the decision's transaction, so the grant
 * commits with the decision or not at all. An allow-always that no grant can
 * be scoped to throws, rolling the decision back: the route refuses such a
 * decision with 409 before it gets here, and if it ever did get here,
 * recording "always" while granting nothing would tell the person something
 * false.
 */
export function issueGrantWithinDecision(approval: ApprovalRecord, deps: GrantIssuerDeps): void {
  if (approval.decision !== 'allow-always' || approval.decidedBy !== 'user') return
  const scope = grantScopeFor(approval)
  if (!scope.ok) throw new Error(`always allow is unavailable: ${scope.reason}`)
  const grant: Grant = {
    id: (deps.newId ?? randomUUID)(),
    roomId: approval.roomId,
    ...scope.draft,
    approvalId: approval.id,
    createdAt: deps.now(),
  }
  deps.grants.insert(grant)
  deps.audit.append({
    type: 'grant_created',
    subjectId: grant.id,
    payload: grant,
    at: grant.createdAt,
  })
}

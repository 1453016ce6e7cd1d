import type { Grant } from '../../contracts/room.ts'

/** An MCP call as grants are matched against it: the exact tool
 *  definition (what a per-tool grant answers for) and the hash of the
 *  server's whole tool list now (what a server-wide grant answers for). */
export interface McpGrantKey {
  serverId: string
  toolName: string
  definitionHash: string
  serverTools: { hash: string }
}

/**
 * "Always allow" grants. New grants are written only with the decision
 * they stand for (`ApprovalStore.resolve`).
 *
 * Invariants the adapter keeps: a grant whose seal does not verify, or in a
 * room whose own row does not verify or was rolled back, is never returned (it is reported
 * instead); a revocation and its `grant_revoked` event are one transaction,
 * and a revocation reseals the row so it cannot be revived on disk. Writing
 * or revoking a grant moves the rollback counter in the same transaction.
 */
export interface GrantStore {
  /** The room's active grants whose seals verify, oldest first. */
  listActive(roomId: string): Grant[]
  /** The active, verified grant for exactly this MCP tool definition, or
   *  for the whole server while its tool list hashes to what the person
   *  saw. */
  findMcpGrant(roomId: string, key: McpGrantKey): Grant | undefined
  /** The ids of the room's active grants for one MCP server, verified or
   *  not: revoking narrows, so a tampered row is revoked too. */
  activeMcpGrantIds(roomId: string, serverId: string): string[]
  /** Revokes one active grant of the room with its `grant_revoked` event;
   *  false (nothing written) when there is no such active grant. */
  revoke(roomId: string, grantId: string, at: number): boolean
}

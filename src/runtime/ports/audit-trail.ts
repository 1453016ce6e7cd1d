/** An audit event as a writer hands it over. */
export interface NewAuditEvent {
  type: string
  subjectId: string
  payload: Record<string, unknown>
  at: number
}

/** An audit event as stored: chained by hash and sealed by MAC. */
export interface AuditEvent extends NewAuditEvent {
  seq: number
  id: string
  prevHash: string
  hash: string
  /** HMAC under the integrity key over the event's hash; null only on a row
   *  nobody sealed (which never verifies). */
  mac: string | null
}

/** A row whose MAC did not verify, as the store reports it. */
export interface IntegrityProblem {
  table: 'rooms' | 'grants' | 'approver_webhooks'
  rowId: string
  roomId: string
  problem: 'mac_missing' | 'mac_mismatch'
  /** The MAC found on disk (or null): a later, different edit of the same row
   *  is a new problem and is reported again. */
  foundMac: string | null
}

/** What mcp.json's refusal records: the field, why, and what stays in force. */
export interface McpConfigRefusal {
  field: string
  message: string
  serversInForce: string[]
}

/** What a reloaded mcp.json records: the servers now in force, and which
 *  of them it added, changed or removed. */
export interface McpConfigApplied {
  serversInForce: string[]
  added: string[]
  changed: string[]
  removed: string[]
}

/** What agents.json's refusal records: the field, why, and the agents
 *  that stay in force. */
export interface AgentsConfigRefusal {
  field: string
  message: string
  agentsInForce: string[]
}

/**
 * The audit trail as the services outside the store see it: reading it,
 * and the events that record no state change of their own.
 *
 * Invariants the adapter keeps: events are appended to one hash chain whose
 * sealed head moves with every append, in the same transaction; an event is
 * never edited or removed.
 */
export interface AuditTrail {
  /** Every event in `seq` order, as stored (nothing is verified here). */
  list(): AuditEvent[]
  /** Records an `integrity_error` for a row whose seal did not verify:
   *  inside the caller's open transaction when a read happened during a
   *  write (so it commits or rolls back with it), in its own otherwise. */
  recordIntegrityError(problem: IntegrityProblem, at: number): void
  /** Records an `mcp_config_refused` event in its own transaction. */
  recordMcpConfigRefused(refusal: McpConfigRefusal, at: number): void
  /** Records an `mcp_config_applied` event (a reloaded mcp.json now in
   *  force) in its own transaction. */
  recordMcpConfigApplied(applied: McpConfigApplied, at: number): void
  /** Records an `agents_config_refused` event in its own transaction. */
  recordAgentsConfigRefused(refusal: AgentsConfigRefusal, at: number): void
}

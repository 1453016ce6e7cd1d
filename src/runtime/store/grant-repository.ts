import type { DatabaseSync } from 'node:sqlite'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import { GrantScopeSchema, type Grant, type GrantScope } from '../../contracts/room.ts'
import { mcpActionRememberable } from '../../contracts/mcp-gateway.ts'
import type { GrantStore, McpGrantKey } from '../ports/grant-store.ts'
import type { AuditAppender } from './audit-log.ts'
import { inTransaction } from './database.ts'
import type { IntegrityMac, OnTampered } from './integrity-mac.ts'
import { VerifiedRows } from './verified-rows.ts'

export interface GrantRepositoryOptions {
  mac: IntegrityMac
  audit: AuditAppender
  /** Whether the room's own row verified: a tampered room has no grants. */
  roomIntact: (roomId: string) => boolean
  /** Called for every read of a row whose MAC does not verify. */
  onTampered: OnTampered
}

/** "Always allow" grants, each row sealed with a MAC over its content,
 *  including whether and when it was revoked. */
export class SqliteGrantRepository implements GrantStore {
  private readonly db: DatabaseSync
  private readonly options: GrantRepositoryOptions
  private readonly verifiedRows = new VerifiedRows<Grant | undefined>()

  constructor(db: DatabaseSync, options: GrantRepositoryOptions) {
    this.db = db
    this.options = options
  }

  insert(grant: Grant): void {
    const commandJson = grant.command === null ? null : canonicalJson(grant.command)
    this.db
      .prepare(
        'INSERT INTO grants (id, room_id, tool_name, command_json, approval_id, mac, created_at, mcp_server_id, mcp_definition_hash, scope, path, mcp_tool_list_hash, mcp_prompt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        grant.id,
        grant.roomId,
        grant.toolName,
        commandJson,
        grant.approvalId,
        this.options.mac.sign(
          'grant',
          sealedGrantContent({
            ...grant,
            commandJson,
            mcpServerId: grant.mcp?.serverId ?? null,
            mcpDefinitionHash: grant.mcp?.definitionHash ?? null,
            mcpToolListHash: grant.mcp?.toolListHash ?? null,
            mcpPrompt: grant.mcp?.prompt ?? null,
            scope: grant.scope ?? null,
            path: grant.path ?? null,
            revokedAt: null,
          }),
        ),
        grant.createdAt,
        grant.mcp?.serverId ?? null,
        grant.mcp?.definitionHash ?? null,
        grant.scope ?? null,
        grant.path ?? null,
        grant.mcp?.toolListHash ?? null,
        grant.mcp?.prompt ?? null,
      )
  }

  /**
   * The room's active grants whose MACs verify. A grant edited or inserted on
   * disk would answer for a command nobody allowed, so it is reported and
   * left out; and a room whose own row was tampered with has no grants at
   * all until the person confirms its mode again.
   */
  listActive(roomId: string): Grant[] {
    if (!this.options.roomIntact(roomId)) return []
    return this.verified(
      this.db
        .prepare(
          'SELECT * FROM grants WHERE room_id = ? AND revoked_at IS NULL ORDER BY created_at, rowid',
        )
        .all(roomId),
    )
  }

  /** The rows whose MACs verify, as grants; each other row is reported.
   *  A row unchanged since it verified is not verified again: every
   *  judgment reads the room's grants. */
  private verified(rows: ReadonlyArray<Record<string, unknown>>): Grant[] {
    const grants: Grant[] = []
    for (const row of rows) {
      const grant = this.verifiedRows.read(String(row.id), row, () => {
        const value = this.readGrant(row)
        return { value, keep: value !== undefined }
      })
      if (grant !== undefined) grants.push(grant)
    }
    return grants
  }

  /** The row as a grant; undefined, and reported, when its MAC does not
   *  verify, or undefined when its command cannot be read. */
  private readGrant(row: Record<string, unknown>): Grant | undefined {
    const raw = rawGrant(row)
    const mac = row.mac == null ? null : String(row.mac)
    if (!this.options.mac.verify('grant', sealedGrantContent(raw), mac)) {
      this.options.onTampered({
        table: 'grants',
        rowId: raw.id,
        roomId: raw.roomId,
        problem: mac === null ? 'mac_missing' : 'mac_mismatch',
        foundMac: mac,
      })
      return undefined
    }
    const command = raw.commandJson === null ? null : parseCommand(raw.commandJson)
    if (command === undefined) return undefined
    return {
      id: raw.id,
      roomId: raw.roomId,
      toolName: raw.toolName,
      ...(raw.scope === null ? {} : { scope: raw.scope }),
      command,
      ...(raw.path === null ? {} : { path: raw.path }),
      ...(raw.mcpServerId === null || raw.mcpDefinitionHash === null
        ? {}
        : {
            mcp: {
              serverId: raw.mcpServerId,
              definitionHash: raw.mcpDefinitionHash,
              ...(raw.mcpToolListHash === null ? {} : { toolListHash: raw.mcpToolListHash }),
              ...(raw.mcpPrompt === null ? {} : { prompt: raw.mcpPrompt }),
            },
          }),
      approvalId: raw.approvalId,
      createdAt: raw.createdAt,
    }
  }

  /** The active, verified grant for exactly this MCP tool definition, or
   *  for the whole server while its tool list hashes to what the person
   *  saw. A server-wide grant never answers as a per-tool one, nor the
   *  other way round: each matches on its own scope only. */
  findMcpGrant(roomId: string, key: McpGrantKey): Grant | undefined {
    if (!this.options.roomIntact(roomId)) return undefined
    // No grant is made for such an action (grant-scope.ts); a row that
    // claims to be one answers for nothing either.
    if (!mcpActionRememberable(key.toolName)) return undefined
    // Only this server's rows are read and verified: a room with many
    // grants pays for the ones that could answer. A row edited to name
    // another server fails its MAC wherever it is read.
    const rows = this.db
      .prepare(
        'SELECT * FROM grants WHERE room_id = ? AND mcp_server_id = ? AND revoked_at IS NULL ORDER BY created_at, rowid',
      )
      .all(roomId, key.serverId)
    return this.verified(rows).find((grant) => {
      if (grant.mcp?.serverId !== key.serverId) return false
      if (grant.scope === 'mcp-server') {
        return (
          grant.mcp.toolListHash !== undefined && grant.mcp.toolListHash === key.serverTools.hash
        )
      }
      return grant.toolName === key.toolName && grant.mcp.definitionHash === key.definitionHash
    })
  }

  /** The ids of the room's active grants for one MCP server, verified or
   *  not: revoking narrows, so a tampered row is revoked too. */
  activeMcpGrantIds(roomId: string, serverId: string): string[] {
    return this.db
      .prepare(
        'SELECT id FROM grants WHERE room_id = ? AND mcp_server_id = ? AND revoked_at IS NULL ORDER BY created_at, rowid',
      )
      .all(roomId, serverId)
      .map((row) => String(row.id))
  }

  /** Revoking narrows what the agent may do, so it is allowed on any active
   *  row, verified or not; the revoked row is sealed again as revoked, and
   *  its `grant_revoked` event commits with it. */
  revoke(roomId: string, grantId: string, at: number): boolean {
    return inTransaction(this.db, () => {
      if (!this.revokeRow(roomId, grantId, at)) return false
      this.options.audit.append(
        { type: 'grant_revoked', subjectId: grantId, payload: { roomId }, at },
        { count: 'next' },
      )
      return true
    })
  }

  /** Revokes every active grant, verified or not, each with its
   *  `grant_revoked` event naming `reason`, inside the caller's transaction
   *  (whose own event counts the change). */
  revokeAllActive(at: number, reason: string): string[] {
    const rows = this.db
      .prepare('SELECT id, room_id FROM grants WHERE revoked_at IS NULL ORDER BY created_at, rowid')
      .all()
    const revoked: string[] = []
    for (const row of rows) {
      const grantId = String(row.id)
      const roomId = String(row.room_id)
      if (!this.revokeRow(roomId, grantId, at)) continue
      this.options.audit.append({
        type: 'grant_revoked',
        subjectId: grantId,
        payload: { roomId, reason },
        at,
      })
      revoked.push(grantId)
    }
    return revoked
  }

  private revokeRow(roomId: string, grantId: string, at: number): boolean {
    const row = this.db
      .prepare('SELECT * FROM grants WHERE id = ? AND room_id = ? AND revoked_at IS NULL')
      .get(grantId, roomId)
    if (!row) return false
    const mac = this.options.mac.sign(
      'grant',
      sealedGrantContent({ ...rawGrant(row), revokedAt: at }),
    )
    const result = this.db
      .prepare(
        'UPDATE grants SET revoked_at = ?, mac = ? WHERE id = ? AND room_id = ? AND revoked_at IS NULL',
      )
      .run(at, mac, grantId, roomId)
    return Number(result.changes) === 1
  }
}

interface RawGrant {
  id: string
  roomId: string
  toolName: string
  commandJson: string | null
  approvalId: string
  createdAt: number
  mcpServerId: string | null
  mcpDefinitionHash: string | null
  mcpToolListHash: string | null
  mcpPrompt: string | null
  scope: GrantScope | null
  path: string | null
  revokedAt: number | null
}

function rawGrant(row: Record<string, unknown>): RawGrant {
  return {
    id: String(row.id),
    roomId: String(row.room_id),
    toolName: String(row.tool_name),
    commandJson: row.command_json == null ? null : String(row.command_json),
    approvalId: String(row.approval_id),
    createdAt: Number(row.created_at),
    mcpServerId: row.mcp_server_id == null ? null : String(row.mcp_server_id),
    mcpDefinitionHash: row.mcp_definition_hash == null ? null : String(row.mcp_definition_hash),
    mcpToolListHash: row.mcp_tool_list_hash == null ? null : String(row.mcp_tool_list_hash),
    mcpPrompt: row.mcp_prompt == null ? null : String(row.mcp_prompt),
    scope: parseScope(row.scope),
    path: row.path == null ? null : String(row.path),
    revokedAt: row.revoked_at == null ? null : Number(row.revoked_at),
  }
}

/** What a grant's MAC covers: all of it, the revocation included, so a
 *  revoked grant cannot be revived by clearing `revoked_at`. The MCP fields
 *  are sealed when present and left out when absent, so rows written before
 *  they existed still verify, and an MCP grant's server or definition hash
 *  cannot be edited (or removed, turning it into a plain grant) unseen.
 *  The scope and path are sealed the same way: widening a path grant to a
 *  tool grant on disk breaks its MAC. So is a server-wide grant's tool-list
 *  hash: pointing it at another list on disk breaks its MAC too; and a
 *  prompt's name, so the grant list cannot be made to name another. */
function sealedGrantContent(grant: RawGrant): Record<string, unknown> {
  return {
    id: grant.id,
    roomId: grant.roomId,
    toolName: grant.toolName,
    commandJson: grant.commandJson,
    approvalId: grant.approvalId,
    createdAt: grant.createdAt,
    revokedAt: grant.revokedAt,
    ...(grant.mcpServerId === null && grant.mcpDefinitionHash === null
      ? {}
      : { mcpServerId: grant.mcpServerId, mcpDefinitionHash: grant.mcpDefinitionHash }),
    ...(grant.scope === null ? {} : { scope: grant.scope }),
    ...(grant.path === null ? {} : { path: grant.path }),
    ...(grant.mcpToolListHash === null ? {} : { mcpToolListHash: grant.mcpToolListHash }),
    ...(grant.mcpPrompt === null ? {} : { mcpPrompt: grant.mcpPrompt }),
  }
}

/** An unknown scope value reads as the unscoped legacy row it most narrowly
 *  is; its MAC (which covers the raw value) decides whether it counts. */
function parseScope(value: unknown): GrantScope | null {
  const parsed = GrantScopeSchema.safeParse(value)
  return parsed.success ? parsed.data : null
}

function parseCommand(commandJson: string): string[] | undefined {
  try {
    const value: unknown = JSON.parse(commandJson)
    return Array.isArray(value) && value.every((item) => typeof item === 'string')
      ? value
      : undefined
  } catch {
    return undefined
  }
}

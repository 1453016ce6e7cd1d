import type { DatabaseSync } from 'node:sqlite'
import { canonicalJson } from '../../common/canonical-json.ts'
import type { Grant } from '../contracts/room.ts'

export class SqliteGrantRepository {
  private readonly db: DatabaseSync

  constructor(db: DatabaseSync) {
    this.db = db
  }

  insert(grant: Grant): void {
    this.db
      .prepare(
        'INSERT INTO grants (id, room_id, tool_name, command_json, approval_id, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(
        grant.id,
        grant.roomId,
        grant.toolName,
        grant.command === null ? null : canonicalJson(grant.command),
        grant.approvalId,
        grant.createdAt,
      )
  }

  listActive(roomId: string): Grant[] {
    return this.db
      .prepare(
        'SELECT * FROM grants WHERE room_id = ? AND revoked_at IS NULL ORDER BY created_at, rowid',
      )
      .all(roomId)
      .map((row) => ({
        id: String(row.id),
        roomId: String(row.room_id),
        toolName: String(row.tool_name),
        command:
          row.command_json == null ? null : (JSON.parse(String(row.command_json)) as string[]),
        approvalId: String(row.approval_id),
        createdAt: Number(row.created_at),
      }))
  }

  revoke(roomId: string, grantId: string, at: number): boolean {
    const result = this.db
      .prepare(
        'UPDATE grants SET revoked_at = ? WHERE id = ? AND room_id = ? AND revoked_at IS NULL',
      )
      .run(at, grantId, roomId)
    return Number(result.changes) === 1
  }
}

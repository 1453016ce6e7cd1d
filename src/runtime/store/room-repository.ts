import type { DatabaseSync } from 'node:sqlite'
import { canonicalJson } from '../../common/canonical-json.ts'
import { RoomPolicySchema, type RoomPolicy } from '../contracts/policy-axes.ts'
import type { RoomKind } from '../contracts/room.ts'

export interface RoomRow {
  id: string
  kind: RoomKind
  agentId: string
  workspace: string
  title: string
  policy: RoomPolicy
  revision: number
  createdAt: number
}

export interface PermissionRequestRow {
  bodyDigest: string
  resultJson: string
}

export class SqliteRoomRepository {
  private readonly db: DatabaseSync

  constructor(db: DatabaseSync) {
    this.db = db
  }

  insert(room: RoomRow): void {
    this.db
      .prepare(
        `INSERT INTO rooms (id, kind, agent_id, workspace, title, policy_json, revision, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        room.id,
        room.kind,
        room.agentId,
        room.workspace,
        room.title,
        canonicalJson(room.policy),
        room.revision,
        room.createdAt,
      )
  }

  get(id: string): RoomRow | undefined {
    const row = this.db.prepare('SELECT * FROM rooms WHERE id = ?').get(id)
    return row ? toRoom(row) : undefined
  }

  list(): RoomRow[] {
    return this.db.prepare('SELECT * FROM rooms ORDER BY created_at, rowid').all().map(toRoom)
  }

  /** Compare-and-set on the revision: a stale writer changes nothing. */
  updatePolicy(id: string, policy: RoomPolicy, expectedRevision: number): boolean {
    const result = this.db
      .prepare(
        'UPDATE rooms SET policy_json = ?, revision = revision + 1 WHERE id = ? AND revision = ?',
      )
      .run(canonicalJson(policy), id, expectedRevision)
    return Number(result.changes) === 1
  }

  getPermissionRequest(roomId: string, clientRequestId: string): PermissionRequestRow | undefined {
    const row = this.db
      .prepare(
        'SELECT body_digest, result_json FROM permission_requests WHERE room_id = ? AND client_request_id = ?',
      )
      .get(roomId, clientRequestId)
    return row
      ? { bodyDigest: String(row.body_digest), resultJson: String(row.result_json) }
      : undefined
  }

  insertPermissionRequest(
    roomId: string,
    clientRequestId: string,
    bodyDigest: string,
    resultJson: string,
    at: number,
  ): void {
    this.db
      .prepare(
        `INSERT INTO permission_requests (room_id, client_request_id, body_digest, result_json, created_at)
         VALUES (?, ?, ?, ?, ?)`,
      )
      .run(roomId, clientRequestId, bodyDigest, resultJson, at)
  }
}

function toRoom(row: Record<string, unknown>): RoomRow {
  return {
    id: String(row.id),
    kind: row.kind === 'group' ? 'group' : 'direct',
    agentId: String(row.agent_id),
    workspace: String(row.workspace),
    title: String(row.title),
    policy: RoomPolicySchema.parse(JSON.parse(String(row.policy_json))),
    revision: Number(row.revision),
    createdAt: Number(row.created_at),
  }
}

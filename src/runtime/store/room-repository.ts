import type { DatabaseSync } from 'node:sqlite'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import { RoomPolicySchema, type RoomPolicy } from '../../contracts/policy-axes.ts'
import type { RoomKind } from '../../contracts/room.ts'
import { narrowestRoomPolicy } from '../policy/room-policy.ts'
import type { IntegrityMac, OnTampered, RowIntegrity } from './integrity-mac.ts'

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

/**
 * A room as read back. A row whose MAC does not verify comes back with
 * `integrity: 'tampered'` and the narrowest policy for its kind, never the
 * policy it claims: whoever edited the file must not get the wider mode
 * through any reader that forgets to look at `integrity`.
 */
export interface StoredRoom extends RoomRow {
  integrity: RowIntegrity
}

export interface PermissionRequestRow {
  bodyDigest: string
  resultJson: string
}

export interface RoomRepositoryOptions {
  mac: IntegrityMac
  /** Called for every read of a row whose MAC does not verify. */
  onTampered: OnTampered
}

/** Rooms, each row sealed with a MAC over the fields that decide what its
 *  agent may do (see `sealedRoomContent`). */
export class SqliteRoomRepository {
  private readonly db: DatabaseSync
  private readonly options: RoomRepositoryOptions

  constructor(db: DatabaseSync, options: RoomRepositoryOptions) {
    this.db = db
    this.options = options
  }

  insert(room: RoomRow): void {
    const policyJson = canonicalJson(room.policy)
    this.db
      .prepare(
        `INSERT INTO rooms (id, kind, agent_id, workspace, title, policy_json, revision, mac, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        room.id,
        room.kind,
        room.agentId,
        room.workspace,
        room.title,
        policyJson,
        room.revision,
        this.options.mac.sign('room', sealedRoomContent({ ...room, policyJson })),
        room.createdAt,
      )
  }

  get(id: string): StoredRoom | undefined {
    const row = this.db.prepare('SELECT * FROM rooms WHERE id = ?').get(id)
    return row ? this.toRoom(row) : undefined
  }

  list(): StoredRoom[] {
    return this.db
      .prepare('SELECT * FROM rooms ORDER BY created_at, rowid')
      .all()
      .map((row) => this.toRoom(row))
  }

  /**
   * Compare-and-set on the revision: a stale writer changes nothing. The row
   * is sealed again with a fresh MAC, which is how a room reported as
   * tampered becomes trusted again: only after the person chose its mode.
   */
  updatePolicy(id: string, policy: RoomPolicy, expectedRevision: number): boolean {
    const row = this.db
      .prepare('SELECT * FROM rooms WHERE id = ? AND revision = ?')
      .get(id, expectedRevision)
    if (!row) return false
    const policyJson = canonicalJson(policy)
    const revision = expectedRevision + 1
    const mac = this.options.mac.sign(
      'room',
      sealedRoomContent({ ...rawRoom(row), policyJson, revision }),
    )
    const result = this.db
      .prepare(
        'UPDATE rooms SET policy_json = ?, revision = ?, mac = ? WHERE id = ? AND revision = ?',
      )
      .run(policyJson, revision, mac, id, expectedRevision)
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

  private toRoom(row: Record<string, unknown>): StoredRoom {
    const raw = rawRoom(row)
    const mac = row.mac == null ? null : String(row.mac)
    const kind: RoomKind = raw.kind === 'group' ? 'group' : 'direct'
    const intact = this.options.mac.verify('room', sealedRoomContent(raw), mac)
    if (!intact) {
      this.options.onTampered({
        table: 'rooms',
        rowId: raw.id,
        roomId: raw.id,
        problem: mac === null ? 'mac_missing' : 'mac_mismatch',
        foundMac: mac,
      })
    }
    return {
      id: raw.id,
      kind,
      agentId: raw.agentId,
      workspace: raw.workspace,
      title: String(row.title),
      policy: intact ? parsePolicy(raw.policyJson, kind) : narrowestRoomPolicy(kind),
      revision: raw.revision,
      createdAt: Number(row.created_at),
      integrity: intact ? 'ok' : 'tampered',
    }
  }
}

interface RawRoom {
  id: string
  kind: string
  agentId: string
  workspace: string
  policyJson: string
  revision: number
}

function rawRoom(row: Record<string, unknown>): RawRoom {
  return {
    id: String(row.id),
    kind: String(row.kind),
    agentId: String(row.agent_id),
    workspace: String(row.workspace),
    policyJson: String(row.policy_json),
    revision: Number(row.revision),
  }
}

/** What a room's MAC covers: every field that decides what its agent may do
 *  and where, and the revision, so a MAC cannot be moved to another room.
 *  The policy is sealed as the exact text stored, so a row is verified
 *  before anything in it is parsed. */
function sealedRoomContent(room: RawRoom): Record<string, unknown> {
  return {
    id: room.id,
    kind: room.kind,
    agentId: room.agentId,
    workspace: room.workspace,
    policyJson: room.policyJson,
    revision: room.revision,
  }
}

/** A sealed row's policy is what the runtime wrote; if it still does not
 *  parse (a schema change), the narrowest policy is the safe reading. */
function parsePolicy(policyJson: string, kind: RoomKind): RoomPolicy {
  try {
    return RoomPolicySchema.parse(JSON.parse(policyJson))
  } catch {
    return narrowestRoomPolicy(kind)
  }
}

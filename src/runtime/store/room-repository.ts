import type { DatabaseSync } from 'node:sqlite'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import { RoomPolicySchema, type RoomPolicy } from '../../contracts/policy-axes.ts'
import type { RoomKind, RoomPermissions, WorkspaceIdentity } from '../../contracts/room.ts'
import type {
  PermissionRequestRow,
  PolicyChange,
  RoomRow,
  RoomStore,
  StoredRoom,
} from '../ports/room-store.ts'
import type { AuditAppender, SqliteAuditLog } from './audit-log.ts'
import { inTransaction } from './database.ts'
import type { IntegrityMac, OnTampered } from './integrity-mac.ts'
import { VerifiedRows } from './verified-rows.ts'

export type { PermissionRequestRow, RoomRow, StoredRoom } from '../ports/room-store.ts'

export interface RoomRepositoryOptions {
  mac: IntegrityMac
  audit: AuditAppender & Pick<SqliteAuditLog, 'firstSealed'>
  /** Called for every read of a row whose MAC does not verify. */
  onTampered: OnTampered
  /** The narrowest policy a room of this kind can have (the policy's
   *  `narrowestRoomPolicy`): what a row whose seal or policy cannot be
   *  trusted reads as. Injected because what is narrowest is policy, which
   *  the store does not decide. */
  narrowestPolicy: (kind: RoomKind) => RoomPolicy
}

/** Rooms, each row sealed with a MAC over the fields that decide what its
 *  agent may do (see `sealedRoomContent`). */
export class SqliteRoomRepository implements RoomStore {
  private readonly db: DatabaseSync
  private readonly options: RoomRepositoryOptions
  /** A room is read several times per decision (its policy, its folder,
   *  its grants' standing): an unchanged row is verified and parsed once. */
  private readonly verified = new VerifiedRows<StoredRoom>()

  constructor(db: DatabaseSync, options: RoomRepositoryOptions) {
    this.db = db
    this.options = options
  }

  create(row: RoomRow): void {
    inTransaction(this.db, () => {
      this.insert(row)
      this.options.audit.append({
        type: 'room_created',
        subjectId: row.id,
        payload: {
          kind: row.kind,
          agentId: row.agentId,
          workspace: row.workspace,
          // Sealed with the event: what the workspace was, for a row that
          // is later edited on disk (see RoomService's trusted identity).
          ...(row.workspaceIdentity === undefined
            ? {}
            : { workspaceIdentity: row.workspaceIdentity }),
          policy: row.policy,
        },
        at: row.createdAt,
      })
    })
  }

  changePolicy(
    change: PolicyChange,
    permissionsAfter: () => RoomPermissions,
  ): RoomPermissions | undefined {
    return inTransaction(this.db, () => {
      if (
        !this.updatePolicy(
          change.roomId,
          change.policy,
          change.expectedRevision,
          change.repinWorkspace,
        )
      ) {
        return undefined
      }
      const permissions = permissionsAfter()
      this.insertPermissionRequest(
        change.roomId,
        change.clientRequestId,
        change.bodyDigest,
        canonicalJson(permissions),
        change.at,
      )
      this.options.audit.append(
        {
          type: 'room_permission_changed',
          subjectId: change.roomId,
          payload: {
            clientRequestId: change.clientRequestId,
            from: change.fromMode,
            to: change.toMode,
            revision: permissions.revision,
            policy: change.policy,
            ...(change.repinWorkspace == null ? {} : { workspaceIdentity: change.repinWorkspace }),
          },
          at: change.at,
        },
        { count: 'next' },
      )
      return permissions
    })
  }

  sealedCreation(roomId: string): Record<string, unknown> | undefined {
    return this.options.audit.firstSealed('room_created', roomId)?.payload
  }

  pinWorkspace(roomId: string, identity: WorkspaceIdentity, at: number): boolean {
    return inTransaction(this.db, () => {
      const row = this.db.prepare('SELECT * FROM rooms WHERE id = ?').get(roomId)
      if (!row) return false
      const raw = rawRoom(row)
      const mac = row.mac == null ? null : String(row.mac)
      // Sealing an edited row would vouch for whatever was edited into it.
      if (!this.options.mac.verify('room', sealedRoomContent(raw), mac)) return false
      if (raw.workspaceIdentity !== undefined || raw.workspace !== identity.realPath) return false
      const sealed = this.options.mac.sign(
        'room',
        sealedRoomContent({ ...raw, workspaceIdentity: identity }),
      )
      this.db
        .prepare('UPDATE rooms SET workspace_dev = ?, workspace_ino = ?, mac = ? WHERE id = ?')
        .run(identity.dev, identity.ino, sealed, roomId)
      this.options.audit.append({
        type: 'room_workspace_pinned',
        subjectId: roomId,
        payload: { workspaceIdentity: identity },
        at,
      })
      return true
    })
  }

  private insert(room: RoomRow): void {
    const policyJson = canonicalJson(room.policy)
    this.db
      .prepare(
        `INSERT INTO rooms (id, kind, agent_id, workspace, workspace_dev, workspace_ino, title, policy_json, revision, mac, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        room.id,
        room.kind,
        room.agentId,
        room.workspace,
        room.workspaceIdentity?.dev ?? null,
        room.workspaceIdentity?.ino ?? null,
        room.title,
        policyJson,
        room.revision,
        this.options.mac.sign(
          'room',
          sealedRoomContent({ ...room, policyJson, rolledBack: false }),
        ),
        room.createdAt,
      )
  }

  get(id: string): StoredRoom | undefined {
    const row = this.db.prepare('SELECT * FROM rooms WHERE id = ?').get(id)
    return row ? this.toRoom(row) : undefined
  }

  findByAgentWorkspace(agentId: string, workspace: string): StoredRoom | undefined {
    const row = this.db
      .prepare(
        'SELECT * FROM rooms WHERE agent_id = ? AND workspace = ? ORDER BY created_at, rowid LIMIT 1',
      )
      .get(agentId, workspace)
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
   * is sealed again with a fresh MAC and without the rolled-back mark, which
   * is how a room reported as tampered or rolled back becomes trusted
   * again: only after the person chose its mode.
   */
  updatePolicy(
    id: string,
    policy: RoomPolicy,
    expectedRevision: number,
    repinWorkspace?: WorkspaceIdentity | null,
  ): boolean {
    const row = this.db
      .prepare('SELECT * FROM rooms WHERE id = ? AND revision = ?')
      .get(id, expectedRevision)
    if (!row) return false
    const raw = rawRoom(row)
    const workspaceIdentity =
      repinWorkspace === undefined ? raw.workspaceIdentity : (repinWorkspace ?? undefined)
    const policyJson = canonicalJson(policy)
    const revision = expectedRevision + 1
    const mac = this.options.mac.sign(
      'room',
      sealedRoomContent({ ...raw, workspaceIdentity, policyJson, revision, rolledBack: false }),
    )
    const result = this.db
      .prepare(
        `UPDATE rooms SET policy_json = ?, revision = ?, mac = ?, rolled_back = 0,
           workspace_dev = ?, workspace_ino = ?
         WHERE id = ? AND revision = ?`,
      )
      .run(
        policyJson,
        revision,
        mac,
        workspaceIdentity?.dev ?? null,
        workspaceIdentity?.ino ?? null,
        id,
        expectedRevision,
      )
    return Number(result.changes) === 1
  }

  /**
   * Marks every direct room read from a database older than its anchor,
   * inside the caller's transaction: each row whose seal verifies is sealed
   * again as rolled back (same revision, so a pending confirmation still
   * applies). A row whose seal does not verify is left as it is: sealing it
   * would vouch for whatever was edited into it, and it reads as tampered
   * anyway. A group room has no mode anyone could confirm (it always runs
   * at its narrowest), so it is not marked; its grants are revoked with
   * everyone else's.
   */
  markAllRolledBack(): string[] {
    const marked: string[] = []
    const rows = this.db
      .prepare("SELECT * FROM rooms WHERE kind = 'direct' ORDER BY created_at, rowid")
      .all()
    for (const row of rows) {
      const raw = rawRoom(row)
      const mac = row.mac == null ? null : String(row.mac)
      if (!this.options.mac.verify('room', sealedRoomContent(raw), mac)) continue
      const sealed = this.options.mac.sign('room', sealedRoomContent({ ...raw, rolledBack: true }))
      this.db.prepare('UPDATE rooms SET rolled_back = 1, mac = ? WHERE id = ?').run(sealed, raw.id)
      marked.push(raw.id)
    }
    return marked
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

  private insertPermissionRequest(
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
    return this.verified.read(String(row.id), row, () => {
      const room = this.readRoom(row)
      return { value: room, keep: room.integrity === 'ok' }
    })
  }

  private readRoom(row: Record<string, unknown>): StoredRoom {
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
      // An edited row's identity may be the editor's: such a room's
      // identity is taken from its sealed creation record instead.
      ...(intact && raw.workspaceIdentity !== undefined
        ? { workspaceIdentity: raw.workspaceIdentity }
        : {}),
      title: String(row.title),
      policy:
        intact && !raw.rolledBack
          ? parsePolicy(raw.policyJson, kind, this.options.narrowestPolicy)
          : this.options.narrowestPolicy(kind),
      revision: raw.revision,
      createdAt: Number(row.created_at),
      integrity: !intact ? 'tampered' : raw.rolledBack ? 'rolled-back' : 'ok',
    }
  }
}

interface RawRoom {
  id: string
  kind: string
  agentId: string
  workspace: string
  /** Absent on a row made before identities were kept and not pinned
   *  since. */
  workspaceIdentity: WorkspaceIdentity | undefined
  policyJson: string
  revision: number
  /** Read from a database older than its rollback anchor, not confirmed
   *  since. */
  rolledBack: boolean
}

function rawRoom(row: Record<string, unknown>): RawRoom {
  return {
    id: String(row.id),
    kind: String(row.kind),
    agentId: String(row.agent_id),
    workspace: String(row.workspace),
    workspaceIdentity:
      row.workspace_dev == null || row.workspace_ino == null
        ? undefined
        : {
            realPath: String(row.workspace),
            dev: String(row.workspace_dev),
            ino: String(row.workspace_ino),
          },
    policyJson: String(row.policy_json),
    revision: Number(row.revision),
    rolledBack: row.rolled_back != null && Number(row.rolled_back) !== 0,
  }
}

/** What a room's MAC covers: every field that decides what its agent may do
 *  and where, and the revision, so a MAC cannot be moved to another room.
 *  The policy is sealed as the exact text stored, so a row is verified
 *  before anything in it is parsed. The rolled-back mark and the
 *  workspace's device and inode are sealed when set and left out when not,
 *  so rows sealed before they existed still verify, and clearing either on
 *  disk breaks the seal. */
function sealedRoomContent(
  room: Omit<RawRoom, 'workspaceIdentity'> & { workspaceIdentity?: WorkspaceIdentity | undefined },
): Record<string, unknown> {
  return {
    id: room.id,
    kind: room.kind,
    agentId: room.agentId,
    workspace: room.workspace,
    ...(room.workspaceIdentity === undefined
      ? {}
      : { workspaceDev: room.workspaceIdentity.dev, workspaceIno: room.workspaceIdentity.ino }),
    policyJson: room.policyJson,
    revision: room.revision,
    ...(room.rolledBack ? { rolledBack: true } : {}),
  }
}

/** A sealed row's policy is what the runtime wrote; if it still does not
 *  parse (a schema change), the narrowest policy is the safe reading. */
function parsePolicy(
  policyJson: string,
  kind: RoomKind,
  narrowest: (kind: RoomKind) => RoomPolicy,
): RoomPolicy {
  try {
    return RoomPolicySchema.parse(JSON.parse(policyJson))
  } catch {
    return narrowest(kind)
  }
}

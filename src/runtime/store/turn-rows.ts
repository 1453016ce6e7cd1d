import type { DatabaseSync } from 'node:sqlite'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import { RoomPolicySchema } from '../../contracts/policy-axes.ts'
import { TurnSchema, type Message, type Turn, type TurnStatus } from '../../contracts/room.ts'
import type {
  MessagesMark,
  RecentMessage,
  TimelinePageRequest,
  TurnPage,
} from '../ports/conversation-store.ts'
import { messageJson, storedMessage } from './stored-message.ts'

/** No mark: every message stored. */
export const EVERY_MESSAGE: MessagesMark = {
  seq: Number.MAX_SAFE_INTEGER,
  newest: Number.MAX_SAFE_INTEGER,
}

type Row = Record<string, unknown>

/** The `turns` table, row by row. It writes no audit event and opens no
 *  transaction: `SqliteConversationRepository` does both around it, so a
 *  change is never written without its event. */
export class TurnRows {
  private readonly db: DatabaseSync

  constructor(db: DatabaseSync) {
    this.db = db
  }

  insert(turn: Turn): void {
    this.db
      .prepare(
        `INSERT INTO turns (id, room_id, client_request_id, text, attempt, retry_of, workspace, workspace_identity_json, policy_json, plan, status, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        turn.id,
        turn.roomId,
        turn.clientRequestId,
        turn.text,
        turn.attempt,
        turn.retryOf,
        turn.workspace,
        turn.workspaceIdentity === undefined ? null : canonicalJson(turn.workspaceIdentity),
        canonicalJson(turn.policy),
        turn.plan === true ? 1 : 0,
        turn.status,
        turn.createdAt,
      )
  }

  get(id: string): Turn | undefined {
    const row = this.db.prepare('SELECT * FROM turns WHERE id = ?').get(id)
    return row ? toTurn(row) : undefined
  }

  findByClientRequest(roomId: string, clientRequestId: string): Turn | undefined {
    const row = this.db
      .prepare('SELECT * FROM turns WHERE room_id = ? AND client_request_id = ? AND attempt = 1')
      .get(roomId, clientRequestId)
    return row ? toTurn(row) : undefined
  }

  listAttempts(roomId: string, clientRequestId: string): Turn[] {
    return this.db
      .prepare(
        'SELECT * FROM turns WHERE room_id = ? AND client_request_id = ? ORDER BY attempt, rowid',
      )
      .all(roomId, clientRequestId)
      .map(toTurn)
  }

  latestAttempt(roomId: string, clientRequestId: string): number {
    const row = this.db
      .prepare(
        'SELECT MAX(attempt) AS attempt FROM turns WHERE room_id = ? AND client_request_id = ?',
      )
      .get(roomId, clientRequestId)
    return Number(row?.attempt ?? 0)
  }

  setStatus(id: string, status: TurnStatus): void {
    this.db.prepare('UPDATE turns SET status = ? WHERE id = ?').run(status, id)
  }

  list(roomId: string): Turn[] {
    return this.db
      .prepare('SELECT * FROM turns WHERE room_id = ? ORDER BY created_at, rowid')
      .all(roomId)
      .map(toTurn)
  }

  /**
   * One page of the room's turns, oldest first (see `TimelinePageRequest`),
   * and how many turns come before it. Turns are ordered as `list` orders
   * them, by `created_at` then rowid; a page's bound is the position of the
   * turn it names, read first, so a turn of another room (or none) names no
   * position and the answer is undefined.
   */
  page(roomId: string, request: TimelinePageRequest, size: number): TurnPage | undefined {
    let turns: Turn[]
    if (request.kind === 'recent') {
      turns = this.db
        .prepare(
          `SELECT * FROM (SELECT *, rowid AS seq FROM turns WHERE room_id = ?
             ORDER BY created_at DESC, rowid DESC LIMIT ?)
           ORDER BY created_at, seq`,
        )
        .all(roomId, size)
        .map(toTurn)
    } else {
      const at = this.position(roomId, request.turnId)
      if (!at) return undefined
      turns =
        request.kind === 'from'
          ? this.db
              .prepare(
                `SELECT * FROM turns WHERE room_id = ? AND (created_at, rowid) >= (?, ?)
                 ORDER BY created_at, rowid`,
              )
              .all(roomId, at.createdAt, at.seq)
              .map(toTurn)
          : this.db
              .prepare(
                `SELECT * FROM (SELECT *, rowid AS seq FROM turns
                   WHERE room_id = ? AND (created_at, rowid) < (?, ?)
                   ORDER BY created_at DESC, rowid DESC LIMIT ?)
                 ORDER BY created_at, seq`,
              )
              .all(roomId, at.createdAt, at.seq, size)
              .map(toTurn)
    }
    const first = turns[0]
    const start = first ? this.position(roomId, first.id) : undefined
    const earlierTurns = start
      ? Number(
          this.db
            .prepare(
              'SELECT COUNT(*) AS n FROM turns WHERE room_id = ? AND (created_at, rowid) < (?, ?)',
            )
            .get(roomId, start.createdAt, start.seq)?.n ?? 0,
        )
      : 0
    return { turns, earlierTurns }
  }

  /** Where turn `id` of room `roomId` stands in the room's order. */
  private position(roomId: string, id: string): { createdAt: number; seq: number } | undefined {
    const row = this.db
      .prepare('SELECT created_at, rowid AS seq FROM turns WHERE id = ? AND room_id = ?')
      .get(id, roomId)
    return row ? { createdAt: Number(row.created_at), seq: Number(row.seq) } : undefined
  }

  /** Every turn that was running or waiting when the runtime stopped:
   *  nothing runs it any more. */
  interruptUnfinished(): void {
    this.db
      .prepare("UPDATE turns SET status = 'interrupted' WHERE status IN ('running', 'waiting')")
      .run()
  }
}

/** The `messages` table, row by row (see `TurnRows`). */
export class MessageRows {
  private readonly db: DatabaseSync

  constructor(db: DatabaseSync) {
    this.db = db
  }

  insert(message: Message): void {
    this.db
      .prepare(
        'INSERT INTO messages (id, room_id, turn_id, role, text, message_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        message.id,
        message.roomId,
        message.turnId,
        message.role,
        message.text,
        messageJson(message.message),
        message.createdAt,
      )
  }

  list(roomId: string): Message[] {
    return this.db
      .prepare('SELECT * FROM messages WHERE room_id = ? ORDER BY created_at, rowid')
      .all(roomId)
      .map(toMessage)
  }

  /** The messages of the room's turns `turnIds`, oldest first. */
  listOfTurns(roomId: string, turnIds: readonly string[]): Message[] {
    return this.db
      .prepare(
        `SELECT * FROM messages
         WHERE room_id = ? AND turn_id IN (SELECT value FROM json_each(?))
         ORDER BY created_at, rowid`,
      )
      .all(roomId, JSON.stringify(turnIds))
      .map(toMessage)
  }

  /** The room's last `limit` messages, oldest first, without those of the
   *  excluded turns: only what a history is made of (`RecentMessage`). A
   *  turn reads this at every step, so neither the rest of each row nor its
   *  message code is read or parsed. */
  listRecent(
    roomId: string,
    limit: number,
    excludeTurnIds: readonly string[],
    upTo: MessagesMark,
  ): RecentMessage[] {
    // The ids travel as one JSON parameter, so the statement is the same
    // whatever their number and no id is ever spliced into the SQL.
    // `created_at <= newest` leaves out nothing `rowid <= seq` keeps (see
    // MessagesMark): it is there so the index is entered at the mark.
    return (
      this.db
        .prepare(
          `SELECT id, role, text, created_at FROM messages
         WHERE room_id = ? AND created_at <= ? AND rowid <= ?
           AND turn_id NOT IN (SELECT value FROM json_each(?))
         ORDER BY created_at DESC, rowid DESC LIMIT ?`,
        )
        .all(roomId, upTo.newest, upTo.seq, JSON.stringify(excludeTurnIds), limit)
        .map((row) => ({
          id: String(row.id),
          role: row.role as Message['role'],
          text: String(row.text),
          createdAt: Number(row.created_at),
        }))
        // Read newest first, as the index runs, and turned here: sorting them
        // again in SQL cost more than the read.
        .reverse()
    )
  }

  /** The highest rowid stored so far, and the newest `created_at` of the
   *  room's messages now. SQLite gives a new row the highest rowid plus
   *  one, so a message stored later has a higher one, unless the newest
   *  rows were deleted in between (a room deleted): that can only let a
   *  later message under the mark, never put an earlier one above it. The
   *  store never runs VACUUM, the one thing that renumbers rowids. Both are
   *  read in one synchronous call, so no message is stored between them. */
  mark(roomId: string): MessagesMark {
    const seq = this.db.prepare('SELECT max(rowid) AS seq FROM messages').get()?.seq
    const newest = this.db
      .prepare('SELECT max(created_at) AS newest FROM messages WHERE room_id = ?')
      .get(roomId)?.newest
    // A room with no message yet: nothing of it is under the mark.
    return { seq: Number(seq ?? 0), newest: newest == null ? -1 : Number(newest) }
  }
}

function toTurn(row: Row): Turn {
  return TurnSchema.parse({
    id: row.id,
    roomId: row.room_id,
    clientRequestId: row.client_request_id,
    text: row.text,
    attempt: Number(row.attempt),
    retryOf: row.retry_of ?? null,
    workspace: row.workspace,
    ...(row.workspace_identity_json == null
      ? {}
      : { workspaceIdentity: JSON.parse(String(row.workspace_identity_json)) as unknown }),
    policy: RoomPolicySchema.parse(JSON.parse(String(row.policy_json))),
    plan: Number(row.plan) === 1,
    status: row.status,
    createdAt: Number(row.created_at),
  })
}

function toMessage(row: Record<string, unknown>): Message {
  return {
    id: String(row.id),
    roomId: String(row.room_id),
    turnId: String(row.turn_id),
    role: row.role as Message['role'],
    text: String(row.text),
    ...storedMessage('message', row.message_json),
    createdAt: Number(row.created_at),
  }
}

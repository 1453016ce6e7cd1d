import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import type { AgentIdentity } from '../../contracts/agent-request.ts'
import type { RoomPolicy } from '../../contracts/policy-axes.ts'
import type { Grant, Turn } from '../../contracts/room.ts'
import { grantForDecision } from '../agent/grant-issuer.ts'
import { EventBus } from '../events/event-bus.ts'
import type { ExternalActionRequest } from '../external-agents/external-agent-port.ts'
import { ExternalTurnAsker } from '../external-turns/external-turn-asker.ts'
import { ExternalTurnTimeline } from '../external-turns/external-turn-timeline.ts'
import { ApprovalGate } from '../gate/approval-gate.ts'
import { ApprovalRequester } from '../gate/approval-requester.ts'
import { RuleBasedReviewer, type ActionReviewer } from '../policy/reviewer.ts'
import type { DelegatedApprover } from '../ports/delegated-approver.ts'
import type { RoomNow } from '../policy/allower-stands.ts'
import { SqliteAuditLog } from '../store/audit-log.ts'
import type { IntegrityMac } from '../store/integrity-mac.ts'
import {
  openTempDatabase,
  ROOM_ID,
  sqliteStores,
  startTurn,
  turnFixture,
  type SqliteStores,
  roomAsFrozen,
} from './sqlite-stores.ts'

export interface ExternalAskerWorldOptions {
  /** Prefix of the temporary database's folder. */
  prefix: string
  mac: IntegrityMac
  agent: AgentIdentity
  /** The room's workspace (real). */
  workspace: string
  now: () => number
  /** What an allow-always stores (ApprovalGate's `grantFor`). */
  grantFor: (approval: ApprovalRecord) => Grant | undefined
  approvalTtlMs?: number
}

/** Who decides a turn's requests besides the person. */
export interface ExternalAskerParts {
  /** The approve-for-me reviewer; the rule-based one when absent. */
  reviewer?: ActionReviewer
  /** The room's approver webhook, when it has one. */
  delegate?: DelegatedApprover
  turn?: Partial<Turn>
  /** The wait for the disk before an allow is answered; at once when
   *  absent. */
  durable?: () => Promise<void>
  /** The room now (policy/allower-stands.ts); when absent, never narrower
   *  than the turn (`roomAsFrozen`). */
  room?: RoomNow
}

/**
 * An external agent's room over a real SQLite store, as the runtime wires
 * it for an agent's turn: the gate, the requester, the asker and the
 * timeline it records on. No agent runs: a test sends the requests an
 * agent would and records its events.
 */
export class ExternalAskerWorld {
  readonly stores: SqliteStores
  readonly audit: SqliteAuditLog
  readonly gate: ApprovalGate
  readonly close: () => void
  private readonly options: ExternalAskerWorldOptions
  private ids = 0

  constructor(options: ExternalAskerWorldOptions) {
    this.options = options
    const { db, close } = openTempDatabase(options.prefix)
    this.close = close
    this.audit = new SqliteAuditLog(db, { mac: options.mac })
    this.stores = sqliteStores(db, { mac: options.mac, audit: this.audit })
    this.gate = new ApprovalGate({
      approvals: this.stores.approvals,
      events: new EventBus(),
      now: options.now,
      grantFor: options.grantFor,
      // The rollback anchor is current here: the gate's own tests cover a
      // lagging one (approval-gate-anchor.test.ts).
      beforeGrant: () => Promise.resolve(),
    })
  }

  /** A new id, unique in this world. */
  newId(): string {
    this.ids += 1
    return `id-${this.ids}`
  }

  /** A new turn of the room under `policy` (made with the first turn),
   *  its asker and its timeline. */
  askerUnder(
    policy: RoomPolicy,
    parts: ExternalAskerParts = {},
  ): { asker: ExternalTurnAsker; timeline: ExternalTurnTimeline; turn: Turn } {
    const { stores, options } = this
    if (!stores.rooms.get(ROOM_ID)) {
      stores.rooms.create({
        id: ROOM_ID,
        kind: 'direct',
        agentId: options.agent.id,
        workspace: options.workspace,
        title: `${options.agent.name} room`,
        policy,
        revision: 0,
        createdAt: 1,
      })
    }
    const turn = turnFixture({
      id: `turn-${this.newId()}`,
      policy,
      workspace: options.workspace,
      ...parts.turn,
    })
    startTurn(stores, turn)
    const events = new EventBus()
    const newId = () => this.newId()
    const timeline = new ExternalTurnTimeline(turn, {
      conversations: stores.conversations,
      events,
      now: options.now,
      newId,
    })
    const room = parts.room ?? roomAsFrozen(stores, parts.delegate)
    const requester = new ApprovalRequester({
      gate: this.gate,
      approvals: stores.approvals,
      conversations: stores.conversations,
      events,
      reviewer: parts.reviewer ?? new RuleBasedReviewer(),
      now: options.now,
      approvalTtlMs: () => options.approvalTtlMs ?? 60_000,
      newId,
      ...(parts.delegate ? { delegateFor: () => parts.delegate } : {}),
      room,
    })
    const asker = new ExternalTurnAsker(turn, options.agent, timeline, {
      requester,
      grants: stores.grants,
      conversations: stores.conversations,
      now: options.now,
      durable: parts.durable ?? (async () => undefined),
      room,
    })
    return { asker, timeline, turn }
  }
}

let requests = 0

/** Codex's request for `action`, as its client normalizes one, with ids
 *  of its own. */
export function codexRequest(action: ExternalActionRequest['action']): ExternalActionRequest {
  requests += 1
  return {
    requestId: `request-${requests}`,
    protocol: 'codex-app-server',
    sessionId: 'thread-1',
    toolCallId: `agent-call-${requests}`,
    reason: null,
    sandboxMode: 'danger-full-access',
    action,
  }
}

/**
 * A world for one test over a fresh workspace: `ws` in a new folder
 * (`root`, its real path), a clock that moves one millisecond a call, and
 * allow-always grants as the gate writes them. `dispose` closes the
 * database and removes the folder.
 */
export function askerWorldInTempWorkspace(
  prefix: string,
  mac: IntegrityMac,
  agent: AgentIdentity,
): { root: string; workspace: string; world: ExternalAskerWorld; dispose: () => void } {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)))
  const workspace = path.join(root, 'ws')
  mkdirSync(workspace)
  let clock = 1_000
  const world = new ExternalAskerWorld({
    prefix: `${prefix}db-`,
    mac,
    agent,
    workspace,
    now: () => (clock += 1),
    grantFor: (approval) => grantForDecision(approval, { now: () => clock }),
  })
  const dispose = () => {
    world.close()
    rmSync(root, { recursive: true, force: true })
  }
  return { root, workspace, world, dispose }
}

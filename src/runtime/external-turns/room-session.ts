import type { PermissionMode } from '../../contracts/policy-axes.ts'
import { message, type RuntimeMessage } from '../../contracts/runtime-message.ts'
import type { ExternalAgentSession } from '../external-agents/external-agent-port.ts'
import { sameWorkspace, type WorkspaceIdentity } from '../policy/workspace-identity.ts'
import type { ExternalTurnAsker } from './external-turn-asker.ts'
import type { ExternalTurnTimeline } from './external-turn-timeline.ts'

// What ExternalAgentBackend keeps of each room's agent process.

/** The turn an agent's session is serving, if any. */
export interface TurnContext {
  turnId: string
  asker: ExternalTurnAsker
  timeline: ExternalTurnTimeline
}

/** One room's agent process and its session. */
export interface RoomSession {
  agentId: string
  mode: PermissionMode
  workspace: string
  /** The folder it was started in, as pinned then: a session is handed a
   *  turn only for that same folder (see `sessionFor`). */
  workspaceIdentity: WorkspaceIdentity | undefined
  session: ExternalAgentSession
  current: TurnContext | null
  idle: NodeJS.Timeout | null
  /** Stopped because the room was narrowed below `mode` (`roomChanged`). */
  narrowed: boolean
  /** Stopped because the person stopped its turn (`stop`). */
  stoppedByPerson: boolean
}

/**
 * Whether a session started for the folder `started` may serve a turn
 * pinned to `now`. By identity, not by path: a folder replaced at the same
 * path and accepted by the person pins the room's turns to the new folder,
 * but the agent's process still works in the old one, renamed away (its
 * current folder, and every relative path it resolves). It is stopped and
 * a new one started where the turn is. A side without a pin (a turn from
 * before workspaces were pinned) matches only another without one.
 */
export function sameFolder(
  started: WorkspaceIdentity | undefined,
  now: WorkspaceIdentity | undefined,
): boolean {
  if (started === undefined || now === undefined) return started === now
  return sameWorkspace(started, now)
}

/** Why a session's turn ended interrupted though the agent did not end it:
 *  the person stopped it, or the room narrowed below the session's mode. */
export function whyStopped(room: RoomSession): RuntimeMessage {
  return message(room.stoppedByPerson ? 'external.stoppedByPerson' : 'external.stoppedNarrowed')
}

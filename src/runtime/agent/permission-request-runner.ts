import { realpath, stat } from 'node:fs/promises'
import path from 'node:path'
import type { PermissionRequest, PermissionWidening } from '../../contracts/approval.ts'
import { englishText, message, type RuntimeMessage } from '../../contracts/runtime-message.ts'
import type { ToolCallRecord, Turn } from '../../contracts/room.ts'
import type { AgentPreset } from '../domain/agent-preset.ts'
import type { EventBus } from '../events/event-bus.ts'
import type { ApprovalRequester } from '../gate/approval-requester.ts'
import { isInsideRoot } from '../policy/path-containment.ts'
import { isPlanPolicy } from '../policy/permission-modes.ts'
import {
  inGitFolder,
  personOnlyPathsInRoots,
  READ_ONLY_WALK_ENTRIES,
} from '../policy/read-only-walk.ts'
import { sensitivePath, sensitivePathReason } from '../policy/sensitive-paths.ts'
import {
  checkWorkspaceIdentity,
  workspaceIdentityNow,
  workspaceMovedSince,
  type WorkspaceIdentity,
  type WorkspaceMoved,
} from '../policy/workspace-identity.ts'
import type { ConversationStore, ToolCallResult } from '../ports/conversation-store.ts'
import type { ActionOutcome, AgentPermissionRequest } from './agent-model.ts'
import { recordProposedCall } from './call-record.ts'

/** The name a permission request carries in the timeline and its approval. */
export const REQUEST_PERMISSIONS_TOOL = 'request_permissions'

export interface PermissionRequestRunnerDeps {
  conversations: ConversationStore
  /** Where a permission request asks the person. */
  requester: ApprovalRequester
  events: EventBus
  now: () => number
  newId: () => string
}

type PermissionOutcome = Extract<ActionOutcome, { type: 'permissions' }>

/** What the turn may do beyond its frozen policy, granted by the person for
 *  this turn only. Lives with the running turn and nowhere else: the room's
 *  stored mode never changes, and a retry starts without it. */
export interface TurnWidenings {
  /** The folders the person let this turn write, each pinned as the real
   *  directory they were shown (`widenedRoots` reads them). */
  readonly writableRoots: WorkspaceIdentity[]
}

/**
 * The real paths of the turn's widened folders that are still the folders
 * the person was shown. One renamed away and replaced by a link, by
 * another folder of the same name, or removed holds nothing: a command
 * or a write let into it would otherwise land where the link leads, which
 * no one was asked about. Every use reads this, so the check is made
 * again at each call and right before a command starts.
 */
export function widenedRoots(widenings: TurnWidenings): string[] {
  return pinnedWidenedRoots(widenings).map((pinned) => pinned.realPath)
}

/** The same folders with their identities, for a command's start to check
 *  once more when it holds them (held-folders.ts). */
export function pinnedWidenedRoots(widenings: TurnWidenings): WorkspaceIdentity[] {
  return widenings.writableRoots.filter((pinned) => checkWorkspaceIdentity(pinned).ok)
}

/**
 * What moved since the person was asked, checked last before a tool runs
 * (after the wait for the disk): the turn's workspace and, for a call let
 * in through a folder the person let this turn write, each such folder.
 * A file tool walks its path again from `/` and would write whatever
 * folder has the name now, which no one was shown; so the call is refused
 * (fails closed) when any of them is not the folder it was.
 */
export function movedSinceAsked(
  turn: Pick<Turn, 'workspaceIdentity'>,
  widenings: TurnWidenings,
  throughWidened: boolean,
): WorkspaceMoved | null {
  const moved = workspaceMovedSince(turn)
  if (moved !== null || !throughWidened) return moved
  for (const pinned of widenings.writableRoots) {
    const check = checkWorkspaceIdentity(pinned)
    if (!check.ok) return check
  }
  return null
}

/**
 * An agent's request for a permission its room does not give, for this
 * turn: write access to one more directory. It is recorded as a call in the
 * timeline, checked, and asked of the person through the gate's requester
 * as a `permission-request` approval whose canonical action is exactly what
 * widens and for how long; only the person decides it, in the protected
 * window with a consent token, whatever the room's mode (no reviewer judges
 * it). An allowed request widens the running turn's sandbox and is audited;
 * it never touches the room's stored mode, and never becomes a grant.
 *
 * Refused without asking anyone (fail closed): in plan mode (it never asks);
 * for a read-only agent or sandbox, where nothing may be written; under a
 * sandbox that does not confine writes (nothing to widen); for a path that
 * is not an existing directory, is a file-system root, holds credentials or
 * start-up files, is already writable, or lies outside the agent's
 * ceilings. Network access for a command is refused too: the command
 * sandbox gives no command a network under any room mode but full access,
 * and no turn can widen it, so asking the person would suggest that
 * allowing it gives the command one.
 */
export class PermissionRequestRunner {
  private readonly deps: PermissionRequestRunnerDeps

  constructor(deps: PermissionRequestRunnerDeps) {
    this.deps = deps
  }

  async run(
    turn: Turn,
    agent: AgentPreset,
    seq: number,
    asked: AgentPermissionRequest,
    widenings: TurnWidenings,
  ): Promise<PermissionOutcome> {
    const call = recordProposedCall(this.deps, turn, seq, REQUEST_PERMISSIONS_TOOL, {
      ...asked,
      duration: 'turn',
    })
    const checked = await this.widening(turn, agent, asked, widenings)
    if (!checked.ok) return this.settle(call, asked, 'refused', refusal(checked.why, checked.code))

    const permission: PermissionRequest = {
      widen: checked.widen,
      duration: 'turn',
      reason: asked.reason,
    }
    const decided = await this.deps.requester.ask({
      turn,
      call,
      action: {
        kind: 'permission-request',
        toolName: REQUEST_PERMISSIONS_TOOL,
        arguments: { ...permission },
        workingDirectory: turn.workspace,
        summary: summaryOf(permission.widen),
        summaryMessage: summaryMessageOf(permission.widen),
        permission,
      },
      // It widens what the turn may do: the person's to give, never the
      // reviewer's or a webhook's.
      personDecides: true,
    })
    if (decided.status === 'allowed') {
      const words = message('permission.granted', { what: summaryMessageOf(permission.widen) })
      const result: ToolCallResult = { ok: true, output: englishText(words), message: words }
      // Recorded (with its audit event) before the turn relies on it.
      this.deps.conversations.recordWidening(call, decided, result, this.deps.now())
      // Pinned as the folder checked before the person was asked: if it
      // was swapped while they decided, it holds nothing from the start.
      widenings.writableRoots.push(checked.pinned)
      this.deps.events.emit('timeline.updated', { roomId: turn.roomId })
      return { type: 'permissions', request: asked, status: 'succeeded', result }
    }
    if (decided.status === 'expired') {
      return this.settle(
        call,
        asked,
        'expired',
        refusal(message('permission.expired'), 'approval_expired'),
      )
    }
    const denied =
      decided.decidedBy === 'policy'
        ? message('permission.deniedByPolicy')
        : message('permission.deniedByPerson')
    return this.settle(call, asked, 'denied', refusal(denied, 'approval_denied'))
  }

  /** What exactly would widen, resolved as the sandbox will enforce it, or
   *  why the request is refused without asking. */
  private async widening(
    turn: Turn,
    agent: AgentPreset,
    asked: AgentPermissionRequest,
    widenings: TurnWidenings,
  ): Promise<
    | { ok: true; widen: PermissionWidening; pinned: WorkspaceIdentity }
    | { ok: false; code: string; why: RuntimeMessage }
  > {
    if (isPlanPolicy(turn.policy)) {
      return no('not_offered_in_plan', message('permission.inPlan'))
    }
    if (asked.widen.type === 'network') {
      return no('nothing_to_widen', message('permission.network'))
    }
    if (agent.toolPolicy.readOnly) {
      return no('read_only_agent', message('permission.readOnlyAgent', { agent: agent.name }))
    }
    const { sandboxMode } = turn.policy
    if (sandboxMode === 'read-only') {
      return no('sandbox_read_only', message('permission.readOnlyRoom'))
    }
    if (sandboxMode === 'danger-full-access') {
      return no('already_allowed', message('permission.fullAccess'))
    }
    const real = await realDirectory(path.resolve(turn.workspace, asked.widen.path))
    if (real === null) {
      return no('invalid_path', message('permission.notDirectory', { path: asked.widen.path }))
    }
    if (path.parse(real).root === real) {
      return no('too_broad', message('permission.root', { path: real }))
    }
    // A git folder under any name (a bare repository, `git init
    // --separate-git-dir`) is git's as much as `.git` is: a turn widened
    // to it would let commands the person never sees change its hooks.
    if (real.split(path.sep).includes('.git') || inGitFolder(real)) {
      return no('sensitive_path', message('permission.gitDirectory', { path: real }))
    }
    // The sensitive-path table words its reasons in English only; the
    // reason travels as a value beside the path.
    const sensitive = sensitivePathReason(real)
    if (sensitive !== null) {
      return no(
        'sensitive_path',
        message('permission.sensitive', { path: real, reason: sensitive }),
      )
    }
    // A folder that holds credentials or shell start-up files (the home
    // folder above all): the sandbox keeps what the table names read-only
    // in it, but everything beside them, which the table does not know,
    // would be the command's to write for the rest of the turn. A folder
    // too large to look through whole, or with one that cannot be listed,
    // cannot be told apart from one.
    const held = credentialsHeldIn(real)
    if (held !== null) {
      return no('sensitive_path', message('permission.sensitive', { path: real, reason: held }))
    }
    const workspace = await realDirectory(turn.workspace)
    const writable = [workspace, ...widenedRoots(widenings)].filter((root) => root !== null)
    if (writable.some((root) => isInsideRoot(root, real))) {
      return no('already_allowed', message('permission.alreadyWritable', { path: real }))
    }
    const roots = agent.allowedRepositoryRoots
    if (roots !== undefined) {
      const realRoots = await Promise.all(roots.map((root) => realDirectory(root)))
      if (!realRoots.some((root) => root !== null && isInsideRoot(root, real))) {
        return no(
          'outside_agent_roots',
          message('permission.outsideAgentRoots', { path: real, agent: agent.name }),
        )
      }
    }
    const pinned = workspaceIdentityNow(real)
    if (pinned === null || pinned.realPath !== real) {
      return no('invalid_path', message('permission.notDirectory', { path: asked.widen.path }))
    }
    return { ok: true, widen: { type: 'write-directory', path: real }, pinned }
  }

  private settle(
    call: ToolCallRecord,
    asked: AgentPermissionRequest,
    status: 'refused' | 'denied' | 'expired',
    result: ToolCallResult,
  ): PermissionOutcome {
    this.deps.conversations.updateToolCall(call.id, { status, result, at: this.deps.now() })
    this.deps.events.emit('timeline.updated', { roomId: call.roomId })
    return { type: 'permissions', request: asked, status, result }
  }
}

/** What widens, in one line: the card's summary and the audit's. */
export function summaryOf(widen: PermissionWidening): string {
  return englishText(summaryMessageOf(widen))
}

/** `summaryOf` as a code, worded in the person's language. */
export function summaryMessageOf(widen: PermissionWidening): RuntimeMessage {
  return widen.type === 'write-directory'
    ? message('permission.writeSummary', { path: widen.path })
    : message('permission.networkSummary', { command: widen.argv.join(' ') })
}

function no(code: string, why: RuntimeMessage): { ok: false; code: string; why: RuntimeMessage } {
  return { ok: false, code, why }
}

/** A request that widened nothing: the English for the model, the code for
 *  the person. */
function refusal(words: RuntimeMessage, code: string): ToolCallResult {
  return { ok: false, output: englishText(words), code, message: words }
}

/** The real path of an existing directory, or null. Only absolute paths:
 *  a relative one has nothing to be relative to here. */
async function realDirectory(candidate: string): Promise<string | null> {
  if (!path.isAbsolute(candidate)) return null
  try {
    const real = await realpath(candidate)
    return (await stat(real)).isDirectory() ? real : null
  } catch {
    return null
  }
}

/** What makes `folder` hold credentials or shell start-up files, in
 *  English (as the table's reasons are), or null. */
function credentialsHeldIn(folder: string): string | null {
  const walked = personOnlyPathsInRoots([folder])
  if (walked.truncated !== null) {
    return `it holds more than ${READ_ONLY_WALK_ENTRIES} entries, more than are checked for credentials and shell start-up files`
  }
  const [unlistable] = walked.unlistable
  if (unlistable !== undefined)
    return `${unlistable} cannot be listed, so what it holds cannot be checked`
  for (const found of walked.paths) {
    // Judged by where it is, as the walk judged it: `~/.config` holds
    // `.config/fish/conf.d`, below it only `fish/conf.d`.
    const rule = sensitivePath(found)
    if (rule?.class === 'credentials' || rule?.class === 'shell-startup') {
      return `it holds ${found}: ${rule.reason}`
    }
  }
  return null
}

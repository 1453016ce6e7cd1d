import { realpathSync, statSync } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import type { WorkspaceIdentity } from '../../contracts/room.ts'
import { englishText, message, type RuntimeMessage } from '../../contracts/runtime-message.ts'

export type { WorkspaceIdentity } from '../../contracts/room.ts'

/**
 * Whether the workspace is still the folder its room was made for:
 * - `missing`: its path no longer resolves to a directory;
 * - `redirected`: its path resolves somewhere else (a folder on the way was
 *   replaced by a link); the person never chose that place, so only a new
 *   room can;
 * - `replaced`: the path is the same real path, but the folder there is
 *   another one (another device or inode); the person may accept it by
 *   confirming the room's mode again.
 */
export type WorkspaceChange = 'missing' | 'redirected' | 'replaced'

export type WorkspaceIdentityCheck =
  | { ok: true }
  | {
      ok: false
      code: 'workspace_moved'
      change: WorkspaceChange
      /** English, for logs and the model. */
      reason: string
      /** The same, for the person's language. */
      message: RuntimeMessage
    }

/** The identity of the folder at `workspace` now. Throws when it is not an
 *  existing directory. */
export async function pinWorkspace(workspace: string): Promise<WorkspaceIdentity> {
  const real = await realpath(workspace)
  const stats = await stat(real, { bigint: true })
  if (!stats.isDirectory()) throw new Error(`${real} is not a directory`)
  return { realPath: real, dev: String(stats.dev), ino: String(stats.ino) }
}

/** The `pinnedWorkspace` field of a sandbox check for `turn`: its frozen
 *  identity, when it has one. */
export function pinnedWorkspaceOf(turn: { workspaceIdentity?: WorkspaceIdentity | undefined }): {
  pinnedWorkspace?: WorkspaceIdentity
} {
  return turn.workspaceIdentity === undefined ? {} : { pinnedWorkspace: turn.workspaceIdentity }
}

/** The identity of the folder `workspace` resolves to now, or null when
 *  it resolves to no directory. Synchronous, for the turn's admission. */
export function workspaceIdentityNow(workspace: string): WorkspaceIdentity | null {
  try {
    const real = realpathSync.native(workspace)
    const stats = statSync(real, { bigint: true })
    if (!stats.isDirectory()) return null
    return { realPath: real, dev: String(stats.dev), ino: String(stats.ino) }
  } catch {
    return null
  }
}

/**
 * Checks, right before a use, that the pinned workspace's path still
 * resolves to itself and that the folder there has the pinned device and
 * inode. Synchronous, so a caller about to spawn a command can check and
 * spawn with no await between them. Fails closed: a path that cannot be
 * resolved or looked at is `missing`, never assumed unchanged.
 */
export function checkWorkspaceIdentity(pinned: WorkspaceIdentity): WorkspaceIdentityCheck {
  let real: string
  try {
    real = realpathSync.native(pinned.realPath)
  } catch {
    return moved('missing', pinned)
  }
  if (real !== pinned.realPath) return moved('redirected', pinned, real)
  let dev: string
  let ino: string
  let directory: boolean
  try {
    const stats = statSync(real, { bigint: true })
    dev = String(stats.dev)
    ino = String(stats.ino)
    directory = stats.isDirectory()
  } catch {
    return moved('missing', pinned)
  }
  if (!directory) return moved('missing', pinned)
  if (dev !== pinned.dev || ino !== pinned.ino) return moved('replaced', pinned)
  return { ok: true }
}

/** Whether two pins name the same folder: its real path, device and inode. */
export function sameWorkspace(a: WorkspaceIdentity, b: WorkspaceIdentity): boolean {
  return a.realPath === b.realPath && a.dev === b.dev && a.ino === b.ino
}

/** A failed identity check: why the workspace is not the pinned folder. */
export type WorkspaceMoved = Extract<WorkspaceIdentityCheck, { ok: false }>

/**
 * The one check every door makes right before it acts for a turn, after
 * any wait for a person, a grant or the reviewer: null while the turn's
 * pinned workspace is still the folder it was admitted for, and why not
 * otherwise. An allow answers for one folder; one that lands after the
 * folder was swapped, replaced or removed must not act on whatever is at
 * the path now. Every turn is admitted with an identity (a room made
 * before identities were kept is pinned at admission); a turn stored
 * without one predates that, and nothing it could be checked against was
 * kept.
 */
export function workspaceMovedSince(turn: {
  workspaceIdentity?: WorkspaceIdentity | undefined
}): WorkspaceMoved | null {
  if (turn.workspaceIdentity === undefined) return null
  const check = checkWorkspaceIdentity(turn.workspaceIdentity)
  return check.ok ? null : check
}

function moved(
  change: WorkspaceChange,
  pinned: WorkspaceIdentity,
  target?: string,
): WorkspaceIdentityCheck {
  const words =
    change === 'redirected'
      ? message('workspace.redirected', { path: pinned.realPath, target: target ?? '' })
      : message(change === 'missing' ? 'workspace.missing' : 'workspace.replaced', {
          path: pinned.realPath,
        })
  return { ok: false, code: 'workspace_moved', change, reason: englishText(words), message: words }
}

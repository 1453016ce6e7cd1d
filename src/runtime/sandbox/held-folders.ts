import { closeSync, constants, fstatSync, openSync, readlinkSync } from 'node:fs'
import type { WorkspaceIdentity } from '../policy/workspace-identity.ts'

/**
 * The folders a contained command may write, held open by the runtime from
 * before the walk that finds what stays read-only in them until
 * bubblewrap has bound them (`--bind-fd`): bound by what was checked, not
 * by a path looked up again when the sandbox starts.
 *
 * Why: bubblewrap binds a path as it finds it when it starts, milliseconds
 * after the runtime checked the workspace. A command allowed in another
 * room whose workspace holds this one can swap the path for a link in that
 * gap (`renameat2` with RENAME_EXCHANGE, in a loop); bound by path, the
 * link's target, anywhere, became writable (shown: 10 of 150 commands
 * wrote outside). Held, a folder is the one checked however its path
 * changes afterwards.
 */
export interface HeldFolders {
  /** The descriptor holding `root`, or undefined for a root not held. */
  descriptorOf(root: string): number | undefined
  /** Every descriptor held, in the order the roots were given. */
  descriptors: readonly number[]
  /** Whether each held folder is still at its path: checked after the
   *  walk, so the walk read the folders that are bound. */
  stillWhereHeld(): boolean
  release(): void
}

/**
 * Opens each of `roots` (real paths) with no link followed at its end, and
 * checks each that is one of `pinned` (the workspace, a folder the person
 * let the turn write) against its device and inode; null, with everything
 * opened closed again, when a root cannot be opened, is not a folder, or
 * is not the pinned folder (fails closed: the command does not start).
 */
export function holdFolders(
  roots: readonly string[],
  pinned: readonly WorkspaceIdentity[],
): HeldFolders | null {
  const held = new Map<string, number>()
  const release = () => {
    for (const fd of held.values()) closeSync(fd)
    held.clear()
  }
  try {
    for (const root of roots) {
      if (held.has(root)) continue
      held.set(
        root,
        openSync(root, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW),
      )
      const fd = held.get(root) ?? -1
      const pin = pinned.find((each) => each.realPath === root)
      if (pin !== undefined) {
        const stats = fstatSync(fd, { bigint: true })
        if (String(stats.dev) !== pin.dev || String(stats.ino) !== pin.ino) {
          release()
          return null
        }
      }
      if (!where(fd, root)) {
        release()
        return null
      }
    }
  } catch {
    release()
    return null
  }
  return {
    descriptorOf: (root) => held.get(root),
    descriptors: [...held.values()],
    stillWhereHeld: () => [...held].every(([root, fd]) => where(fd, root)),
    release,
  }
}

/** Whether the folder `fd` holds is at `root` now, as the kernel names it. */
function where(fd: number, root: string): boolean {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`) === root
  } catch {
    return false
  }
}

import { closeSync, constants, fstatSync, openSync, readlinkSync } from 'node:fs'
import path from 'node:path'
import type { HiddenFileFolder, ShownEntry } from './hidden-file-folders.ts'

/** Linux's O_PATH: a descriptor that names a file without opening it for
 *  reading, so a named pipe does not block it and a file the runtime may
 *  not read is still held (the same value on x64 and arm64, the only
 *  machines bubblewrap runs on here). */
const O_PATH = 0o10000000

/**
 * The entries of the folders shown as read-only copies
 * (hidden-file-folders.ts), each held open from its folder, itself opened
 * from `/` following no link, until bubblewrap has bound it by its
 * descriptor (`--ro-bind-fd`).
 *
 * Why: bound by its path, an entry is looked up again as bubblewrap starts,
 * milliseconds after the folder was listed, and a bind follows a link. A
 * folder holding a hidden file may lie in a folder another room's command
 * may write (a room on the home folder, whose `.netrc` is hidden): that
 * command can swap an entry (`notes.txt`, `Documents`) for a link to
 * `.ssh/id_ed25519` or `.ssh` in that gap, and the bind then showed this
 * command the key its sandbox hides, under the entry's name. Held, an
 * entry is the file or folder listed, or, when it is a link by then, a link
 * made afresh in the copy, which leads to what this command's sandbox
 * shows there (the hidden place empty), never to what the link reached
 * outside it.
 */
export interface HeldEntries {
  /** The folders as they are to be shown: a folder whose path leads
   *  elsewhere than it did (a link on the way) is hidden whole, an entry
   *  gone is left out, an entry that became a link is shown as that link. */
  folders: HiddenFileFolder[]
  /** Each entry bound, by its path (its folder's path and its name), with
   *  the descriptor holding it, in the order of `folders` and their
   *  entries. */
  bound: ReadonlyArray<{ at: string; fd: number }>
  release(): void
}

/** Holds the bound entries of `folders` (the policy's), as `HeldEntries`
 *  says. Never throws: what cannot be held is not shown. */
export function holdShownEntries(folders: readonly HiddenFileFolder[]): HeldEntries {
  const held = new Map<string, number>()
  const shown = folders.map((folder) => holdFolder(folder, held))
  return {
    folders: shown,
    bound: [...held].map(([at, fd]) => ({ at, fd })),
    release: () => {
      for (const fd of held.values()) closeSync(fd)
      held.clear()
    },
  }
}

function holdFolder(folder: HiddenFileFolder, held: Map<string, number>): HiddenFileFolder {
  if (folder.entries === null || !folder.entries.some((entry) => entry.as === 'bound')) {
    return folder
  }
  let handle: number
  try {
    handle = openFollowingNoLink(null, folder.path, { directory: true })
  } catch {
    // Moved, or a link on the way to it: what it holds now is not what was
    // listed. Fails closed: hidden whole, as a folder that cannot be
    // listed is.
    return { path: folder.path, entries: null }
  }
  try {
    const entries = folder.entries.flatMap((entry): ShownEntry[] => {
      if (entry.as !== 'bound') return [entry]
      return holdEntry(handle, entry.name, path.join(folder.path, entry.name), held)
    })
    return { path: folder.path, entries }
  } finally {
    closeSync(handle)
  }
}

/** The entry `name` of the folder `handle` holds, as it is now: bound by a
 *  descriptor `held` keeps, a link as it reads, or nothing when it is
 *  gone. */
function holdEntry(
  handle: number,
  name: string,
  at: string,
  held: Map<string, number>,
): ShownEntry[] {
  let fd: number
  try {
    fd = openFollowingNoLink(handle, name, { directory: false })
  } catch {
    // Gone since it was listed (bound with `-try` before): not shown.
    return []
  }
  let link: boolean
  try {
    link = fstatSync(fd).isSymbolicLink()
  } catch {
    // What cannot be looked at is not bound.
    link = true
  }
  if (!link) {
    held.set(at, fd)
    return [{ name, as: 'bound' }]
  }
  closeSync(fd)
  try {
    return [{ name, as: 'link', target: readlinkSync(`/proc/self/fd/${handle}/${name}`) }]
  } catch {
    // Changed again since: shown empty rather than as whatever is there.
    return [{ name, as: 'empty-file' }]
  }
}

/**
 * The descriptor (O_PATH) of `relative` below the folder `from` holds, or
 * below `/` for null: one name at a time, each looked up in the folder the
 * one before opened, none followed if it is a link (a folder on the way
 * that is one fails the open; the last, unless `directory`, is held as the
 * link itself, for the caller to see). O_PATH needs no right to read, only
 * to go through, as a path's lookup does.
 */
function openFollowingNoLink(
  from: number | null,
  relative: string,
  last: { directory: boolean },
): number {
  const names = relative.split('/').filter((name) => name !== '')
  let current = from ?? openSync('/', O_PATH | constants.O_DIRECTORY)
  try {
    for (const [i, name] of names.entries()) {
      if (name === '.' || name === '..') throw new Error(`not a name in a folder: ${name}`)
      const folder = i < names.length - 1 || last.directory
      const flags = O_PATH | constants.O_NOFOLLOW | (folder ? constants.O_DIRECTORY : 0)
      const next = openSync(`/proc/self/fd/${current}/${name}`, flags)
      if (current !== from) closeSync(current)
      current = next
    }
    if (current === from) throw new Error('nothing to open below the folder itself')
    return current
  } catch (error) {
    if (current !== from) closeSync(current)
    throw error
  }
}

/** The read-only paths inside the writable roots, each held as
 *  `holdKeptInside` says. */
export interface HeldPaths {
  /** Each path, with the descriptor holding it, in the order given. */
  bound: ReadonlyArray<{ at: string; fd: number }>
  release(): void
}

/**
 * Each of `paths` (real paths: what only a person may change, found in a
 * writable root) held open, looked up from the descriptor its root is held
 * by (`roots`, held-folders.ts: the folder bubblewrap binds there), one
 * name at a time, none followed if it is a link, until bubblewrap has
 * bound it read-only by its descriptor.
 *
 * Why: bound by its path, it was looked up again as bubblewrap started,
 * and a bind follows a link. A command of another room whose workspace
 * holds this one (a room on the home folder) can rename this workspace
 * after its check and make one of its own at its path with `.git` a link
 * to `~/.ssh` (the workspace itself is bound by the folder held, so still
 * this one); the bind of `.git` then put the hidden keys on this command's
 * `.git`. Null, with nothing left open, when any cannot be held, lies in no
 * root held, or is a link by now (each was a real path when the walk found
 * it): fails closed, and the command does not start.
 */
export function holdKeptInside(
  paths: readonly string[],
  roots: ReadonlyMap<string, number | undefined>,
): HeldPaths | null {
  const bound: Array<{ at: string; fd: number }> = []
  const release = () => {
    for (const { fd } of bound) closeSync(fd)
    bound.length = 0
  }
  for (const at of paths) {
    const fd = heldPath(at, roots)
    if (fd === null) {
      release()
      return null
    }
    bound.push({ at, fd })
  }
  return { bound, release }
}

/** `at` held from the innermost root that holds it (the one bound there
 *  last), or null. */
function heldPath(at: string, roots: ReadonlyMap<string, number | undefined>): number | null {
  const root = [...roots.keys()]
    .filter((candidate) => at.startsWith(candidate === '/' ? '/' : `${candidate}/`))
    .sort((a, b) => b.length - a.length)[0]
  const rootFd = root === undefined ? undefined : roots.get(root)
  if (root === undefined || rootFd === undefined) return null
  let fd: number
  try {
    fd = openFollowingNoLink(rootFd, path.relative(root, at), { directory: false })
  } catch {
    // Gone, or a link on the way: not the path the walk found.
    return null
  }
  try {
    if (!fstatSync(fd).isSymbolicLink()) return fd
  } catch {
    // What cannot be looked at is not bound.
  }
  closeSync(fd)
  return null
}

import { randomBytes } from 'node:crypto'
import type { Dirent } from 'node:fs'
import path from 'node:path'
import { DirectoryHandle } from '../tools/anchored-directory.ts'
import { FileRefusal } from '../tools/file-refusal.ts'
import { isInsideRoot } from './path-containment.ts'
import { AFTER_CALL_WALK_ENTRIES, personOnlyPathsInRoots } from './read-only-walk.ts'
import { linkTarget, realPathAllowingMissing } from './real-paths.ts'
import { identityOf } from './made-identity.ts'
import { linksMadeToKept } from './made-links.ts'
import type { MadePersonOnly, PersonOnlyAfterRun } from '../tools/command-launcher.ts'

/** The name a path a command made, and only a person may make, is moved
 *  to: its own name, this, and a random tag, beside it. No rule of the
 *  table reads the new name as what it was (`.git.assent-refused-…` is no
 *  git folder's name, `tasks.json.assent-refused-…` no editor's task
 *  file), and a git folder also loses its `HEAD` (`noLongerGitFolder`),
 *  so nothing runs it, and nothing the command wrote is lost. */
export const REFUSED_SUFFIX = '.assent-refused-'

/** What the `HEAD` of a git folder moved aside is renamed to. */
export const REFUSED_HEAD_SUFFIX = '.assent-refused'

/**
 * What always needs a person that already exists in a command's writable
 * roots when it starts: what the sandbox keeps read-only for it, and what
 * `madeSince` compares with once it has ended.
 */
export interface PersonOnlyAtStart {
  /** The writable roots, real paths. */
  roots: readonly string[]
  /** Each existing person-only path the walk found, as it found it, with
   *  what it was then (`identityOf`): a path is not enough, since a
   *  command can put something of its own where one was. */
  existing: ReadonlyMap<string, string>
  /** Every path the walk found, existing or not (a hooks folder a config
   *  names may not exist yet), for the sandbox's read-only binds. */
  found: readonly string[]
  /** Folders whose entries could not be read already. */
  unlistable: ReadonlySet<string>
  /** Whether what is at an existing path is compared too (`identityOf`),
   *  or only that something is. */
  byIdentity: boolean
  /** Git's places the walk found outside the roots (a hooks folder a
   *  config names elsewhere). */
  elsewhere: readonly string[]
  /** The symbolic links the walk met, each with what it was. */
  links: ReadonlyMap<string, string>
  /** When the walk began, in nanoseconds since the epoch. */
  startedNs: bigint
  /** For a contained command, what its sandbox hides (`withHiddenPlaces`):
   *  a link it makes to that, or to what is kept, is removed after it
   *  (made-links.ts). Absent for a call nothing contains, which could
   *  read and write those places themselves, not only link to them. */
  hidden?: readonly string[]
  /** What the watch leaves where it is though it was not there at the
   *  start (an external agent's turn: turn-made-watch.ts says what). */
  leaves?: (found: string) => boolean
}

/** `start` for a contained command whose sandbox hides `hidden` (real
 *  paths): links it makes to a kept or hidden place are removed. */
export function withHiddenPlaces(
  start: PersonOnlyAtStart,
  hidden: readonly string[],
): PersonOnlyAtStart {
  return { ...start, hidden }
}

/**
 * The person-only paths in `roots` now (personOnlyPathsInRoots, the walk
 * the sandbox's read-only binds come from).
 *
 * `byIdentity`: for a contained command, where what exists is bound
 * read-only, so anything else at such a path afterwards was put there
 * around the binds (a folder above renamed, a link replaced). A call
 * nothing contains (an external agent's command, an MCP tool) could
 * change the file in place anyway, and the person's own allowed edit
 * (`sed -i .envrc`) or their editor's save replaces it, so there only a
 * path that was not there counts.
 */
export function personOnlyAtStart(
  roots: readonly string[],
  options: { byIdentity: boolean } = { byIdentity: false },
): PersonOnlyAtStart {
  const startedNs = BigInt(Date.now()) * 1_000_000n
  const walked = personOnlyPathsInRoots(roots)
  const found = walked.paths
  return {
    roots,
    existing: new Map(
      [...found, ...linkTargetsIn(found, roots)].flatMap((candidate) => {
        const identity = identityOf(candidate)
        return identity === null ? [] : [[candidate, identity] as const]
      }),
    ),
    found,
    unlistable: new Set(walked.unlistable),
    byIdentity: options.byIdentity,
    elsewhere: walked.elsewhere,
    links: new Map(
      walked.links.flatMap((link) => {
        const identity = identityOf(link)
        return identity === null ? [] : [[link, identity] as const]
      }),
    ),
    startedNs,
  }
}

/**
 * After a contained command has ended: every person-only path in its
 * writable roots that did not exist when it started, moved aside.
 *
 * The sandbox keeps what exists read-only, but a mount needs a place to
 * land, so a command can make what was not there: a repository of its own
 * in a subfolder (`sub/.git/config` naming a program git runs, which the
 * person's git or editor then runs outside any sandbox), editor tasks that
 * run when the folder opens, a CI workflow, an `.envrc`. No grant,
 * reviewer, webhook or person's allow of a command answers for that (the
 * same rule as every door), so what the command made is moved aside before
 * anyone, the agent included, is told the command ended.
 *
 * For a contained command (`byIdentity`), what was there is told by what
 * it is, not only by its path: the sandbox
 * keeps a path read-only, not the folder above it (`mv .github old &&
 * mkdir .github`), nor a link's own name (a linked `.envrc` or `.git` is
 * bound at its target), so a command can put its own where the person's
 * was. Whatever is at a path that is not the object that was there at
 * start is moved aside, the person's own moved elsewhere by the command
 * included (it is reported, nothing is lost).
 *
 * Only the outermost new path is moved: moving `sub/.git` takes its hooks
 * and config with it. The walk is the one the sandbox starts from, so what
 * it counts as person-only is the same table. A folder the call made, or
 * made unlistable (`git init sub && chmod 111 sub`: git still goes in), is
 * moved aside too: what it holds cannot be checked. The walk reads up to
 * `AFTER_CALL_WALK_ENTRIES`, so entries a call adds do not hide what it
 * made beside them; past that, `unchecked` says so and the call fails.
 */
export function settleMadePersonOnly(start: PersonOnlyAtStart): PersonOnlyAfterRun {
  const walked = personOnlyPathsInRoots(start.roots, AFTER_CALL_WALK_ENTRIES)
  const unchecked = walked.truncated !== null
  // First: a link removed here is not also moved aside below, where under
  // its new name it would still lead where it did.
  const links =
    start.hidden === undefined
      ? []
      : linksMadeToKept(
          { ...start, kept: [...start.found, ...start.elsewhere], hidden: start.hidden },
          [...new Set([...walked.links, ...walked.paths])],
        )
  const hidden = walked.unlistable.filter((folder) => !start.unlistable.has(folder))
  const targets = linkTargetsIn(walked.paths, start.roots)
  const made = [...new Set([...walked.paths, ...targets, ...hidden])].filter((found) => {
    if (start.leaves?.(found) === true) return false
    const now = identityOf(found)
    if (now === null) return false
    const was = start.existing.get(found)
    return was === undefined || (start.byIdentity && now !== was)
  })
  const outermost = made
    .filter((inner) => !made.some((outer) => outer !== inner && isBeneath(outer, inner)))
    .sort()
  return { made: [...links, ...outermost.map(moveAside)], unchecked }
}

/**
 * Where each of `found` that is a link leads, as real paths, those inside
 * `roots` only: the sandbox binds a linked person-only file at its target
 * and the walk compares the link itself, so a command that renames the
 * target's folder and makes a new file there (`mv ci ci.old && mkdir ci`)
 * gives the link new content without changing it. Each target is compared
 * too. A link whose end is missing leads where its end would be: a file
 * made there is new. A target outside the roots is outside what a
 * contained command may write, and outside what the watch covers.
 */
function linkTargetsIn(found: readonly string[], roots: readonly string[]): string[] {
  const realRoots = roots.flatMap((root) => realPathAllowingMissing(root) ?? [])
  const targets: string[] = []
  for (const candidate of found) {
    const target = linkTarget(candidate)
    if (target !== null && realRoots.some((root) => isInsideRoot(root, target))) {
      targets.push(target)
    }
  }
  return targets
}

/** How often a watched call's roots are walked again while it runs: what
 *  it makes of the table is there for about this long, not until it ends
 *  (a long build, a dev server), while the person's own git or editor may
 *  open it. */
export const MADE_WATCH_INTERVAL_MS = 1_000

/** A walk takes at most this share of the runtime's thread while a call
 *  runs: a large workspace (up to `READ_ONLY_WALK_ENTRIES` entries, some
 *  90 ms a walk) is walked less often, so the rest of the runtime (a
 *  person's click, another agent) is not held up. */
const MADE_WATCH_SHARE = 0.1

/**
 * What a running call (a contained command, an external agent's command,
 * an MCP tool) makes of the person-only table, moved aside while it runs,
 * every `MADE_WATCH_INTERVAL_MS` (or less often, so a walk takes at most
 * a tenth of the runtime's thread), and once more when it has ended
 * (`stop`).
 */
export class MadePersonOnlyWatch {
  private readonly start: PersonOnlyAtStart
  private readonly intervalMs: number
  private readonly made: MadePersonOnly[] = []
  private unchecked = false
  private timer: NodeJS.Timeout | undefined

  constructor(start: PersonOnlyAtStart, intervalMs: number = MADE_WATCH_INTERVAL_MS) {
    this.start = start
    this.intervalMs = intervalMs
    this.next(intervalMs)
  }

  /** Ends the watch with a last walk: everything moved aside since it
   *  began, in the order it was. */
  stop(): PersonOnlyAfterRun {
    clearTimeout(this.timer)
    this.timer = undefined
    this.settle()
    return { made: [...this.made], unchecked: this.unchecked }
  }

  private next(delayMs: number): void {
    this.timer = setTimeout(() => {
      const began = performance.now()
      try {
        this.settle()
      } catch {
        // Never expected (each walk and rename catches its own failures),
        // and never the runtime's end: the next walk, and the last one at
        // `stop`, whose failure the call's result carries, try again.
      }
      const took = performance.now() - began
      this.next(Math.max(this.intervalMs, took / MADE_WATCH_SHARE))
    }, delayMs)
    // A call's watch never keeps the runtime alive on its own.
    this.timer.unref()
  }

  private settle(): void {
    const after = settleMadePersonOnly(this.start)
    // What could not be moved is found again by every later walk: it is
    // said once for each reason.
    const fresh = after.made.filter(
      (each) =>
        each.movedTo !== null ||
        each.removedLinkTo !== undefined ||
        !this.made.some((was) => was.path === each.path && was.failure === each.failure),
    )
    this.made.push(...fresh)
    this.unchecked ||= after.unchecked
  }
}

/**
 * Moves `found` aside within its own folder, held open as a handle.
 *
 * The call may still be running (the watch walks while it does, and an MCP
 * server or an external agent outlives any one call), so any folder on the
 * way may be swapped for a link to somewhere else between the walk and the
 * rename: a rename by path would then rename another repository's `.git`
 * or `HEAD`. The folder is opened from `/`, one component at a time,
 * following no link (anchored-directory.ts), and the rename names the
 * entry through that handle: it acts in the folder the walk went through,
 * wherever that folder is by then, or fails. A link on the way fails the
 * open, and the path is said not moved, so the call fails (fail closed:
 * what it made is still there). Where this system offers no directory
 * handles, nothing is renamed, for the same reason, and that is said.
 */
function moveAside(found: string): MadePersonOnly {
  const name = path.basename(found)
  const movedName = `${name}${REFUSED_SUFFIX}${randomBytes(4).toString('hex')}`
  const movedTo = path.join(path.dirname(found), movedName)
  let folder: DirectoryHandle | undefined
  try {
    folder = DirectoryHandle.openSync(path.dirname(found), { create: false })
    // A rename replaces what is at its target: nothing there is replaced.
    if (folder.lstatSync(movedName) !== null) {
      return { path: found, movedTo: null, failure: `${movedTo} exists` }
    }
    folder.renameSync(name, movedName)
    return { path: found, movedTo, failure: noLongerGitFolder(folder, movedName) }
  } catch (error) {
    const failure =
      error instanceof FileRefusal && error.code === 'symlink_refused'
        ? `its folder changed while the call ran (${error.message})`
        : (error as Error).message
    return { path: found, movedTo: null, failure }
  } finally {
    folder?.closeSync()
  }
}

/** How many entries of a moved folder are read for the `HEAD`s in it. */
const MOVED_FOLDER_ENTRIES = 10_000

/**
 * A git folder keeps its shape under any name: git run inside it takes it
 * for a bare repository, whose config and hooks then apply. Without a
 * `HEAD` it is no git folder at all, so a person who goes in to read what
 * was moved runs nothing. A git folder may hold others (a submodule's in
 * `modules/<name>`, a worktree's in `worktrees/<name>`, whose `commondir`
 * leads back to the objects and refs), each a repository to git run
 * inside it: every `HEAD` in the moved folder is renamed, at any depth.
 * Each folder is held open and entered from the one above by its handle,
 * never by path, so a folder swapped for a link meanwhile is not followed
 * (its `HEAD`s are said left instead).
 * Null once none is left (or there never was one), else why one may be.
 */
function noLongerGitFolder(parent: DirectoryHandle, movedName: string): string | null {
  const failures: string[] = []
  let read = 0
  const walk = (folder: DirectoryHandle): boolean => {
    let entries: Dirent[]
    try {
      entries = folder.entriesSync()
    } catch (error) {
      failures.push(`${folder.shownPath} could not be read (${(error as Error).message})`)
      return true
    }
    read += entries.length
    if (read > MOVED_FOLDER_ENTRIES) return false
    for (const entry of entries) {
      // Links are not followed: what they lead to was not moved.
      if (entry.isDirectory()) {
        let inner: DirectoryHandle
        try {
          inner = folder.openChildSync(entry.name, { create: false })
        } catch (error) {
          failures.push(
            `${folder.shownPath}/${entry.name} could not be opened (${(error as Error).message})`,
          )
          continue
        }
        try {
          if (!walk(inner)) return false
        } finally {
          inner.closeSync()
        }
      } else if (entry.name === 'HEAD') {
        try {
          folder.renameSync('HEAD', `HEAD${REFUSED_HEAD_SUFFIX}`)
        } catch (error) {
          failures.push(
            `${folder.shownPath}/HEAD could not be renamed (${(error as Error).message})`,
          )
        }
      }
    }
    return true
  }
  let moved: DirectoryHandle
  try {
    if (parent.lstatSync(movedName)?.isDirectory() !== true) return null
    moved = parent.openChildSync(movedName, { create: false })
  } catch (error) {
    return `it could not be read (${(error as Error).message}); remove it`
  }
  try {
    if (!walk(moved)) {
      return `it holds more than ${MOVED_FOLDER_ENTRIES} entries, so a git folder in it may still be one; remove it`
    }
  } finally {
    moved.closeSync()
  }
  if (failures.length === 0) return null
  return `${failures.join('; ')}, so git may still take it for a repository; remove it`
}

function isBeneath(outer: string, inner: string): boolean {
  return inner.startsWith(outer + path.sep)
}

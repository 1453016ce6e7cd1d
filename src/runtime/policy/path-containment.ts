import { lstatSync, readlinkSync, realpathSync, type Stats } from 'node:fs'
import path from 'node:path'

/**
 * Resolving a requested path to the real file it would touch, and deciding
 * whether that file lies inside a root.
 *
 * Every check here works on real paths: symlinks in the existing part of the
 * path are followed, so a link inside the workspace that points elsewhere is
 * judged by where it points. Callers must act on the returned path, not on
 * what they were asked, so the answer cannot be swapped for a different
 * file between the check and the act.
 *
 * The calls are synchronous: each is one system call on the workspace's
 * disk, and as a promise it cost a thread-pool round trip several times
 * that, twice per tool call (docs/benchmarks-history.md).
 */

export type ContainmentFailureCode = 'invalid_path' | 'outside_root' | 'root_unavailable'

export type Containment =
  { ok: true; path: string } | { ok: false; code: ContainmentFailureCode; reason: string }

export type ResolvedTarget =
  { ok: true; path: string } | { ok: false; code: 'invalid_path'; reason: string }

/** The kernel gives up after 40 symlink hops; so do we. */
const MAX_SYMLINK_HOPS = 40

/** Pure: whether `realPath` is `realRoot` itself or lies beneath it. Both
 *  must already be real, absolute paths. Uses `path.relative` rather than a
 *  string prefix, so `/tmp/ws-evil` is not mistaken for a child of
 *  `/tmp/ws`, while a child named `..foo` is still recognised as inside. */
export function isInsideRoot(realRoot: string, realPath: string): boolean {
  if (!path.isAbsolute(realRoot) || !path.isAbsolute(realPath)) return false
  const rel = path.relative(realRoot, realPath)
  if (rel === '') return true
  if (path.isAbsolute(rel)) return false
  return rel !== '..' && !rel.startsWith(`..${path.sep}`)
}

/** Why a requested path is refused before it touches the file system, or
 *  null. A `..` segment is refused even when it would land back inside the
 *  root: a request that climbs out and back in is an escape attempt, and
 *  refusing it outright keeps the rule simple enough to audit. Both
 *  separators count, so `a\..\b` is refused on every platform. */
function lexicalProblem(requested: string): string | null {
  if (requested.includes('\0')) return 'the path contains a NUL byte'
  if (requested.split(/[\\/]/).includes('..')) return 'the path contains a ".." segment'
  return null
}

/**
 * Resolves `requested` (absolute, or relative to `base`) to the real path it
 * names: the longest existing ancestor is realpath'd, following symlinks,
 * and the part that does not exist yet is appended. A dangling symlink is
 * followed to where it points, because writing through it would create the
 * file there. The empty path means `base` itself; trailing separators are
 * dropped. `base` should itself be real.
 */
export async function resolveTarget(requested: string, base: string): Promise<ResolvedTarget> {
  const problem = lexicalProblem(requested)
  if (problem !== null) return { ok: false, code: 'invalid_path', reason: problem }
  try {
    return { ok: true, path: realpathAllowingMissing(path.resolve(base, requested)) }
  } catch (error) {
    return { ok: false, code: 'invalid_path', reason: describeError(error) }
  }
}

/**
 * Resolves `requested` against `root` and accepts it only if the real path
 * is `root` itself or inside it. Fails closed: a root that cannot be
 * resolved, a path that cannot be resolved (permission denied, symlink
 * loop), or any doubt about where the path lands is a refusal.
 */
export async function resolveInside(root: string, requested: string): Promise<Containment> {
  let realRoot: string
  try {
    realRoot = realpathSync.native(root)
  } catch (error) {
    return {
      ok: false,
      code: 'root_unavailable',
      reason: `the root ${root} cannot be resolved: ${describeError(error)}`,
    }
  }
  return resolveInsideRealRoot(realRoot, requested)
}

/** As `resolveInside`, for a root its caller has just resolved to its real
 *  path (the sandbox's workspace), so it is not resolved a second time. */
export async function resolveInsideRealRoot(
  realRoot: string,
  requested: string,
): Promise<Containment> {
  const target = await resolveTarget(requested, realRoot)
  if (!target.ok) return target
  if (!isInsideRoot(realRoot, target.path)) {
    return {
      ok: false,
      code: 'outside_root',
      reason: `${requested} resolves to ${target.path}, outside ${realRoot}`,
    }
  }
  return { ok: true, path: target.path }
}

function realpathAllowingMissing(absolute: string): string {
  let current = absolute
  const missing: string[] = []
  let hops = 0
  for (;;) {
    // Looked at first, so a name that does not exist yet (every new file)
    // costs one status call, not a failed realpath and a thrown error.
    const stats = entryStatus(current)
    if (stats !== undefined) {
      try {
        return path.join(realpathSync.native(current), ...missing)
      } catch (error) {
        if (!isMissing(error)) throw error
      }
    }
    // A link that exists but does not resolve: it dangles.
    const danglingLink = stats?.isSymbolicLink() === true ? linkTarget(current) : null
    if (danglingLink !== null) {
      hops += 1
      if (hops > MAX_SYMLINK_HOPS) throw new Error('too many levels of symbolic links')
      // A link target with `..` is resolved lexically here but physically by
      // the kernel; the two differ when a symlink precedes the `..`, so such
      // a link is refused rather than guessed at.
      if (danglingLink.split(/[\\/]/).includes('..')) {
        throw new Error(`the dangling symlink ${current} points through ".."`)
      }
      const linkDir = realpathSync.native(path.dirname(current))
      current = path.resolve(linkDir, danglingLink)
      continue
    }
    const parent = path.dirname(current)
    if (parent === current) throw new Error(`no part of ${absolute} exists`)
    missing.unshift(path.basename(current))
    current = parent
  }
}

/** The entry's own status (a link is not followed), or undefined when no
 *  entry has that name. */
function entryStatus(p: string): Stats | undefined {
  try {
    return lstatSync(p, { throwIfNoEntry: false })
  } catch (error) {
    // ENOTDIR: a name below a file, which cannot exist either.
    if (isMissing(error)) return undefined
    throw error
  }
}

/** Where the link `p` points, or null when it is gone since it was seen. */
function linkTarget(p: string): string | null {
  try {
    return readlinkSync(p)
  } catch (error) {
    if (isMissing(error)) return null
    throw error
  }
}

/** ENOTDIR counts as missing: `file.txt/child` cannot exist, and the write
 *  that tries it will fail on its own without touching anything. */
function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

function describeError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code
  if (code === 'ELOOP') return 'too many levels of symbolic links'
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied while resolving it'
  return error instanceof Error ? error.message : String(error)
}

import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'

/** The git worktree a path is in: the nearest folder upwards holding `.git`. */
export function worktreeOf(start: string): string | undefined {
  let current = resolve(start)
  for (;;) {
    if (existsSync(join(current, '.git'))) return current
    const parent = dirname(current)
    if (parent === current) return undefined
    current = parent
  }
}

/** The real path of `path`, resolving its longest existing ancestor, so a
 *  symlink cannot carry an evidence folder back into the checkout. */
export function realPathOf(path: string): string {
  let existing = resolve(path)
  const rest: string[] = []
  while (!existsSync(existing)) {
    const parent = dirname(existing)
    if (parent === existing) break
    rest.unshift(existing.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)))
    existing = parent
  }
  return join(realpathSync(existing), ...rest)
}

export function isInside(root: string, path: string): boolean {
  const inside = relative(root, path)
  return inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))
}

/**
 * Refuses an evidence folder that is relative, inside the git worktree
 * (evidence is never committed), or an existing non-empty folder (unless
 * `force`): screenshots from two runs must not mix.
 */
export function checkEvidencePath(evidence: string, projectRoot: string, force: boolean): string {
  if (!isAbsolute(evidence)) throw new Error(`the evidence folder must be absolute: ${evidence}`)
  const real = realPathOf(evidence)
  const worktree = worktreeOf(projectRoot)
  if (worktree && isInside(realpathSync(worktree), real)) {
    throw new Error(`the evidence folder must be outside the git worktree ${worktree}: ${evidence}`)
  }
  if (existsSync(real)) {
    if (!statSync(real).isDirectory())
      throw new Error(`the evidence path is not a folder: ${evidence}`)
    if (readdirSync(real).length > 0 && !force) {
      throw new Error(
        `the evidence folder is not empty (use --force to write into it): ${evidence}`,
      )
    }
  }
  return real
}

import { lstatSync, unlinkSync } from 'node:fs'
import path from 'node:path'
import { DirectoryHandle } from '../tools/anchored-directory.ts'
import type { MadePersonOnly } from '../tools/command-launcher.ts'
import { identityOf } from './made-identity.ts'
import { isInsideRoot } from './path-containment.ts'
import { linkTarget } from './real-paths.ts'
import { LONGEST_FOLDER_RULE_SEGMENTS, sensitivePath } from './sensitive-paths.ts'

/** What the links check of a contained command starts from. */
export interface LinksAtStart {
  /** The writable roots, real paths. */
  roots: readonly string[]
  /** What is kept for the person: in the roots (the walk's `found`), and
   *  git's places it found elsewhere. */
  kept: readonly string[]
  /** The symbolic links the walk met when the command started, and what
   *  the table names it found, each with what it was (`identityOf`). */
  links: ReadonlyMap<string, string>
  existing: ReadonlyMap<string, string>
  /** What the sandbox hides from the command, real paths. */
  hidden: readonly string[]
  /** When the walk before the command began, in nanoseconds since the
   *  epoch. */
  startedNs: bigint
}

/** How much earlier than its start a link may have been born and still
 *  count as the command's: the kernel stamps a new file from a clock that
 *  may lag the one the runtime reads by a tick of a few milliseconds. */
export const MADE_SINCE_SLACK_NS = 50_000_000n

/**
 * The symbolic links a contained command made in its writable roots that
 * lead where it could not go, each removed.
 *
 * The sandbox keeps what only a person may change read-only and hides the
 * person's credentials and Assent's data by their paths; a link is only a
 * name, so a command may make one to any of them (`ln -s ~/.ssh notes`,
 * `ln -s .git/hooks tools`): inside the sandbox it leads to the read-only
 * or empty place, and is harmless there. But it stays once the command
 * has ended, outside the sandbox: the person's own tools follow it (an
 * editor's search and replace, `zip -r`, `rsync -L`, a backup), and so
 * does a later call an allow answered for that reads or writes a folder
 * without naming what is in it (an MCP server's folder tool, an external
 * agent's `grep -R`), reaching under an innocent name the keys the
 * sandbox hid or the hooks it kept. So such a link is not left: one that
 * leads to a place the table keeps for the person, into one kept in the
 * roots, or into, or to a folder holding, a place the sandbox hid.
 *
 * Removed, not moved aside: a link under another name still leads there.
 * Nothing is lost, as what it led to is said. Only a link made while the
 * command ran: not there at its start, and born since (a link past the
 * start's walk, or the person's own, is left). Removed through its
 * folder's handle (anchored-directory.ts), and only while it is still the
 * link that was judged.
 */
export function linksMadeToKept(start: LinksAtStart, found: readonly string[]): MadePersonOnly[] {
  const removed: MadePersonOnly[] = []
  for (const link of found) {
    const identity = identityOf(link)
    const was = start.links.get(link) ?? start.existing.get(link)
    if (identity === null || was === identity || !bornSince(link, start)) continue
    const target = linkTarget(link)
    if (target === null) continue
    const why = keptPlaceReached(target, start)
    if (why === null) continue
    removed.push(removeLink(link, identity, `${target} (${why})`))
  }
  return removed
}

/** Why `target` (a real path) is a place no made link may lead, or null. */
function keptPlaceReached(target: string, start: LinksAtStart): string | null {
  const kept = start.kept.find((place) => isInsideRoot(place, target))
  if (kept !== undefined) return `${kept} is kept for the person`
  const hidden = start.hidden.find((place) => isInsideRoot(place, target))
  if (hidden !== undefined) return `${hidden} is hidden from commands`
  const held = start.hidden.find((place) => isInsideRoot(target, place))
  if (held !== undefined) return `it holds ${held}, which is hidden from commands`
  // Judged by its path below the root it is in, with the root's own last
  // names before it, as the walk judges names (a workspace may itself lie
  // below a folder a rule names, and a rule may span a widened folder's
  // name and what is in it: `.config/autostart`); outside the roots, by
  // its whole path.
  const root = start.roots.find((candidate) => isInsideRoot(candidate, target))
  if (root === target) return null
  const finding = sensitivePath(root === undefined ? target : judgedBelow(root, target))
  return finding === null ? null : finding.reason
}

function judgedBelow(root: string, target: string): string {
  const names = root.split(path.sep).filter((name) => name !== '')
  const above = names.slice(Math.max(0, names.length - (LONGEST_FOLDER_RULE_SEGMENTS - 1)))
  return path.join('.', ...above, path.relative(root, target))
}

function bornSince(link: string, start: LinksAtStart): boolean {
  try {
    const stats = lstatSync(link, { bigint: true })
    const born = stats.birthtimeNs !== 0n ? stats.birthtimeNs : stats.ctimeNs
    return born >= start.startedNs - MADE_SINCE_SLACK_NS
  } catch {
    return false
  }
}

function removeLink(link: string, identity: string, ledTo: string): MadePersonOnly {
  const name = path.basename(link)
  let folder: DirectoryHandle | undefined
  try {
    // The walk names each link in its folder's real path.
    folder = DirectoryHandle.openSync(path.dirname(link), { create: false })
    // Still the link judged: a command still running may have put
    // something else of its own there since, which is not this rule's.
    if (identityOf(folder.entry(name)) !== identity) {
      return { path: link, movedTo: null, failure: 'it changed while it was looked at' }
    }
    unlinkSync(folder.entry(name))
    return { path: link, movedTo: null, failure: null, removedLinkTo: ledTo }
  } catch (error) {
    return { path: link, movedTo: null, failure: (error as Error).message }
  } finally {
    folder?.closeSync()
  }
}

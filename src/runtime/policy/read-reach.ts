import { ASSENT_OWN_WHY, assentOwnPathIn } from './assent-own-paths.ts'
import { folderReadReachesOut } from './folder-links.ts'
import { lstatOfTheMoment } from './judgment-moment.ts'
import { isInsideRoot } from './path-containment.ts'
import { realPathOf } from './real-paths.ts'
import { sensitivePath } from './sensitive-paths.ts'
import { workspaceRefusal, workspaceRuleContext } from './workspace-rule.ts'

export interface ReadReachInput {
  /** The room's workspace, as stored (resolved here). */
  workspace: string
  /** The paths as the tool was asked for them. */
  requested: readonly string[]
  /** The real paths the sandbox check resolved them to. */
  resolved: readonly string[]
  /** Folders a read may reach besides the workspace and stay a workspace
   *  read: an MCP server's own folder, which its relative paths mean. One
   *  is counted only where it could be a workspace itself and does not
   *  hold this one (`foldersCountedInside`); one left out, or one that
   *  cannot be resolved, can only make reads private. */
  alsoInside?: readonly string[]
  /** Whether a secret's name makes the read private (true unless given):
   *  false for an action whose every word is a candidate (an MCP call),
   *  whose secrets' names the person-only rule already keeps from every
   *  decider, with its own reason shown (person-only.ts). */
  secretNames?: boolean
  /** Whether a folder among the paths may be read whole, links followed
   *  (false unless given): true for an action whose every word is a
   *  candidate (an MCP call, an external agent's own tool), which may
   *  search or pack a folder it is given; a built-in read opens the one
   *  file it names, and lists a folder without following its links. */
  foldersReadWhole?: boolean
}

/**
 * Why a read reaches beyond the room's workspace, or null when it stays
 * inside: a path that resolves outside the workspace, a path whose reading
 * shows a secret (a credential, a shell start-up file, a git config; as
 * asked or as resolved:
 * a link can hide one behind an innocent name, and a raw name can reveal
 * one the resolved path no longer shows), or a file with more than one
 * name (a hard link inside the workspace may be the only way to a file
 * outside it, and nothing tells where its other names are); and, for a
 * read that may take a folder whole, a link in the folder that leads
 * outside (folder-links.ts).
 *
 * Such a read is a "private read": under every policy that asks, it asks
 * the person (approval-policy.ts), and neither the automatic reviewer nor
 * the approver webhook is given it to decide, whichever door asks
 * (private-read-approval.ts, which the approval requester applies). Fails
 * closed: a workspace that cannot be resolved makes every read private.
 *
 * Synchronous, as the real paths it is given were found (real-paths.ts):
 * each look-up is one system call, where a promise cost a thread-pool
 * round trip, and the pool is shared with the store's fsyncs.
 */
export function privateReadReason(input: ReadReachInput): string | null {
  // Found once in a judgment's moment: its words were resolved from there.
  const realWorkspace = realPathOf(input.workspace)
  if (realWorkspace === null) return `the workspace ${input.workspace} cannot be resolved`
  const roots = [realWorkspace, ...foldersCountedInside(input.alsoInside ?? [], realWorkspace)]
  for (const resolved of input.resolved) {
    if (!roots.some((root) => isInsideRoot(root, resolved))) {
      return `${resolved} is outside the workspace`
    }
  }
  const own = assentOwnPathIn(input.resolved)
  if (own !== null) return `${own}: ${ASSENT_OWN_WHY}`
  // A folder read whole, links followed, reaches wherever a link in it
  // leads (`keys -> ~/.ssh`), though the folder itself is inside.
  if (input.foldersReadWhole === true) {
    // Only the folders a call names are walked: a call naming none reads
    // where its server works, and walking the workspace for every call
    // would cost each one a walk of up to 20 000 entries (folder-links.ts) and,
    // in a workspace larger than that (most with a `node_modules`), leave
    // every call of every server to the person. Such a call is judged by
    // its words alone (a limit, docs/security-model.md).
    const reach = folderReadReachesOut(input.resolved, roots)
    if (reach !== null) return reach
  }
  const named = input.secretNames === false ? [] : [...input.requested, ...input.resolved]
  for (const candidate of named) {
    const sensitive = sensitivePath(candidate)
    if (sensitive?.readAsks === true) return `${candidate}: ${sensitive.reason}`
  }
  for (const resolved of input.resolved) {
    const links = linksOfRegularFile(resolved)
    if (links > 1)
      return `${resolved} has ${links} names (hard links), which may lead outside the workspace`
  }
  return null
}

/**
 * The real paths of those of `folders` a read may reach and stay inside:
 * each must resolve, be a folder the workspace rule would accept as a
 * room's workspace (workspace-rule.ts: not `/`, the home folder itself or
 * a system folder), and not hold the workspace. A stdio server started
 * with no `cwd` works wherever the process that started it does: `/` for
 * a gateway Claude Desktop starts, the home folder for a runtime started
 * there. Counted inside, such a folder would make every read of the
 * person's files a workspace read, which a grant given on one readme, or
 * the approver webhook, would then answer. Left out, a read there is
 * judged against the workspace alone, and asks the person.
 */
function foldersCountedInside(folders: readonly string[], realWorkspace: string): string[] {
  if (folders.length === 0) return []
  const context = workspaceRuleContext()
  const counted: string[] = []
  for (const folder of folders) {
    const real = realPathOf(folder)
    // Left out: a read there is then judged outside, as it may be.
    if (real === null) continue
    if (workspaceRefusal(folder, real, context) !== null) continue
    // A folder that holds the workspace (its parent, the projects folder
    // above it) would reach the workspace's siblings: nobody chose those.
    if (isInsideRoot(real, realWorkspace)) continue
    counted.push(real)
  }
  return counted
}

/** The number of names of a regular file at a real path; 0 for anything
 *  else or anything that cannot be read (the tool reports that itself). */
function linksOfRegularFile(realPath: string): number {
  try {
    const stats = lstatOfTheMoment(realPath)
    return stats?.isFile() === true ? stats.nlink : 0
  } catch {
    return 0
  }
}

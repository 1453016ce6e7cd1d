import { realpathSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/**
 * Which folders can never be a room's workspace. A workspace is where the
 * agent writes and runs commands without asking under `workspace-write`,
 * and where an "always allow" for a tool reaches: the file-system root, the
 * person's whole home folder or a system folder would make that every file
 * the person has, or the machine itself.
 *
 * The rule is judged on the real path (a link to `/` is `/`) and on the
 * path as given, normalized: `/proc/self/cwd` resolves to whatever folder
 * the runtime happens to run in, so its name is what shows it is not a
 * folder the person chose.
 */

/** System folders: refused themselves (and by their real paths, since
 *  `/bin` is `/usr/bin` on most distributions), not what lies inside. */
export const SYSTEM_FOLDERS: readonly string[] = Object.freeze([
  '/bin',
  '/boot',
  '/dev',
  '/etc',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/proc',
  '/root',
  '/run',
  '/sbin',
  '/sys',
  '/usr',
  '/var',
])

/** Trees that hold no folder of the person's at all: the kernel's views of
 *  processes and devices. Nothing inside them is a workspace. */
export const KERNEL_TREES: readonly string[] = Object.freeze(['/proc', '/sys', '/dev'])

/** The one tree inside `/dev` that holds ordinary folders: the shared-memory
 *  file system (a tmpfs). A folder made inside it can be a workspace; the
 *  tree itself, shared by every user, cannot. */
export const SHARED_MEMORY_TREE = '/dev/shm'

export type WorkspaceRefusalKind =
  'filesystem_root' | 'home_folder' | 'system_folder' | 'kernel_tree'

export interface WorkspaceRefusal {
  kind: WorkspaceRefusalKind
  /** English, naming the folder and why: the room creation's refusal. */
  reason: string
}

/** What the rule compares against, read from the machine once per check
 *  (`workspaceRuleContext`) or given by a test. */
export interface WorkspaceRuleContext {
  /** The person's home folder, as given and as its real path. */
  homes: readonly string[]
  /** `SYSTEM_FOLDERS` and, where different, their real paths. */
  systemFolders: readonly string[]
  /** `KERNEL_TREES` and, where different, their real paths. */
  kernelTrees: readonly string[]
}

/** The rule's context on this machine. A folder whose real path cannot be
 *  read is compared by its name alone, which refuses no less. */
export function workspaceRuleContext(home: string = os.homedir()): WorkspaceRuleContext {
  return { homes: withRealPaths([home]), ...systemRealPaths() }
}

let systemKept: Pick<WorkspaceRuleContext, 'systemFolders' | 'kernelTrees'> | null = null

/**
 * The system folders and kernel trees, with their real paths, read once
 * per process: every read an MCP server makes in its own folder asks the
 * rule (read-reach.ts), and these are some twenty look-ups. Where they
 * lead (`/bin` to `/usr/bin`) is the machine's layout, which only its
 * administrator changes, by changing `/` itself; nothing a session runs
 * can (a contained command sees `/` read-only). The home folder's real
 * path is read at every judgment: the person may move or link it.
 */
function systemRealPaths(): Pick<WorkspaceRuleContext, 'systemFolders' | 'kernelTrees'> {
  systemKept ??= {
    systemFolders: withRealPaths(SYSTEM_FOLDERS),
    kernelTrees: withRealPaths(KERNEL_TREES),
  }
  return systemKept
}

/**
 * Why `requested` (absolute, as the person gave it) whose real path is
 * `realPath` cannot be a workspace, or null when it can. Both paths are
 * judged, so neither a link nor a name that resolves elsewhere gets round
 * the rule.
 */
export function workspaceRefusal(
  requested: string,
  realPath: string,
  context: WorkspaceRuleContext,
): WorkspaceRefusal | null {
  for (const candidate of [path.resolve(requested), path.resolve(realPath)]) {
    const refusal = refusalOf(candidate, context)
    if (refusal !== null) return refusal
  }
  return null
}

function refusalOf(candidate: string, context: WorkspaceRuleContext): WorkspaceRefusal | null {
  if (candidate === path.parse(candidate).root) {
    return {
      kind: 'filesystem_root',
      reason: `${candidate} is the file-system root: a workspace there would be every file`,
    }
  }
  if (context.homes.includes(candidate)) {
    return {
      kind: 'home_folder',
      reason: `${candidate} is your home folder: choose a project folder inside it`,
    }
  }
  const tree = context.kernelTrees.find(
    (root) => candidate === root || candidate.startsWith(root + path.sep),
  )
  if (candidate.startsWith(SHARED_MEMORY_TREE + path.sep)) return null
  if (candidate === SHARED_MEMORY_TREE) {
    return {
      kind: 'system_folder',
      reason: `${candidate} is shared memory for every user: choose a folder inside it`,
    }
  }
  if (tree !== undefined) {
    return {
      kind: 'kernel_tree',
      reason: `${candidate} is inside ${tree}, the kernel's view of processes and devices, not a folder`,
    }
  }
  if (context.systemFolders.includes(candidate)) {
    return {
      kind: 'system_folder',
      reason: `${candidate} is a system folder: a workspace there could change the system`,
    }
  }
  return null
}

function withRealPaths(folders: readonly string[]): string[] {
  const out = new Set<string>()
  for (const folder of folders) {
    out.add(path.resolve(folder))
    try {
      out.add(realpathSync.native(folder))
    } catch {
      // Missing on this machine: its name is still refused.
    }
  }
  return [...out]
}

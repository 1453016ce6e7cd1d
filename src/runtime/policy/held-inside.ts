import { lstatSync, realpathSync } from 'node:fs'
import path from 'node:path'
import { AGENT_FILE_CHANGE_TOOL } from '../../contracts/agent-request.ts'
import type { PersonOnly } from './person-only.ts'
import { personOnlyPathsInRoots, READ_ONLY_WALK_ENTRIES } from './read-only-walk.ts'
import { sensitivePath } from './sensitive-paths.ts'

/**
 * Actions that take a whole folder away with what it holds: Assent's own
 * delete (`delete -r vendor`) and an external agent's file change (a
 * delete or a move of a folder). Their one named path is no path of the
 * table, so without a look inside, a door that decides without the
 * person (a delete grant, the reviewer, the webhook) would remove a nested
 * repository's git folder (its hooks, config and history no remote holds),
 * a CI workflow or a key with it.
 */
const TAKES_FOLDERS = new Set(['delete_file', AGENT_FILE_CHANGE_TOOL])

/**
 * The first path only a person may change inside a folder the action
 * takes away (`TAKES_FOLDERS`), or null: a nested repository's `.git`, a
 * workflow, an `.envrc`, a key; anything the sandbox's walk would keep
 * read-only there (read-only-walk.ts). A folder too large to walk whole,
 * or one holding a folder whose entries cannot be read, is as good as one
 * that holds such a path: what it holds is not known, so the person
 * decides.
 *
 * Only Assent's own tools and external agents' file changes are looked
 * at: an MCP tool's or a command's named folder may as well be read (a
 * listing, `make -C sub`), and a contained command cannot remove what the
 * sandbox binds read-only.
 */
export function heldInside(
  touch: { toolName: string; mcpServerId?: string | undefined; workspace: string },
  resolved: readonly string[],
): PersonOnly | null {
  if (touch.mcpServerId !== undefined || !TAKES_FOLDERS.has(touch.toolName)) return null
  for (const candidate of new Set(resolved)) {
    if (!isFolder(candidate)) continue
    // What is in it is read as the workspace's (`.github` holds
    // `.github/workflows`), or as its own outside the workspace.
    const inWorkspace = isInside(realOrAsIs(touch.workspace), candidate)
    const walked = personOnlyPathsInRoots(
      [candidate],
      READ_ONLY_WALK_ENTRIES,
      inWorkspace ? touch.workspace : candidate,
    )
    const [found] = walked.paths
    if (found !== undefined) {
      return {
        path: found,
        class: sensitivePath(found)?.class ?? 'git',
        reason: `it is inside ${candidate}, which the action takes away, and only a person may change it`,
      }
    }
    if (walked.truncated !== null) {
      return {
        path: candidate,
        class: 'unwalked',
        reason: `it holds more than ${READ_ONLY_WALK_ENTRIES} entries, more than are checked for git folders and files that run code`,
      }
    }
    const [unlistable] = walked.unlistable
    if (unlistable !== undefined) {
      return {
        path: unlistable,
        class: 'unlistable',
        reason:
          'its entries cannot be read, so what the action takes away with it cannot be checked',
      }
    }
  }
  return null
}

function realOrAsIs(folder: string): string {
  try {
    return realpathSync.native(folder)
  } catch {
    return folder
  }
}

function isInside(folder: string, candidate: string): boolean {
  const relative = path.relative(folder, candidate)
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative)
}

/** Whether a real folder (not a link to one) is at `candidate` now. */
function isFolder(candidate: string): boolean {
  try {
    return lstatSync(candidate).isDirectory()
  } catch {
    return false
  }
}

import path from 'node:path'
import { BUILT_IN_FILESYSTEM_SERVER_ID, type McpServerConfig } from '../../contracts/mcp-config.ts'
import type { WorkspaceIdentity } from '../../contracts/room.ts'
import {
  workspaceIdentityNow,
  workspaceMovedSince,
  type WorkspaceMoved,
} from '../policy/workspace-identity.ts'
import { workspaceRefusal, workspaceRuleContext } from '../policy/workspace-rule.ts'
import { McpRefusal } from './mcp-refusal.ts'

// The workspace rule (policy/workspace-identity.ts) as MCP calls keep it,
// in a room and at the gateway alike. Here, among the MCP code the gateway
// shares, so its process pins and checks its folder with the one rule
// rather than a copy of it.

/**
 * The folder at `requested` (absolute) now, pinned: what the gateway holds
 * its `--workspace` to from its start. Or why it cannot be one: no
 * directory there, or a folder no room may have (policy/workspace-rule.ts:
 * `/`, the home folder itself, a system folder). The runtime would refuse
 * the gateway's room for it at the first call asked about, while calls
 * that run unasked went on: a server's roots are narrowed to the
 * workspace (mcp-roots.ts), which narrows nothing when it is `/`. An MCP
 * client that starts the gateway in `/` without `--workspace` is told so.
 */
export function pinMcpWorkspace(requested: string): WorkspaceIdentity | { refused: string } {
  const identity = workspaceIdentityNow(requested)
  if (identity === null) return { refused: 'is not an existing directory' }
  const refusal = workspaceRefusal(requested, identity.realPath, workspaceRuleContext())
  return refusal === null ? identity : { refused: `cannot be a workspace: ${refusal.reason}` }
}

/** A call refused because its workspace is no longer the folder its turn
 *  (or its gateway) was pinned to: `detail` is `workspace_moved`, the
 *  agent's code, and `words` say which folder and what became of it. */
export function workspaceMovedRefusal(moved: WorkspaceMoved): McpRefusal {
  return new McpRefusal('not_allowed', moved.reason, moved.code, moved.message)
}

/** Throws `workspaceMovedRefusal` once the folder `pinned` holds is no
 *  longer the one at its path: the consent port's `checkWorkspace`. */
export function refuseIfWorkspaceMoved(pinned: {
  workspaceIdentity?: WorkspaceIdentity | undefined
}): void {
  const moved = workspaceMovedSince(pinned)
  if (moved) throw workspaceMovedRefusal(moved)
}

/**
 * The folder a server this process starts works in: its configured `cwd`,
 * taken from this process's folder as the operating system takes it, or
 * this process's folder. A relative path in its arguments means a place
 * there, which need not be the workspace (a room's servers are shared by
 * every room), so the rule judges it from both. Undefined for a server
 * over HTTP, whose folder is its own, and for the built-in server, which
 * works in the workspace.
 */
export function serverFolderOf(
  server: Pick<McpServerConfig, 'id' | 'transport'>,
): string | undefined {
  if (server.id === BUILT_IN_FILESYSTEM_SERVER_ID || server.transport.type !== 'stdio') {
    return undefined
  }
  return path.resolve(server.transport.cwd ?? '.')
}

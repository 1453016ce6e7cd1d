import path from 'node:path'
import {
  AGENT_COMMAND_TOOL,
  AGENT_FILE_CHANGE_TOOL,
  readAgentRequest,
  type AgentFileChangesArguments,
} from '../../contracts/agent-request.ts'
import type { Grant } from '../../contracts/room.ts'

/** What an allow-always on an external agent's request turns into. */
export type AgentGrantDraft = Pick<Grant, 'toolName' | 'command'> &
  Required<Pick<Grant, 'scope'>> &
  Pick<Grant, 'path'>

export type AgentGrantScope = { ok: true; draft: AgentGrantDraft } | { ok: false; reason: string }

/**
 * The grant an allow-always on an external agent's request stands for, or
 * null when the approval is not an agent's request (the built-in scopes
 * apply). The grant is Assent's: the agent is told "once" every time, so it
 * keeps asking and the grant answers, until the person revokes it.
 *
 * - a command: the exact command line in the exact (real) folder, nothing
 *   wider (no prefix, no "commands like this"); the real folder the window
 *   showed when a link led elsewhere;
 * - a file change: one file, added or edited in place, by its real path
 *   (the one the window showed when a link led elsewhere):
 *   later requests that add or edit exactly that file, and nothing else,
 *   are covered. A change to several files, a delete or a move asks every
 *   time: "always" after seeing one set of files must not stretch to
 *   another, and a delete or a move cannot be undone. What always needs a
 *   person (person-only.ts) is refused a grant by grantScopeFor before
 *   this is asked, and no grant answers for it at the door;
 * - any other tool call: none.
 */
export function agentGrantScope(approval: {
  toolName: string
  arguments: Record<string, unknown>
}): AgentGrantScope | null {
  const request = readAgentRequest(approval.toolName, approval.arguments)
  if (!request) {
    return approval.toolName === AGENT_COMMAND_TOOL || approval.toolName === AGENT_FILE_CHANGE_TOOL
      ? { ok: false, reason: "the agent's request cannot be read" }
      : null
  }
  switch (request.tool) {
    case AGENT_COMMAND_TOOL: {
      // The folder the window showed: the real one bound beside it when a
      // link led elsewhere, else the written one, real when it was judged.
      // Never where the name leads at the click: a link swapped in while
      // the person read would have the grant answer for a folder they
      // never saw named.
      const cwd = request.args.realCwd ?? path.resolve(request.args.cwd)
      return {
        ok: true,
        draft: {
          scope: 'command',
          toolName: AGENT_COMMAND_TOOL,
          command: [request.args.commandLine],
          path: cwd,
        },
      }
    }
    case AGENT_FILE_CHANGE_TOOL: {
      const single = singleEdit(request.args)
      if ('reason' in single) return { ok: false, reason: single.reason }
      // The file the window showed, as for a command's folder above.
      const real = single.realPath ?? path.resolve(single.path)
      return {
        ok: true,
        draft: { scope: 'path', toolName: AGENT_FILE_CHANGE_TOOL, command: null, path: real },
      }
    }
    default:
      return { ok: false, reason: "the agent's tool calls can only be allowed once at a time" }
  }
}

/**
 * Whether `grant`'s scope covers an external agent's request; the door
 * (external-turn-asker.ts) asks person-only.ts first. `resolvedPaths`
 * are the real paths the sandbox check returned for it: the command's folder,
 * or each changed file (and move target) in order.
 */
export function agentGrantCovers(
  grant: Grant,
  request: {
    toolName: string
    arguments: Record<string, unknown>
    resolvedPaths: readonly string[]
  },
): boolean {
  if (grant.toolName !== request.toolName || grant.mcp !== undefined) return false
  const read = readAgentRequest(request.toolName, request.arguments)
  if (!read) return false
  switch (read.tool) {
    case AGENT_COMMAND_TOOL:
      return (
        grant.scope === 'command' &&
        grant.command?.length === 1 &&
        grant.command[0] === read.args.commandLine &&
        grant.path !== undefined &&
        request.resolvedPaths.length === 1 &&
        request.resolvedPaths[0] === grant.path
      )
    case AGENT_FILE_CHANGE_TOOL: {
      const single = singleEdit(read.args)
      return (
        grant.scope === 'path' &&
        !('reason' in single) &&
        grant.path !== undefined &&
        request.resolvedPaths.length === 1 &&
        request.resolvedPaths[0] === grant.path
      )
    }
    default:
      return false
  }
}

/** The one file a change adds or edits in place, or why it is not one;
 *  with the real file a link leads to when the window showed one. */
function singleEdit(
  args: AgentFileChangesArguments,
): { path: string; realPath?: string } | { reason: string } {
  const [only, ...rest] = args.changes
  if (!only || rest.length > 0) return { reason: 'only a change to one file can be always allowed' }
  if (only.change === 'delete') return { reason: 'a delete cannot be always allowed' }
  if (only.movePath !== null) return { reason: 'a move cannot be always allowed' }
  return only.realPath === undefined
    ? { path: only.path }
    : { path: only.path, realPath: only.realPath }
}

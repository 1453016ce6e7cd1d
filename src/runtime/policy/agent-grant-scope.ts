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

/** Why an external agent's command is allowed one run at a time. */
export const AGENT_COMMAND_UNCONTAINED =
  "the agent runs its commands itself, outside Assent's sandbox: each run is allowed on its own"

export type AgentGrantScope = { ok: true; draft: AgentGrantDraft } | { ok: false; reason: string }

/**
 * The grant an allow-always on an external agent's request stands for, or
 * null when the approval is not an agent's request (the built-in scopes
 * apply). The grant is Assent's: the agent is told "once" every time, so it
 * keeps asking and the grant answers, until the person revokes it.
 *
 * - a command: none. The agent runs it itself, outside Assent's sandbox,
 *   and may run it outside its own (the adapters say `danger-full-access`):
 *   a grant answers a command only where a sandbox contains it, as for
 *   Assent's own commands (grant-scope.ts). What an exact command line
 *   does depends on files the agent can change meanwhile (a script, a
 *   config, a build file), so "always" after one look would run what the
 *   person never saw, with nothing to contain it;
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
    case AGENT_COMMAND_TOOL:
      return { ok: false, reason: AGENT_COMMAND_UNCONTAINED }
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
      // None answers, a grant stored before this rule among them: nothing
      // contains what the agent runs (agentGrantScope).
      return false
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

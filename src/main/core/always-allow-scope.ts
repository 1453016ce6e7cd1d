import type { AlwaysAllow, ServerAlwaysAllow } from '../../common/consent-view.ts'
import {
  AGENT_COMMAND_TOOL,
  AGENT_FILE_CHANGE_TOOL,
  readAgentRequest,
} from '../../contracts/agent-request.ts'
import type { CanonicalAction } from '../../contracts/approval.ts'

/** Tools whose grant covers every later call of the tool in the room.
 *  Reads get none: one that asks reaches beyond the workspace, and asks
 *  every time. */
const TOOL_SCOPED = new Set(['write_file'])

/**
 * What "Always allow" would remember for this action, in the runtime's
 * terms (src/runtime/agent/grant-scope.ts, which decides; this only says
 * it in words before the click), or why it is not offered.
 *
 * `runtimeOffers` is the runtime's `alwaysAllowAvailable`: when it says no
 * grant can cover the action, the button is withheld whatever main thinks.
 * When main cannot name the scope the runtime would store, it withholds
 * the button too: a promise it cannot state is not made.
 */
export function alwaysAllowFor(action: CanonicalAction, runtimeOffers: boolean): AlwaysAllow {
  const scope = scopeOf(action)
  if ('reason' in scope) return { offered: false, reason: scope.reason }
  if (!runtimeOffers) {
    // The runtime resolves a delete's real path when it answers; a path it
    // cannot resolve is the one reason main cannot see from here.
    return {
      offered: false,
      reason: scope.scope === 'path' ? 'path-unresolvable' : 'runtime-refuses',
    }
  }
  return {
    offered: true,
    scope: scope.scope,
    ...(scope.prompt === undefined ? {} : { prompt: scope.prompt }),
  }
}

type Scope =
  | { scope: Extract<AlwaysAllow, { offered: true }>['scope']; prompt?: string }
  | { reason: Extract<AlwaysAllow, { offered: false }>['reason'] }

function scopeOf(action: CanonicalAction): Scope {
  // A permission request is for this turn; the runtime never remembers it.
  if (action.kind === 'permission-request') return { reason: 'turn-only' }
  if (action.kind === 'mcp-tool-call') {
    if (!action.mcp) return { reason: 'tool-not-grantable' }
    // assent-gateway's grant on a resource read answers for every read of
    // the server, not only the URI shown; on a prompt, for that prompt by
    // name (src/runtime/mcp/governed-mcp-action.ts). Said as a tool's
    // grant, either would be a promise about the wrong thing.
    if (action.toolName === 'resources/read') return { scope: 'mcp-read' }
    if (action.toolName === 'prompts/get') {
      const name = action.arguments.name
      return typeof name === 'string'
        ? { scope: 'mcp-prompt', prompt: name }
        : { reason: 'tool-not-grantable' }
    }
    return { scope: 'mcp-tool' }
  }
  const request = readAgentRequest(action.toolName, action.arguments)
  if (request) {
    // An external agent's grants (src/runtime/policy/agent-grant-scope.ts):
    // one file added or edited; never a command, which the agent runs
    // outside Assent's sandbox.
    if (request.tool === AGENT_COMMAND_TOOL) return { reason: 'agent-command-uncontained' }
    if (request.tool !== AGENT_FILE_CHANGE_TOOL) return { reason: 'tool-not-grantable' }
    const [only, ...rest] = request.args.changes
    const single = only !== undefined && rest.length === 0
    return single && only.change !== 'delete' && only.movePath === null
      ? { scope: 'agent-file' }
      : { reason: 'agent-change-not-grantable' }
  }
  const args = action.arguments
  if (action.toolName === 'run_command') {
    // The grant stores the argv alone: a call with a shell, another
    // directory or a time limit is not what it would match later.
    const plain = Object.keys(args).length === 1 && Array.isArray(args.argv)
    return plain ? { scope: 'command' } : { reason: 'command-has-options' }
  }
  if (action.toolName === 'delete_file') {
    if (args.recursive === true) return { reason: 'recursive-delete' }
    return typeof args.path === 'string' ? { scope: 'path' } : { reason: 'path-unresolvable' }
  }
  if (TOOL_SCOPED.has(action.toolName)) return { scope: 'tool' }
  return { reason: 'tool-not-grantable' }
}

/**
 * Whether "Always allow every tool of <server>" is offered, with the tool
 * list it would remember: only for an MCP call whose action shows the
 * server's whole tool list (what the runtime's server-wide grant is bound
 * to), and only when the runtime says it would honour it
 * (`serverAlwaysAllowAvailable`; absent means no).
 */
export function serverAlwaysAllowFor(
  action: CanonicalAction,
  runtimeOffers: boolean,
): ServerAlwaysAllow {
  const tools = action.kind === 'mcp-tool-call' ? action.mcp?.serverTools : undefined
  if (!tools || !runtimeOffers) return { offered: false }
  return { offered: true, toolNames: tools.names }
}

import { realpathSync } from 'node:fs'
import path from 'node:path'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import { isGovernedMcpMethod, mcpActionRememberable } from '../../contracts/mcp-gateway.ts'
import type { Grant } from '../../contracts/room.ts'
import { agentGrantScope } from '../policy/agent-grant-scope.ts'
import type { WorkspaceIdentity } from '../../contracts/room.ts'
import { personOnlyReason, touchOfApproval } from '../policy/person-only.ts'
import { judgedPrivateRead } from '../policy/private-read-approval.ts'
import { sameWorkspace } from '../policy/workspace-identity.ts'

/** What an allow-always decision turns into: the grant's fields besides its
 *  id, room, approval and time. */
export type GrantDraft = Pick<Grant, 'toolName' | 'command'> &
  Required<Pick<Grant, 'scope'>> &
  Pick<Grant, 'path' | 'mcp'>

export type GrantScopeResult = { ok: true; draft: GrantDraft } | { ok: false; reason: string }

/** Tools whose grant answers for every later call of the tool in the room.
 *  Each call still passes the turn's sandbox and the agent's ceilings before
 *  a grant is even looked at, so such a grant skips the question, never the
 *  confinement: a write outside the workspace stays refused. Reads are not
 *  among them: a read asks only when it reaches beyond the workspace (a
 *  private read, read-reach.ts), and each of those is asked every time. */
const TOOL_SCOPED = new Set(['write_file'])

/**
 * The narrowest grant an allow-always on this approval can stand for, or why
 * there is none. Where there is none the runtime refuses the allow-always
 * (409) rather than quietly treating it as allow-once: the person was told
 * "always", and a card that says so while the next call asks again (or a
 * grant wider than what they saw) would both be lies.
 *
 * - an MCP tool call: the server and the exact tool definition, unless
 *   the call is itself a private read (`privateReadBlocker`);
 * - `run_command`: the exact argv, and only for a call with nothing else (no
 *   shell, working directory or timeout), since the grant stores the argv
 *   alone and the same words handed to a shell are another command;
 * - `delete_file`: the one real path it deleted, never the tool: a delete
 *   cannot be undone, and "always allow deleting" would let the agent remove
 *   anything in the workspace unasked. A recursive delete has no grant at
 *   all: what it removes depends on what the directory holds next time,
 *   which the person never saw;
 * - `write_file`: the tool in this room, except for what always needs a
 *   person (person-only.ts), which asks whatever grant there is;
 * - `read_file`, `list_dir`: nothing. A read asks only when it leaves the
 *   workspace, names a credential or has several names, and "always" for
 *   one of those would hand the agent everything of the kind unasked.
 */
export function grantScopeFor(
  approval: ApprovalRecord,
  realPathOf: (absolute: string) => string | null = realPathAllowingMissing,
): GrantScopeResult {
  // "For this turn" is what the person was shown: remembering it would widen
  // later turns they never saw.
  if (approval.kind === 'permission-request') {
    return unavailable('a permission request widens one turn and is never remembered')
  }
  // An action that always needs a person cannot be remembered: the grant
  // would never answer for it, so "always" would be a promise not kept.
  const personOnly = personOnlyReason(touchOfApproval(approval))
  if (personOnly !== null) {
    return unavailable(`${personOnly.path} always asks: ${personOnly.reason}`)
  }
  // An external agent's request has scopes of its own (policy/agent-grant-scope.ts).
  const agentScope = agentGrantScope(approval)
  if (agentScope) return agentScope
  if (approval.kind === 'mcp-tool-call') {
    if (!approval.mcp) return unavailable('the MCP call names no tool definition')
    if (!mcpActionRememberable(approval.toolName)) {
      return unavailable("a server's sampling request is shown to the person every time")
    }
    const privateRead = privateReadBlocker(approval)
    if (privateRead !== null) return unavailable(privateRead)
    // A prompt's grant answers for that prompt alone (its definition hash
    // binds the name): the name is kept too, so the grant list can say
    // which prompt a row answers for, where `prompts/get` would not.
    const prompt = approval.toolName === 'prompts/get' ? approval.arguments.name : undefined
    return grant({
      scope: 'mcp',
      toolName: approval.toolName,
      command: null,
      mcp: {
        serverId: approval.mcp.serverId,
        definitionHash: approval.mcp.definitionHash,
        ...(typeof prompt === 'string' ? { prompt } : {}),
      },
    })
  }
  const args = approval.arguments
  if (approval.toolName === 'run_command') {
    // A grant answers a command only where the sandbox contains it
    // (tool-call-runner.ts): one the person saw run uncontained (full
    // access, no sandbox on this machine) is theirs to allow each time.
    if (approval.containment?.contained !== true) {
      return unavailable('a command the sandbox does not contain is allowed one run at a time')
    }
    const command = grantableCommand(args)
    if (command === null) {
      return unavailable(
        'only a plain command (no shell, working directory or timeout) can be always allowed',
      )
    }
    return grant({ scope: 'command', toolName: 'run_command', command })
  }
  if (approval.toolName === 'delete_file') {
    if (args.recursive === true) return unavailable('a recursive delete cannot be always allowed')
    if (typeof args.path !== 'string') return unavailable('the delete names no path')
    // The file the person was shown and the approval bound, not the typed
    // path resolved again (a link may lead elsewhere by now).
    const real =
      approval.target?.path ?? realPathOf(path.resolve(approval.workingDirectory, args.path))
    if (real === null) return unavailable('the path to delete cannot be resolved')
    return grant({ scope: 'path', toolName: 'delete_file', command: null, path: real })
  }
  if (TOOL_SCOPED.has(approval.toolName)) {
    return grant({ scope: 'tool', toolName: approval.toolName, command: null })
  }
  return unavailable(`${approval.toolName} cannot be always allowed`)
}

/**
 * The grant an `allow-always-server` on this approval stands for, or why
 * there is none: every tool of the MCP server, bound to the hash of its
 * whole tool list as the action showed it. Only an MCP call whose action
 * carries that list can be allowed server-wide; anything else is refused
 * (409) rather than quietly narrowed, for the same reason as above.
 */
export function serverGrantScopeFor(approval: ApprovalRecord): GrantScopeResult {
  if (approval.kind !== 'mcp-tool-call' || !approval.mcp) {
    return unavailable('only an MCP call can be always allowed for its whole server')
  }
  const personOnly = personOnlyReason(touchOfApproval(approval))
  if (personOnly !== null) {
    return unavailable(`${personOnly.path} always asks: ${personOnly.reason}`)
  }
  const tools = approval.mcp.serverTools
  // A resource read or a sampling request lists only its own method, not
  // the server's tools: "every tool" would be a promise about nothing shown.
  if (!tools || isGovernedMcpMethod(approval.toolName)) {
    return unavailable("the MCP call does not show its server's tool list")
  }
  const privateRead = privateReadBlocker(approval)
  if (privateRead !== null) return unavailable(privateRead)
  return grant({
    scope: 'mcp-server',
    toolName: approval.toolName,
    command: null,
    mcp: {
      serverId: approval.mcp.serverId,
      definitionHash: approval.mcp.definitionHash,
      toolListHash: tools.hash,
    },
  })
}

/**
 * Why an MCP call's own approval can make no grant because it is a private
 * read (private-read-approval.ts: a place it names outside the workspace
 * and the server's own folder), or null. No grant answers a private read
 * at any door, so the call the person was shown would ask again however
 * they answered, and "always" would hold only for the tool's other calls,
 * inside the workspace, which they never saw. Judged as the door judged
 * it, on the stored action and the workspace the call was asked for (its
 * working directory at both MCP doors); fails closed, as a judgment that
 * throws is a private read.
 */
function privateReadBlocker(approval: ApprovalRecord): string | null {
  const read = judgedPrivateRead(approval, approval.workingDirectory)
  return read === null ? null : `a read beyond the workspace asks every time: ${read}`
}

/**
 * Whether an active grant's scope covers this built-in tool call.
 * `resolvedPaths` are the real paths the sandbox check returned for the
 * call, so a path grant is compared with what would really be deleted. A
 * row without a scope (written before scopes were stored) answers for its
 * exact command only. The door that honours it (tool-call-runner.ts) asks
 * person-only.ts first: no scope covers what always needs a person.
 */
export function grantMatches(
  grant: Grant,
  call: { toolName: string; args: unknown; resolvedPaths: readonly string[] },
): boolean {
  if (grant.toolName !== call.toolName || grant.mcp !== undefined) return false
  switch (grant.scope) {
    case 'tool':
      return TOOL_SCOPED.has(call.toolName)
    case 'path': {
      const args = call.args as { recursive?: unknown } | null
      return (
        call.toolName === 'delete_file' &&
        args?.recursive !== true &&
        grant.path !== undefined &&
        call.resolvedPaths.length === 1 &&
        call.resolvedPaths[0] === grant.path
      )
    }
    case 'command':
    case undefined: {
      const command = grantableCommand(call.args)
      return (
        command !== null &&
        grant.command !== null &&
        JSON.stringify(grant.command) === JSON.stringify(command)
      )
    }
    default:
      return false
  }
}

/**
 * The command line an allow-always grant may stand for: the argv of a call
 * that has nothing but an argv (no shell, no other working directory, no
 * timeout), or null. The grant stores only the argv, so a call with more
 * arguments (the same words handed to a shell, say) is not what the person
 * saw and must ask again.
 */
export function grantableCommand(args: unknown): string[] | null {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return null
  if (!('argv' in args) || Object.keys(args).length !== 1) return null
  return Array.isArray(args.argv) ? args.argv.map(String) : null
}

/** The real path of `absolute`, following symlinks, with a missing last
 *  component appended as is; null if even its directory cannot be resolved.
 *  Synchronous because the grant is written inside the decision's
 *  transaction. Where this differs from the sandbox's resolution (an exotic
 *  dangling link), the grant simply never matches: narrower, not wider. */
function realPathAllowingMissing(absolute: string): string | null {
  try {
    return realpathSync(absolute)
  } catch {
    try {
      return path.join(realpathSync(path.dirname(absolute)), path.basename(absolute))
    } catch {
      return null
    }
  }
}

/**
 * Why no "always" may come of an approval because of where it was asked,
 * or null: the folder its turn was admitted for must be the folder the
 * room is pinned to now. An approval asked about a folder since replaced
 * stays decidable (its call is refused when it would run); once the person
 * accepts the new folder (confirming the room's mode, which revokes every
 * grant there is), a grant made from the old approval would answer in a
 * folder nobody asked them about. An "always" given while the folder is
 * replaced and not yet accepted is kept: the acceptance revokes it, and
 * the folder put back honours it. Fails closed: a turn or room not found,
 * or either without a pinned folder, or a room changed outside Assent,
 * makes no grant.
 */
export function folderGrantBlocker(
  turn: { workspaceIdentity?: WorkspaceIdentity | undefined } | undefined,
  room: { workspaceIdentity?: WorkspaceIdentity | undefined; integrity?: string } | undefined,
): string | null {
  const asked = turn?.workspaceIdentity
  const pinned = room?.integrity === 'tampered' ? undefined : room?.workspaceIdentity
  if (asked === undefined || pinned === undefined) {
    return "the folder it was asked about cannot be compared with the room's"
  }
  return sameWorkspace(asked, pinned)
    ? null
    : 'it was asked about another folder than the one the room works in now'
}

function grant(draft: GrantDraft): GrantScopeResult {
  return { ok: true, draft }
}

function unavailable(reason: string): GrantScopeResult {
  return { ok: false, reason }
}

import { keepAsAssentOwn } from '../policy/assent-own-paths.ts'
import { keepCredentialPlacesOf } from '../policy/environment-credentials.ts'
import {
  assentOwnNamedBy,
  mcpTouch,
  personOnlyReason,
  type ActionTouch,
  type PersonOnly,
} from '../policy/person-only.ts'
import { inOneMoment } from '../policy/judgment-moment.ts'
import { judgedPrivateMcpRead } from '../policy/private-read-approval.ts'
import type { McpConnection, McpServer } from './mcp-connection.ts'
import { McpRefusal } from './mcp-refusal.ts'
import { serverFolderOf } from './mcp-workspace.ts'

// Whether an MCP call (a tool call, a resource read, a prompt) runs
// without asking, and the calls no one may make: those naming Assent's own
// files. Shared by gated-mcp-call.ts and governed-mcp-action.ts.

/** Adds `paths` (the gateway's config and data folder) to what no MCP
 *  call in this process may name (`refuseIfAssentOwn`). */
export function refuseMcpCallsNaming(paths: readonly string[]): void {
  keepAsAssentOwn(paths)
}

/** Judges the credential places `env` names away from their usual ones
 *  (`$GNUPGHOME`: environment-credentials.ts) as the home folder's own in
 *  every MCP call in this process: a read of one asks, a change needs the
 *  person. */
export function judgeCredentialPlacesOf(env: NodeJS.ProcessEnv, home: string): void {
  keepCredentialPlacesOf(env, home)
}

/**
 * Refuses, before anything is asked or run, an MCP call that names one of
 * Assent's own files (its data folder, mcp.json, agents.json, the
 * gateway's config): a server that writes one changes which servers run
 * and what runs unasked, which only the person may change, by hand. Not
 * asked but refused: the gateway's config is known only to the gateway,
 * so the runtime's grants could not leave the call to the person.
 */
function refuseIfAssentOwn(own: PersonOnly | null, name: string): void {
  if (own?.class !== 'assent-own') return
  throw new McpRefusal(
    'not_allowed',
    `${name} names ${own.path}: ${own.reason}; no MCP call may read or change it. Change it yourself.`,
  )
}

/**
 * Whether the MCP call `touch` (named `name`) runs without asking: a tool
 * Assent runs unasked (`approvalFree`), or a call to a server whose
 * manifest is read-only that names nothing person-only and is no private
 * read. Refuses one naming Assent's own files first (`refuseIfAssentOwn`);
 * a read-only server's call is judged whole once, which finds those too
 * when nothing else is found before them.
 */
export function runsUnasked(
  server: Pick<McpConnection['server'], 'requires_approval'>,
  touch: ActionTouch,
  name: string,
  approvalFree: boolean,
): boolean {
  // Every rule below in one moment: they resolve the same paths.
  return inOneMoment(() => judgedUnasked(server, touch, name, approvalFree))
}

function judgedUnasked(
  server: Pick<McpConnection['server'], 'requires_approval'>,
  touch: ActionTouch,
  name: string,
  approvalFree: boolean,
): boolean {
  if (approvalFree || server.requires_approval) {
    refuseIfAssentOwn(assentOwnNamedBy(touch), name)
    return approvalFree
  }
  const personOnly = personOnlyReason(touch)
  // The judgment stops at the first reason: a call naming a credential
  // and Assent's own files too is still refused, not asked.
  refuseIfAssentOwn(
    personOnly === null || personOnly.class === 'assent-own' ? personOnly : assentOwnNamedBy(touch),
    name,
  )
  if (personOnly !== null) return false
  // A read-only manifest says the server changes nothing, not that it
  // reads only the workspace: a call whose words reach beyond it (a
  // private read, private-read-approval.ts) asks the person, as no grant
  // or webhook may answer for it either. A judgment that fails asks too.
  return judgedPrivateMcpRead(touch) === null
}

/**
 * The person-only path an MCP request names (a `file:` URI under `.git`,
 * a key), or null. Nobody is asked about a completion, a subscription or
 * a list, so these are refused or left out when they name one.
 */
export function personOnlyNamed(
  server: McpServer,
  method: string,
  args: Record<string, unknown>,
  workspace: string,
): { path: string; reason: string } | null {
  const touch = mcpTouch(
    {
      serverId: server.id,
      toolName: method,
      arguments: args,
      serverFolder: serverFolderOf(server),
    },
    workspace,
  )
  return personOnlyReason(touch)
}

/**
 * Why an MCP request nobody is asked about (a completion) is a private
 * read: a place it names resolves outside the workspace and the server's
 * folder (private-read-approval.ts), or it cannot be judged; else null.
 * A read of that place would ask the person, on any server, so a request
 * that lists what is there (a completion of `/home/ada/Documents/`) may
 * not pass unasked either.
 */
export function privateReadNamed(
  server: McpServer,
  method: string,
  args: Record<string, unknown>,
  workspace: string,
): string | null {
  const touch = mcpTouch(
    {
      serverId: server.id,
      toolName: method,
      arguments: args,
      serverFolder: serverFolderOf(server),
    },
    workspace,
  )
  return inOneMoment(() => judgedPrivateMcpRead(touch))
}

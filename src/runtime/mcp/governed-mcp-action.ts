import type { GovernedMcpMethod } from '../../contracts/mcp-gateway.ts'
import { mcpTouch } from '../policy/person-only.ts'
import { refuseIfCancelled, type McpConsentPort, type McpConsentRequest } from './gated-mcp-call.ts'
import { shownWhole } from './mcp-consent-request.ts'
import { personOnlyNamed, privateReadNamed, runsUnasked } from './mcp-call-judgment.ts'
import type { McpServer } from './mcp-connection.ts'
import { deniedRefusal, McpRefusal } from './mcp-refusal.ts'
import { serverFolderOf } from './mcp-workspace.ts'
import { boundToServerStart } from './server-start-binding.ts'
import {
  inputSchemaHash,
  namespacedToolName,
  toolDefinitionHash,
  toolListHash,
  type McpToolDefinition,
} from './mcp-tool-definition.ts'

/** One resource read or sampling request, as the gateway governs it. */
export interface GovernedAction<T> {
  consent: McpConsentPort
  server: McpServer
  method: GovernedMcpMethod
  /** What the person is shown whole: `{ uri }` for a read, the request's
   *  params (messages, system prompt, limits) for sampling. */
  args: Record<string, unknown>
  /** The folder the gateway serves, for the person-only rule. */
  workspace: string
  run: () => Promise<T>
  /** What the room's timeline records of an allowed action's result. */
  outcome: (result: T) => string
  /** Aborts when whoever sent the request cancels it: the person's
   *  question is withdrawn, and nothing runs. */
  signal?: AbortSignal
}

/**
 * Runs a resource read or a server's sampling request under the room's
 * policy, the way a call of a read tool on the same server runs:
 * - under a mode that runs no MCP call (`consent.mayRun`: plan) it is
 *   refused before anything is asked or run;
 * - on a server whose manifest is read-only it passes, unless what it
 *   names is person-only (a `file:` URI under ~/.ssh, .git, ...) or makes
 *   it a private read (a place outside the workspace), which asks, as no
 *   door may answer for it without the person;
 * - on any other server the person is asked in the protected window (or
 *   an "always allow" the person gave for this kind on this server
 *   answers, never for a person-only path), and only an allow runs it.
 * A refusal is an `McpRefusal`, which the client gets as a JSON-RPC error
 * whose `data.reason` says why.
 */
export async function runGoverned<T>(action: GovernedAction<T>): Promise<T> {
  const { server, method, args } = action
  const touch = mcpTouch(
    {
      serverId: server.id,
      toolName: method,
      arguments: args,
      serverFolder: serverFolderOf(server),
    },
    action.workspace,
  )
  // As for a tool call: nothing is asked or run for a folder that is not
  // the gateway's any more, and it is checked again after the answer.
  action.consent.checkWorkspace?.()
  const name = namespacedToolName(server.id, method)
  // Plan mode runs no MCP call, a read-only server's read or sampling
  // request included; nor does a gateway that cannot tell the mode.
  await action.consent.mayRun?.(name)
  if (runsUnasked(server, touch, name, false)) return action.run()
  const ticket = await action.consent.ask(governedRequest(server, method, args), action.signal)
  await refuseIfCancelled(ticket, action.signal, name)
  if (ticket.status === 'denied') throw deniedRefusal(ticket, name)
  if (ticket.status === 'expired') {
    throw new McpRefusal('expired', `Nobody confirmed ${name} in time; it did not run`)
  }
  let result: T
  try {
    action.consent.checkWorkspace?.()
  } catch (error) {
    await ticket.report({ ok: false, output: (error as Error).message })
    throw error
  }
  try {
    result = await action.run()
  } catch (error) {
    await ticket.report({ ok: false, output: `${name} failed: ${(error as Error).message}` })
    throw error
  }
  await ticket.report({ ok: true, output: action.outcome(result) })
  return result
}

/**
 * Refuses an MCP request that nobody is asked about (a completion, asked
 * for at each keystroke) when what it names is person-only: a server
 * completing `.git/` would list what is in it.
 */
export function refuseIfPersonOnly(
  server: McpServer,
  method: string,
  args: Record<string, unknown>,
  workspace: string,
): void {
  const personOnly = personOnlyNamed(server, method, args, workspace)
  if (personOnly !== null) {
    throw new McpRefusal(
      'not_allowed',
      `assent-gateway does not pass ${method} for ${personOnly.path}: ${personOnly.reason}`,
    )
  }
}

/**
 * Refuses a resource subscription, which nobody is asked about, to a
 * person-only path (`refuseIfPersonOnly`) or to a `file:` URI outside the
 * workspace and the server's folder: a read of that file would ask the
 * person, and its updates (or the server's refusal of a file that is not
 * there) would tell the agent, unasked, when it changes and whether it
 * exists. A URI of the server's own scheme is not judged as a place here,
 * as for a completion (gateway-completions.ts): read as one, every
 * subscription to one would be refused.
 */
export function refuseSubscription(server: McpServer, uri: string, workspace: string): void {
  refuseIfPersonOnly(server, 'resources/subscribe', { uri }, workspace)
  const outside = fileOutsideWorkspace(server, 'resources/subscribe', uri, workspace)
  if (outside !== null) {
    throw new McpRefusal(
      'not_allowed',
      `assent-gateway does not pass resources/subscribe there: ${outside}, and nobody is asked about a subscription`,
    )
  }
}

/** Why the `file:` URI `uri` is a private read (a file outside the
 *  workspace and the server's folder, by name or where it leads), or null,
 *  also for a URI of another scheme (`refuseSubscription`). */
export function fileOutsideWorkspace(
  server: McpServer,
  method: string,
  uri: string,
  workspace: string,
): string | null {
  if (!/^file:/i.test(uri)) return null
  return privateReadNamed(server, method, { uri }, workspace)
}

/**
 * What the person is asked about a governed action. Its "definition" is
 * the method on this server as it is started (`boundToServerStart`),
 * so an "always allow" the person gives answers for this kind on this
 * server only, and, named with a `/` no tool name may hold, never for a
 * tool. A prompt's is the prompt too, by the name the person was shown:
 * prompts are a server's many tools for reading, each with its own
 * messages for the agent, and a grant given on one answered for any
 * other, a prompt the server added since among them, where a tool's
 * grant answers for that tool alone.
 */
export function governedRequest(
  server: McpServer,
  method: GovernedMcpMethod,
  args: Record<string, unknown>,
): McpConsentRequest {
  const definition: McpToolDefinition = {
    name: method,
    ...(method === 'prompts/get' ? { title: `prompt ${String(args.name)}` } : {}),
    inputSchema: { type: 'object' },
  }
  // A read's URI and a sampling request are shown whole like a call's
  // arguments, under the same rule.
  return shownWhole({
    serverId: server.id,
    serverName: server.name,
    toolName: method,
    toolDescription: '',
    inputSchemaHash: inputSchemaHash(definition),
    definitionHash: boundToServerStart(server, toolDefinitionHash(definition)),
    arguments: args,
    preview: null,
    serverTools: { names: [method], hash: toolListHash([definition]) },
    serverFolder: serverFolderOf(server),
  })
}

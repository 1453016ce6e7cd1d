import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { CallToolResult, ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import { message, type RuntimeMessage } from '../../contracts/runtime-message.ts'
import type { ElicitationForm } from './mcp-elicitation.ts'
import { resultText, type McpConnection } from './mcp-connection.ts'
import { deniedRefusal, McpRefusal } from './mcp-refusal.ts'
import { refuseWithheldContent } from './mcp-result-uris.ts'
import { serverFolderOf } from './mcp-workspace.ts'
import { toolConsentRequest } from './mcp-consent-request.ts'
import { PREVIEW_SUFFIX, toolDefinitionHash } from './mcp-tool-definition.ts'
import { type DecidedBy, type McpServerTools } from '../../contracts/approval.ts'
import { BUILT_IN_FILESYSTEM_SERVER_ID } from '../../contracts/mcp-config.ts'
import { MadePersonOnlyWatch, personOnlyAtStart } from '../policy/made-person-only.ts'
import { inOneMoment } from '../policy/judgment-moment.ts'
import { mcpTouch, personOnlyReason, type ActionTouch } from '../policy/person-only.ts'
import { runsUnasked } from './mcp-call-judgment.ts'
import { failsAfterRun, madePersonOnlyNote } from '../tools/sandbox-stop-note.ts'

/** What the person is asked about one MCP call. */
export interface McpConsentRequest {
  serverId: string
  serverName: string
  toolName: string
  toolDescription: string
  inputSchemaHash: string
  definitionHash: string
  arguments: Record<string, unknown>
  preview: string | null
  /** Every allowed tool the server offers now, for "always allow every
   *  tool of this server". */
  serverTools: McpServerTools
  /** The folder the server works in, when Assent started it (`serverFolderOf`). */
  serverFolder?: string | undefined
}

/** What an MCP call's approval holds about it: what the person is shown,
 *  and so what its action digest binds. */
export function mcpApprovalFields(request: McpConsentRequest) {
  return {
    kind: 'mcp-tool-call' as const,
    toolName: request.toolName,
    arguments: request.arguments,
    summary: `${request.serverName}: ${request.toolName}`,
    summaryMessage: message('summary.mcp', {
      server: request.serverName,
      tool: request.toolName,
    }),
    mcp: {
      serverId: request.serverId,
      serverName: request.serverName,
      toolDescription: request.toolDescription,
      inputSchemaHash: request.inputSchemaHash,
      definitionHash: request.definitionHash,
      preview: request.preview,
      serverTools: request.serverTools,
      ...(request.serverFolder === undefined ? {} : { serverFolder: request.serverFolder }),
    },
  }
}

/** The answer to one consent request. `report` records what an allowed call
 *  returned; it is never called for a refused one. */
export interface McpConsentTicket {
  status: 'allowed' | 'denied' | 'expired'
  reason: string | null
  /** Who decided, where someone did: a denial names them (`deniedRefusal`). */
  decidedBy?: DecidedBy
  /** Why an approval ended without a decision, in the person's words,
   *  when it was withdrawn for a reason (its stored action changed, the
   *  workspace moved) rather than left to run out of time. */
  reasonMessage?: RuntimeMessage
  /** Set when a grant answered at once, matched against the definition
   *  sent with the request: nobody read anything in between, so there is no
   *  wait during which the definition could have changed under a reader. */
  byGrant?: true
  report(result: { ok: boolean; output: string }): Promise<void>
  /** Asks the person to fill a form the server sent during this allowed
   *  call (MCP elicitation), where the asker can: the gateway's tickets.
   *  `over` aborts once the call ends or the server cancels the request:
   *  the form is then withdrawn. */
  elicit?(form: ElicitationForm, over: AbortSignal): Promise<ElicitResult>
}

/** Port to whoever asks the person: the runtime's gate in the runtime, the
 *  runtime's gateway routes in the gateway. Implementations must resolve
 *  only with a decision that was really taken (or a timeout), never guess.
 *  `signal` aborts when the caller cancels the request (or goes away):
 *  an asker that can withdraw the question does, at once, so the person
 *  is not left deciding on a call nobody waits for. */
export interface McpConsentPort {
  ask(request: McpConsentRequest, signal?: AbortSignal): Promise<McpConsentTicket>
  /** Throws `workspaceMovedRefusal` once the folder the caller was pinned
   *  to (its turn's, the gateway's) is no longer the one at its path.
   *  Called before the server is asked anything, after every answer, and
   *  right before the tool itself is called: an allow answers for the
   *  folder it was given for, never for what is at the path later. */
  checkWorkspace?(): void
  /** Throws an `McpRefusal` when nothing may run for the call `name` under
   *  the room's mode now: plan mode (a policy that never asks) refuses
   *  every MCP call, a read-only manifest's included, before any preview,
   *  list, question or run; and an asker that cannot tell the mode (the
   *  gateway, until the runtime answers) refuses too. Called first, once. */
  mayRun?(name: string): Promise<void> | void
  /** Called right before the tool itself is called, allowed or ungated, so
   *  the caller can durably mark the call as running first; `asked` says
   *  whether the person (or their grant) answered for it, or it runs
   *  unasked (a read-only manifest's call), which no form of its server's
   *  may reach the person under (McpElicitationRouter). */
  beforeRun?(asked: boolean): Promise<void> | void
  /** Resolves once every withdrawal started so far has been answered and
   *  what the tickets reported has reached the asker; called before the
   *  process that holds the port exits, so it leaves no question open and
   *  no outcome unrecorded behind it. */
  drain?(): Promise<void>
}

/**
 * Runs one MCP tool call behind consent:
 * - a tool outside `allowed_tools` is refused (`not_allowed`) without
 *   asking anyone, and so is a gated one the server no longer offers;
 * - a server whose manifest is read-only (the only kind with
 *   `requires_approval: false`) runs without asking, unless what the call
 *   names is person-only (a path under ~/.ssh, in .git, ...) or makes it
 *   a private read (a place outside the workspace): that asks, as at
 *   every other door, since a manifest is the server's own word;
 *   tool annotations never get a call past consent;
 * - otherwise the person is asked, with the tool's current definition and,
 *   if the server offers an allowed `<tool>.preview`, the preview's result;
 * - after a person's allow, the definition and the preview are fetched
 *   again and must be what the person saw, or the call is refused (a grant
 *   answers at once, against the definition it was sent);
 * - under a mode that runs no MCP call (`consent.mayRun`: plan) nothing
 *   is listed, previewed, asked or run;
 * - the workspace is checked (`consent.checkWorkspace`) before the server
 *   is asked anything, once the answer comes, and right before the call;
 * - once an allowed call of any server but the built-in filesystem server
 *   ends, what of the person-only table appeared in the workspace is moved
 *   aside, and the call's result is an error that says so.
 * `run` goes with the call itself (never the preview): the caller's
 * progress handler and cancellation signal.
 */
export async function runGatedMcpCall(
  connection: McpConnection,
  toolName: string,
  args: Record<string, unknown>,
  consent: McpConsentPort,
  workspace: string,
  run: RequestOptions = {},
): Promise<CallToolResult> {
  const server = connection.server
  // Nothing is listed, previewed or run by a server in a folder that is
  // not the caller's any more, nor under a mode that runs no MCP call.
  consent.checkWorkspace?.()
  await consent.mayRun?.(`${server.id}__${toolName}`)
  if (!server.allowed_tools.includes(toolName)) {
    throw new McpRefusal('not_allowed', `${server.id} has no allowed tool named ${toolName}`)
  }
  const touch = mcpTouch(
    { serverId: server.id, toolName, arguments: args, serverFolder: serverFolderOf(server) },
    workspace,
  )
  // Assent's own read tools judge their paths themselves (read-reach.ts);
  // another server's read-only manifest is only its word, so what its call
  // names is judged here by the one person-only rule. Nobody is shown the
  // definition of a call that runs unasked, so it is not fetched for one:
  // a tool the server stopped offering fails at the server.
  const approvalFree = server.approvalFreeTools?.includes(toolName) === true
  // What a result names beside what was asked is judged at every door
  // (mcp-result-uris.ts): a person-only file the server adds fails it.
  const source = { server, method: toolName, workspace }
  if (runsUnasked(server, touch, `${server.id}__${toolName}`, approvalFree)) {
    await consent.beforeRun?.(false)
    consent.checkWorkspace?.()
    const result = await connection.callTool(toolName, args, run)
    refuseWithheldContent(source, result.content)
    return result
  }
  const tools = await connection.listAllowedTools()
  const tool = tools.find((candidate) => candidate.name === toolName)
  if (!tool) {
    throw new McpRefusal('not_allowed', `${server.id} does not offer ${toolName}`)
  }

  const hasPreview = tools.some((candidate) => candidate.name === `${toolName}${PREVIEW_SUFFIX}`)
  const preview =
    hasPreview && previewRunsUnasked(server, touch)
      ? await previewText(connection, toolName, args)
      : null
  const ticket = await consent.ask(
    toolConsentRequest(server, tool, tools, args, preview),
    run.signal,
  )
  await refuseIfCancelled(ticket, run.signal, `${server.id}__${toolName}`)
  if (ticket.status === 'denied') throw deniedRefusal(ticket, `${server.id}__${toolName}`)
  if (ticket.status === 'expired') {
    // Withdrawn for a reason, the reason is what the caller hears: "nobody
    // confirmed in time" would send the person looking for a window that
    // was never theirs to answer.
    if (ticket.reasonMessage !== undefined && ticket.reason !== null) {
      throw new McpRefusal(
        'expired',
        `${server.id}__${toolName} did not run: ${ticket.reason}`,
        undefined,
        ticket.reasonMessage,
      )
    }
    throw new McpRefusal(
      'expired',
      `Nobody confirmed ${server.id}__${toolName} in time; it did not run`,
    )
  }

  const refuseAfterAllow = async (detail: string, message: string): Promise<never> => {
    await ticket.report({ ok: false, output: message })
    throw new McpRefusal('not_allowed', message, detail)
  }
  /** The workspace checked again; refused, the asker hears the call did
   *  not run, so its record does not stay "running". */
  const refuseIfMoved = async (): Promise<void> => {
    try {
      consent.checkWorkspace?.()
    } catch (error) {
      await ticket.report({ ok: false, output: (error as Error).message })
      throw error
    }
  }
  // The answer may have taken minutes: before the definition and preview
  // are fetched again (the server acting in whatever folder is there now).
  await refuseIfMoved()
  // A person took time to read: what they read must still be what runs.
  // A grant answered at once, against this very definition (grant-scope.ts
  // binds it), with no wait for a change to hide in.
  if (ticket.byGrant !== true) {
    const current = await connection.findTool(toolName)
    if (!current || toolDefinitionHash(current) !== toolDefinitionHash(tool)) {
      return refuseAfterAllow(
        'definition_changed',
        `${server.id} changed ${toolName} after it was approved; it did not run`,
      )
    }
    if (preview !== null && (await previewText(connection, toolName, args)) !== preview) {
      return refuseAfterAllow(
        'preview_changed',
        `what ${toolName} would do changed after it was approved; it did not run`,
      )
    }
  }

  let result: CallToolResult
  await consent.beforeRun?.(true)
  // Last, after the wait for the disk: nothing but this call follows it.
  await refuseIfMoved()
  const watch = madeWatch(server, workspace)
  try {
    result = await connection.callTool(toolName, args, run)
  } catch (error) {
    const message = `${server.id} failed during ${toolName}: ${(error as Error).message}`
    result = { content: [{ type: 'text', text: message }], isError: true }
  }
  result = withMadeSettled(result, watch)
  try {
    refuseWithheldContent(source, result.content)
  } catch (error) {
    // Refused, the call is recorded as what the agent hears.
    await ticket.report({ ok: false, output: (error as Error).message })
    throw error
  }
  await ticket.report({ ok: result.isError !== true, output: resultText(result) })
  return result
}

/**
 * A watch of what the call makes of the person-only table in the
 * workspace, from what exists when an allowed call starts (made-person-only.ts),
 * or null for the built-in filesystem server, whose every
 * path is named in the call and judged before it runs. Any other server's
 * tool may make what its call does not name (a shell tool's script making
 * `sub/.git`), as a command may; no allow covers that
 * (policy/made-person-only.ts). The workspace is what the person's git and
 * editor open; the folder a server works in, when another (by default
 * wherever Assent was started, a home folder, say), is not walked: at
 * every call, past the walk's limit, it would cost every call and prove
 * nothing.
 */
function madeWatch(server: McpConnection['server'], workspace: string): MadePersonOnlyWatch | null {
  if (server.id === BUILT_IN_FILESYSTEM_SERVER_ID) return null
  return new MadePersonOnlyWatch(personOnlyAtStart([workspace]))
}

/** The result once what appeared of the table while the call ran is moved
 *  aside: an error that says what moved where, so the agent does not call
 *  again blindly and the record says it. */
function withMadeSettled(
  result: CallToolResult,
  watch: MadePersonOnlyWatch | null,
): CallToolResult {
  if (watch === null) return result
  const after = watch.stop()
  const note = madePersonOnlyNote(after)
  if (note === null) return result
  const content = [...result.content, { type: 'text' as const, text: note }]
  return failsAfterRun(after) ? { ...result, content, isError: true } : { ...result, content }
}

/**
 * The caller cancelled while the person was asked: nothing runs, even when
 * an allow crossed the cancellation on its way (the call is then recorded
 * as not run). The caller hears nothing of it (MCP answers no cancelled
 * request); the refusal only ends the call here.
 */
export async function refuseIfCancelled(
  ticket: McpConsentTicket,
  signal: AbortSignal | undefined,
  name: string,
): Promise<void> {
  if (signal?.aborted !== true) return
  const message = `the client cancelled ${name} while the person was asked; it did not run`
  if (ticket.status === 'allowed') await ticket.report({ ok: false, output: message })
  throw new McpRefusal('not_allowed', message, 'cancelled')
}

/**
 * Whether a call's preview may run before anyone is asked. A preview is a
 * call of the server's like any other, and that it changes nothing is the
 * server's word, as a read-only manifest is: a manifest's call naming a
 * person-only place (`.git/hooks/pre-commit`, a key) asks rather than runs
 * (mcp-call-judgment.ts), so a preview of one would be the one call of
 * such a place no one answered for, a `write_file.preview` that writes
 * the hook before the person has read a word. Such a call is asked about
 * with its arguments whole and no preview, and nothing compares one after
 * the allow. Assent's own server is exempt: its previews are Assent's code,
 * and its writes are bound to them (built-in-filesystem-server.ts).
 */
function previewRunsUnasked(server: McpConnection['server'], touch: ActionTouch): boolean {
  if (server.id === BUILT_IN_FILESYSTEM_SERVER_ID) return true
  return inOneMoment(() => personOnlyReason(touch)) === null
}

/** The preview's text. A preview that fails is shown as its error: the
 *  person then decides knowing the server could not say what would happen. */
async function previewText(
  connection: McpConnection,
  toolName: string,
  args: Record<string, unknown>,
): Promise<string> {
  const result = await connection.callTool(`${toolName}${PREVIEW_SUFFIX}`, args)
  const text = resultText(result)
  return result.isError === true ? `[preview failed] ${text}` : text
}

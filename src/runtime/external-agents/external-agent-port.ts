import { z } from 'zod'
import type { ExternalAgentProtocol } from '../../contracts/agents-config.ts'
import type { PermissionMode, SandboxMode } from '../../contracts/policy-axes.ts'
import type { ToolCallStatus } from '../../contracts/room.ts'

/** One file an agent wants to change, as the agent describes it. `path` is
 *  absolute: a relative path is resolved against the session's workspace,
 *  which is where the agent resolves it too. */
export interface ExternalFileChange {
  path: string
  change: 'add' | 'update' | 'delete'
  /** Where an update moves the file to, if it does. */
  movePath: string | null
  /** Codex: the new content of an added file, or a unified diff. */
  diff: string | null
  /** ACP: the text before (null for a new file) and after the change. */
  oldText: string | null
  newText: string | null
}

/** What the agent will do if allowed. */
export type ExternalAction =
  | {
      kind: 'command'
      /** The command line as the agent will run it. */
      commandLine: string
      /** The same as an argument vector, when the agent gave one. */
      argv: string[] | null
      cwd: string
    }
  | { kind: 'file-changes'; changes: ExternalFileChange[] }
  /** An ACP tool call that is neither a command nor a file change the
   *  client can read (a fetch, an MCP tool, ...): the agent's own title, its
   *  tool kind, its raw input as sent, and the files it names as touched
   *  (absolute). */
  | { kind: 'tool'; toolKind: string; title: string; input: unknown; locations: string[] }

/** An agent's request for approval, normalized across protocols. */
export interface ExternalActionRequest {
  /** Unique per adapter instance: protocol, session, turn and the agent's
   *  own ids for the request. */
  requestId: string
  protocol: ExternalAgentProtocol
  /** Codex's thread id, or the ACP session id. */
  sessionId: string
  /** The agent's id for the tool call (Codex's item id, ACP's toolCallId). */
  toolCallId: string
  /** Why the agent says it needs this: its own words, untrusted. */
  reason: string | null
  /** Where the action runs once allowed, as far as Assent can tell. The
   *  agents observed may run an allowed action outside their own sandbox,
   *  so an adapter says `danger-full-access` unless it knows better. */
  sandboxMode: SandboxMode
  action: ExternalAction
}

/**
 * What Assent decided. `allow-always` means Assent has recorded a grant of
 * its own; the agent is still only told to go ahead this once (never the
 * agent's own "don't ask again" rule), so that revoking the grant works.
 * `expired` (nobody answered in time) and `cancelled` (the turn is being
 * ended) are never an allow.
 */
export const ExternalDecisionSchema = z.enum([
  'allow-once',
  'allow-always',
  'deny',
  'expired',
  'cancelled',
])
export type ExternalDecision = z.infer<typeof ExternalDecisionSchema>

/**
 * Port: whatever turns an agent's request into an Assent decision (the
 * runtime's approval requester: policy, grants, the protected window, a
 * consent token, the audit log).
 *
 * Invariants the adapter keeps for every implementation:
 * - it calls `ask` once per request it could parse, and answers the agent
 *   only with what `ask` resolved to;
 * - a rejection, or a value that is not an `ExternalDecision`, is answered
 *   as `expired`: a failure to ask is never an allow;
 * - `signal` aborts when the agent withdraws the request (it resolved it
 *   itself, its turn ended, its process exited); the implementation should
 *   close the approval then, and whatever it resolves is not sent.
 */
export interface ExternalApprovalAsker {
  ask(request: ExternalActionRequest, signal: AbortSignal): Promise<ExternalDecision>
}

/** Why a request was refused without asking anyone. */
export type ExternalRefusalCode =
  /** Its parameters did not parse. */
  | 'unreadable'
  /** It names a session or thread other than this one. */
  | 'other-session'
  /** A request this client does not serve (answered "method not found"). */
  | 'unsupported-request'
  /** Codex: input for a running terminal, a managed checkpoint, or another
   *  kind of command approval than a command. */
  | 'unsupported-command-kind'
  /** Codex: a request for network access. */
  | 'network-access'
  /** Codex: a command that also asks for extra permissions. */
  | 'extra-permissions'
  /** Codex: a command request without its command line or directory. */
  | 'no-command-line'
  /** Codex: a file change whose changes were never announced this turn. */
  | 'unannounced-changes'
  /** Codex: a file change that asks for every later write under a folder. */
  | 'grant-root'
  /** ACP: a command whose folder is not an absolute path: the agent takes
   *  it from a folder of its own, so where the command runs cannot be
   *  shown. */
  | 'command-folder-not-absolute'
  /** ACP: a place (a location, a diff's file, a folder) named by a path
   *  that is not absolute, which the agent reads its own way (`~` as its
   *  home folder), so where the call acts cannot be shown. */
  | 'place-not-absolute'
  /** ACP: no option allows just this once. */
  | 'no-allow-once-option'
  /** ACP: two options share an id, so an answer could be read either way. */
  | 'ambiguous-options'
  /** It came after Assent ended the turn (ACP: a `session/cancel` sent, or
   *  the agent out of the session mode Assent chose; Codex: a
   *  `turn/interrupt` sent): no turn Assent runs asked for it. */
  | 'turn-cancelled'
  /** Codex: it names a turn other than the one running, or came before
   *  the running turn had its id. */
  | 'other-turn'

/** How an agent's turn ended. */
export interface ExternalTurnOutcome {
  status: 'completed' | 'interrupted' | 'failed' | 'refused'
  /** The agent's error message or stop reason, when it gave one. */
  detail: string | null
}

/**
 * What the agent did, in the shape of the room's timeline: its messages,
 * its tool calls and their outputs, the approvals it asked for and how each
 * was answered. All text in these events is the agent's, untrusted, and
 * bounded to `MAX_EXTERNAL_TEXT_CHARS`.
 */
export type ExternalAgentEvent =
  | { type: 'agent-message'; messageId: string; text: string }
  | {
      type: 'tool-call'
      toolCallId: string
      title: string
      status: ToolCallStatus
      /** What the call does, when the agent said (the command, the files). */
      action: ExternalAction | null
      output: string | null
      exitCode: number | null
    }
  | { type: 'approval-requested'; request: ExternalActionRequest }
  | {
      type: 'approval-answered'
      requestId: string
      decision: ExternalDecision
      /** The answer as sent, in the agent's terms (`decline`, an option id). */
      answer: string
    }
  /** A request the agent sent that Assent cannot show as an action, or may
   *  not allow: it was refused without asking anyone. `detail` is for the
   *  log; what the person reads comes from `code`. */
  | {
      type: 'request-refused'
      method: string
      code: ExternalRefusalCode
      detail: string
      answer: string
    }
  | { type: 'agent-warning'; text: string }
  | { type: 'turn-ended'; outcome: ExternalTurnOutcome }

export type ExternalAgentEventSink = (event: ExternalAgentEvent) => void

/** The most characters of agent text one event carries. */
export const MAX_EXTERNAL_TEXT_CHARS = 64 * 1024

/** `text`, cut to `MAX_EXTERNAL_TEXT_CHARS` with a marker saying so;
 *  `length` is the whole text's when `text` is only its head. */
export function boundedText(text: string, length = text.length): string {
  if (length <= MAX_EXTERNAL_TEXT_CHARS) return text
  const dropped = length - MAX_EXTERNAL_TEXT_CHARS
  return `${text.slice(0, MAX_EXTERNAL_TEXT_CHARS)}\n[… ${dropped} more characters]`
}

/**
 * A text that arrives in pieces (an ACP agent's message chunks), kept as
 * `boundedText` would show it: only its first MAX_EXTERNAL_TEXT_CHARS
 * characters are held, and the rest only counted. An agent that streams
 * without end costs a count, not memory.
 */
export class BoundedTextBuilder {
  private head = ''
  private length = 0

  append(piece: string): void {
    if (this.head.length < MAX_EXTERNAL_TEXT_CHARS) {
      this.head += piece.slice(0, MAX_EXTERNAL_TEXT_CHARS - this.head.length)
    }
    this.length += piece.length
  }

  /** How many characters are held (never more than MAX_EXTERNAL_TEXT_CHARS). */
  get held(): number {
    return this.head.length
  }

  get empty(): boolean {
    return this.length === 0
  }

  /** The text as `boundedText` shows the whole of it. */
  text(): string {
    return boundedText(this.head, this.length)
  }
}

/**
 * Port: one agent session in one room's workspace. Both adapters
 * (`CodexAppServerClient`, `AcpClient`) implement it.
 */
export interface ExternalAgentSession {
  /** Starts the agent's session in the workspace under `mode`'s settings,
   *  and checks that the agent took them; rejects (and the session is
   *  unusable) if it did not. */
  start(mode: PermissionMode): Promise<void>
  /** Sends the person's message and resolves when the agent's turn ends.
   *  One turn at a time. */
  runTurn(text: string): Promise<ExternalTurnOutcome>
  /** Asks the agent to end the turn in progress; pending requests are
   *  withdrawn and answered as cancelled. */
  interrupt(): Promise<void>
  /** Ends the agent process. Pending requests are answered as cancelled
   *  first, while the agent can still read the answer. */
  close(): Promise<void>
}

/** A one-line title for an action: the command line, or the files. */
export function actionTitle(action: ExternalAction): string {
  switch (action.kind) {
    case 'command':
      return action.commandLine
    case 'file-changes':
      return action.changes.map((change) => change.path).join(', ')
    case 'tool':
      return action.title
  }
}

/** Calls the asker and holds it to its contract: anything but a decision
 *  (a throw, an unknown value) is `expired`, never an allow. */
export async function askSafely(
  asker: ExternalApprovalAsker,
  request: ExternalActionRequest,
  signal: AbortSignal,
): Promise<ExternalDecision> {
  try {
    const parsed = ExternalDecisionSchema.safeParse(await asker.ask(request, signal))
    return parsed.success ? parsed.data : 'expired'
  } catch {
    return 'expired'
  }
}

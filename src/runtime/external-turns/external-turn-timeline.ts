import { AGENT_TOOL_CALL_TOOL } from '../../contracts/agent-request.ts'
import type { ToolCallRecord, ToolCallStatus, Turn } from '../../contracts/room.ts'
import {
  englishText,
  message,
  type RuntimeMessage,
  type RuntimeMessageCode,
} from '../../contracts/runtime-message.ts'
import type { EventBus } from '../events/event-bus.ts'
import type {
  ExternalAgentEvent,
  ExternalRefusalCode,
} from '../external-agents/external-agent-port.ts'
import type { ConversationStore, ToolCallResult } from '../ports/conversation-store.ts'
import { MadePersonOnlyWatch, type PersonOnlyAtStart } from '../policy/made-person-only.ts'
import { failsAfterRun, madePersonOnlyNote } from '../tools/sandbox-stop-note.ts'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import { timelineArguments } from './agent-request-action.ts'

export interface ExternalTurnTimelineDeps {
  conversations: Pick<
    ConversationStore,
    'insertMessage' | 'insertToolCall' | 'updateToolCall' | 'getToolCall'
  >
  events: EventBus
  now: () => number
  newId: () => string
}

/**
 * One turn of an external agent, as the room's timeline records it: the
 * agent's messages, its tool calls with their status and output, the
 * requests refused without asking and the agent's warnings (both as notes
 * from Assent). Everything here is the agent's text, untrusted: it is
 * stored as text and the workbench shows it display-safe.
 *
 * A call Assent itself refused, denied or let expire keeps the status and
 * reason Assent gave it: what the agent reports about it afterwards (Codex
 * says "declined" for all three) would only blur why it did not run.
 */
export class ExternalTurnTimeline {
  private readonly deps: ExternalTurnTimelineDeps
  private readonly turn: Turn
  /** The timeline's call id for each of the agent's tool call ids. */
  private readonly calls = new Map<string, string>()
  /** Calls whose outcome Assent decided; the agent's later word is kept out. */
  private readonly settled = new Set<string>()
  /** What each call was recorded as, while that is only the generic
   *  `agent_tool` (see `namesMore`); a call leaves once it names itself or
   *  once Assent asks a person about it. */
  private readonly generic = new Map<string, Described>()
  /** Allowed calls whose end is awaited, with what of the person-only
   *  table existed in the workspace when the agent heard "yes". */
  private readonly watched = new Map<string, MadePersonOnlyWatch>()
  /** The paths of the file changes allowed in the turn (`allowWrites`). */
  readonly writesAllowed: string[] = []
  /** Calls with a request of the agent's being decided now (`claim`). */
  private readonly deciding = new Set<string>()
  private seq = 0

  constructor(turn: Turn, deps: ExternalTurnTimelineDeps) {
    this.turn = turn
    this.deps = deps
  }

  readonly record = (event: ExternalAgentEvent): void => {
    switch (event.type) {
      case 'agent-message':
        this.message('agent', event.text)
        return
      case 'tool-call':
        this.toolCall(event)
        return
      case 'request-refused':
        this.note(
          message('external.requestRefused', {
            reason: message(REFUSAL_MESSAGES[event.code]),
            answer: event.answer,
          }),
        )
        return
      case 'agent-warning':
        this.note(message('external.warned', { text: event.text }))
        return
      case 'turn-ended':
        // A call the agent never reported ended (cut off, cancelled) may
        // still have made something.
        for (const id of [...this.watched.keys()]) this.settleMade(id)
        return
      case 'approval-requested':
      case 'approval-answered':
        // The asker records the request and its answer on the call; the
        // backend records how the turn ended.
        return
    }
  }

  /** The timeline's record of the agent's tool call, once announced. */
  callFor(agentToolCallId: string): ToolCallRecord | undefined {
    const id = this.calls.get(agentToolCallId)
    return id === undefined ? undefined : this.deps.conversations.getToolCall(id)
  }

  /** The call for a request the agent never announced as a tool call (an
   *  ACP agent may ask first): recorded now, awaiting a decision. */
  callForRequest(
    agentToolCallId: string,
    toolName: string,
    args: Record<string, unknown>,
  ): ToolCallRecord {
    const known = this.callFor(agentToolCallId)
    // A request for a call that is over (run, refused, denied, expired) is
    // a call of its own: the record of the first keeps what it was and how
    // it ended, and the new one says what is judged now. Reused, the
    // record showed the first request's action beside the second's allow
    // (by a grant or the mode, with no approval showing it).
    if (known && !this.settled.has(known.id) && !FINISHED.has(known.status)) {
      // From here on the call is what the person is asked about: a later
      // update from the agent never redescribes it. It is recorded as the
      // request describes it, which is what is judged: an announcement of
      // the same id that said something else (`ls`, then a request for
      // `rm -rf ~`) would otherwise stand in the timeline for what the
      // grant or the mode allowed.
      this.generic.delete(known.id)
      const described = { toolName, arguments: args }
      if (!sameDescription(known, described)) {
        this.deps.conversations.updateToolCall(known.id, {
          status: known.status,
          described,
          at: this.deps.now(),
        })
        this.changed()
        return { ...known, ...described }
      }
      return known
    }
    return this.insert(agentToolCallId, toolName, args, 'awaiting-approval', null)
  }

  /**
   * Watches an allowed call the agent runs itself: once it ends, what of
   * the person-only table appeared in the workspace meanwhile is moved
   * aside (policy/made-person-only.ts) and the call fails, saying so. The
   * agent's own sandbox, if any, keeps none of it from being made, and no
   * allow of a command covers it, as for Assent's own commands.
   */
  watchMade(call: ToolCallRecord, atStart: PersonOnlyAtStart): void {
    this.watched.get(call.id)?.stop()
    this.watched.set(call.id, new MadePersonOnlyWatch(atStart))
  }

  /** A file change allowed, by its real paths: shown to whoever allowed
   *  it, so the turn's watch leaves what it writes there (turn-made-watch.ts). */
  allowWrites(paths: readonly string[]): void {
    this.writesAllowed.push(...paths)
  }

  /**
   * Takes `call` for one request of the agent's, or says no: while another
   * request for the same call is being decided, or what an earlier one
   * allowed still runs (its end awaited, `watchMade`), a second request
   * would share the call's record and its watch. Refused, it ended the
   * record while the allowed run went on, so the agent's word that the
   * run ended was dropped and what the run made of the person-only table
   * stayed; allowed, it watched again from what was there then, and what
   * the first run had made counted as there before. Until `release`.
   */
  claim(call: ToolCallRecord): boolean {
    if (this.deciding.has(call.id) || this.watched.has(call.id)) return false
    this.deciding.add(call.id)
    return true
  }

  release(call: ToolCallRecord): void {
    this.deciding.delete(call.id)
  }

  /** Records how Assent ended a call that did not run, and keeps it so. */
  settleByAssent(call: ToolCallRecord, status: ToolCallStatus, result: ToolCallResult): void {
    this.settled.add(call.id)
    this.deps.conversations.updateToolCall(call.id, { status, result, at: this.deps.now() })
    this.changed()
  }

  /** A note from Assent about the turn, in words (its English is the
   *  text stored beside them). */
  note(words: RuntimeMessage): void {
    this.message('system', englishText(words), words)
  }

  private toolCall(event: Extract<ExternalAgentEvent, { type: 'tool-call' }>): void {
    const result = resultOf(event)
    const described = describedOf(event)
    const id = this.calls.get(event.toolCallId)
    if (id === undefined) {
      const call = this.insert(
        event.toolCallId,
        described.toolName,
        described.arguments,
        event.status,
        result,
      )
      if (described.toolName === AGENT_TOOL_CALL_TOOL) this.generic.set(call.id, described)
      return
    }
    if (this.settled.has(id)) return
    // The adapters' word about a request of theirs (asked, refused, let
    // expire) is about that request: beside a request being decided or an
    // allowed run of the same call, it is not the run's, and must not end
    // the run's record or its watch.
    if ((this.deciding.has(id) || this.watched.has(id)) && BESIDE_THE_RUN.has(event.status)) return
    const recorded = this.generic.get(id)
    const named = recorded !== undefined && namesMore(described, recorded)
    if (named) {
      if (described.toolName === AGENT_TOOL_CALL_TOOL) this.generic.set(id, described)
      else this.generic.delete(id)
    }
    this.deps.conversations.updateToolCall(id, {
      status: event.status,
      ...(result === null ? {} : { result }),
      ...(named ? { described } : {}),
      at: this.deps.now(),
    })
    this.changed()
    if (FINISHED.has(event.status)) this.settleMade(id)
  }

  /** Moves aside what a watched call made of the person-only table and
   *  says so on the call, which then fails and keeps Assent's word. */
  private settleMade(id: string): void {
    const watch = this.watched.get(id)
    if (watch === undefined) return
    this.watched.delete(id)
    const after = watch.stop()
    const note = madePersonOnlyNote(after)
    const call = this.deps.conversations.getToolCall(id)
    if (note === null || call === undefined) return
    const made = failsAfterRun(after)
    const said = call.result?.output ?? ''
    this.deps.conversations.updateToolCall(id, {
      status: made ? 'failed' : call.status,
      result: {
        ok: made ? false : (call.result?.ok ?? false),
        output: said === '' ? note : `${said}\n${note}`,
        ...(call.result?.exitCode === undefined ? {} : { exitCode: call.result.exitCode }),
        ...(made ? { code: 'person_only_made' } : {}),
      },
      at: this.deps.now(),
    })
    if (made) this.settled.add(id)
    this.changed()
  }

  private insert(
    agentToolCallId: string,
    toolName: string,
    args: Record<string, unknown>,
    status: ToolCallStatus,
    result: ToolCallResult | null,
  ): ToolCallRecord {
    const at = this.deps.now()
    const call: ToolCallRecord = {
      id: this.deps.newId(),
      roomId: this.turn.roomId,
      turnId: this.turn.id,
      seq: this.seq,
      toolName,
      arguments: args,
      status,
      result,
      approvalId: null,
      createdAt: at,
      updatedAt: at,
    }
    this.seq += 1
    this.deps.conversations.insertToolCall(call)
    this.calls.set(agentToolCallId, call.id)
    this.changed()
    return call
  }

  private message(role: 'agent' | 'system', text: string, words?: RuntimeMessage): void {
    this.deps.conversations.insertMessage({
      id: this.deps.newId(),
      roomId: this.turn.roomId,
      turnId: this.turn.id,
      role,
      text,
      ...(words === undefined ? {} : { message: words }),
      createdAt: this.deps.now(),
    })
    this.changed()
  }

  private changed(): void {
    this.deps.events.emit('timeline.updated', { roomId: this.turn.roomId })
  }
}

type Described = Pick<ToolCallRecord, 'toolName' | 'arguments'>

function sameDescription(recorded: Described, next: Described): boolean {
  return (
    recorded.toolName === next.toolName &&
    canonicalJson(recorded.arguments) === canonicalJson(next.arguments)
  )
}

/** How the timeline records what an agent's call does. */
function describedOf(event: Extract<ExternalAgentEvent, { type: 'tool-call' }>): Described {
  const shown = timelineArguments(event.action)
  return event.action === null
    ? { toolName: shown.toolName, arguments: { title: event.title } }
    : { toolName: shown.toolName, arguments: shown.arguments }
}

/**
 * Whether `next` says more about a call first recorded as the generic
 * `agent_tool` than `recorded` does. An ACP agent may announce a call
 * before it knows what the call is (Claude's first `tool_call` can lack
 * its kind and input), and name it in a later `tool_call_update`: a
 * command or file changes always say more; another generic description
 * says more only if it keeps the kind and title already known and adds
 * one of them.
 */
function namesMore(next: Described, recorded: Described): boolean {
  if (next.toolName !== AGENT_TOOL_CALL_TOOL) return true
  const kind = (described: Described) => {
    const value = described.arguments.toolKind
    return typeof value === 'string' && value !== 'other' ? value : ''
  }
  const title = (described: Described) => {
    const value = described.arguments.title
    return typeof value === 'string' ? value : ''
  }
  const keeps =
    (kind(recorded) === '' || kind(next) !== '') && (title(recorded) === '' || title(next) !== '')
  const adds =
    (kind(recorded) === '' && kind(next) !== '') || (title(recorded) === '' && title(next) !== '')
  return keeps && adds
}

const FINISHED: ReadonlySet<ToolCallStatus> = new Set([
  'succeeded',
  'failed',
  'refused',
  'denied',
  'expired',
])

/** The statuses the adapters give a call for a request of theirs. */
const BESIDE_THE_RUN: ReadonlySet<ToolCallStatus> = new Set([
  'awaiting-approval',
  'denied',
  'expired',
])

/** What the agent reported about a call: its output and exit code, once
 *  there is any, or once the call has finished. */
function resultOf(
  event: Extract<ExternalAgentEvent, { type: 'tool-call' }>,
): ToolCallResult | null {
  if (event.output === null && event.exitCode === null && !FINISHED.has(event.status)) return null
  return {
    ok: event.status === 'succeeded',
    output: event.output ?? '',
    ...(event.exitCode === null ? {} : { exitCode: event.exitCode }),
  }
}

/** Why a request was refused without asking, in the person's words. */
const REFUSAL_MESSAGES: Readonly<Record<ExternalRefusalCode, RuntimeMessageCode>> = {
  unreadable: 'external.refusal.unreadable',
  'other-session': 'external.refusal.otherSession',
  'unsupported-request': 'external.refusal.unsupportedRequest',
  'unsupported-command-kind': 'external.refusal.unsupportedCommandKind',
  'network-access': 'external.refusal.networkAccess',
  'extra-permissions': 'external.refusal.extraPermissions',
  'no-command-line': 'external.refusal.noCommandLine',
  'unannounced-changes': 'external.refusal.unannouncedChanges',
  'grant-root': 'external.refusal.grantRoot',
  'command-folder-not-absolute': 'external.refusal.commandFolderNotAbsolute',
  'place-not-absolute': 'external.refusal.placeNotAbsolute',
  'no-allow-once-option': 'external.refusal.noAllowOnceOption',
  'ambiguous-options': 'external.refusal.ambiguousOptions',
  'turn-cancelled': 'external.refusal.turnCancelled',
  'other-turn': 'external.refusal.otherTurn',
}

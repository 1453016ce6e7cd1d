/**
 * The deterministic offline model fixture: no network, no weights. It turns
 * a tiny command language into tool calls so the app, the smoke scenario and
 * tests can drive real approvals without a model. A real model client
 * replaces it by implementing `AgentModel` (agent-model.ts) and passing it
 * as `RuntimeOptions.model`.
 *
 * Grammar, one command per line; several lines make several calls, in order.
 * Blank lines are skipped. Verbs are case-insensitive. A path may be quoted
 * ('…' or "…", no escapes inside) to hold spaces; an empty path or program
 * name does not fit.
 *
 *   write <path> <text...>   write_file {path, content: text}; the text is
 *                            the rest of the line after the path and one
 *                            space, verbatim (quotes kept); may be empty
 *   read <path>              read_file {path}
 *   delete <path>            delete_file {path}
 *   delete -r <path>         delete_file {path, recursive: true}
 *   list [<path>]            list_dir {path}, default "."
 *   run <command...>         run_command {argv}: split on whitespace,
 *                            honouring '…' and "…" quotes; no shell
 *   ask … / form …           a question or a form for the person
 *                            (input-grammar.ts)
 *   mcp <server> <tool> <json>
 *                            the MCP tool <server>__<tool> with the JSON
 *                            object that fills the rest of the line
 *   permit write <path> [| <reason>]
 *   permit network <command...> [| <reason>]
 *                            asks for a permission the room does not give,
 *                            for this turn: write access to one more
 *                            directory, or network access for one command;
 *                            the first " | " starts the reason
 *
 * If any line does not fit, the whole message gets a reply explaining the
 * grammar and no tool calls: half a plan is worse than none.
 */

import type {
  ActionOutcome,
  AgentAction,
  AgentContext,
  AgentModel,
  AgentStep,
  AgentToolCall,
} from './agent-model.ts'
import { parseAskLine, parseFormLine } from './input-grammar.ts'
import { englishText, message, type RuntimeMessage } from '../../contracts/runtime-message.ts'

/** What the grammar makes of one message: what the agent says while acting,
 *  the actions in order, and `toolCalls`, the tool actions alone. */
export type AgentPlan = {
  reply: string
  /** `reply` as a code, for the person's language. */
  replyMessage: RuntimeMessage
  toolCalls: AgentToolCall[]
  steps: AgentAction[]
}

/** The grammar itself: commands, shown as they are in every language. */
const GRAMMAR = [
  '  write <path> <text...>',
  '  read <path>',
  '  delete [-r] <path>',
  '  list [<path>]',
  '  run <command...>',
  '  ask [--secret] [--blocking] <title> | <question> [| <option>[ = <explanation>]]...',
  '  form <message> [:: <JSON schema>]',
  '  mcp <server> <tool> <json object>',
  '  permit write <path> [| <reason>]   permit network <command...> [| <reason>]',
].join('\n')

const HELP = message('offline.help', { grammar: GRAMMAR, example: 'read "my notes.txt"' })

export const OFFLINE_MODEL_HELP = englishText(HELP)

/**
 * Two steps per turn at most. First: the person's message, read by the
 * grammar, becomes every action at once (or, if it does not fit, a reply
 * explaining the grammar). Then, once those actions ran: a reply reporting
 * each tool's outcome, so the person reads in the agent's words what was
 * written, refused and why, denied, or left to expire.
 */
export class OfflineModel implements AgentModel {
  async next(context: AgentContext): Promise<AgentStep> {
    if (context.outcomes.length > 0) {
      const report = outcomesReport(context.outcomes)
      return report === undefined
        ? { type: 'reply', text: '' }
        : { type: 'reply', text: englishText(report), message: report }
    }
    const plan = this.plan(context.userText)
    if (plan.steps.length === 0)
      return { type: 'reply', text: plan.reply, message: plan.replyMessage }
    return { type: 'act', say: plan.reply, sayMessage: plan.replyMessage, actions: plan.steps }
  }

  /** The grammar alone: the same message always gives the same plan. */
  plan(text: string): AgentPlan {
    const lines = text.split(/\r?\n/)
    const steps: AgentAction[] = []
    const says: RuntimeMessage[] = []
    const only = (replyMessage: RuntimeMessage): AgentPlan => ({
      reply: englishText(replyMessage),
      replyMessage,
      toolCalls: [],
      steps: [],
    })
    for (const [index, line] of lines.entries()) {
      if (line.trim() === '') continue
      const step = parseInputLine(line, steps) ?? parsePermitLine(line) ?? parseToolLine(line)
      if (step === null) {
        return only(
          message('offline.notUnderstood', {
            line: index + 1,
            text: JSON.stringify(line.trim()),
            help: HELP,
          }),
        )
      }
      if (step === 'joined') continue
      steps.push(step.step)
      says.push(step.says)
    }
    if (steps.length === 0) return only(HELP)
    const replyMessage = message('lines.joined', { lines: says })
    return {
      reply: englishText(replyMessage),
      replyMessage,
      toolCalls: steps.flatMap((step) => (step.type === 'tool' ? [step.call] : [])),
      steps,
    }
  }
}

/** One line per tool call, in order; questions and forms already answered
 *  in their own messages are not repeated. Empty when there was no tool. */
export function reportOutcomes(outcomes: readonly ActionOutcome[]): string {
  const report = outcomesReport(outcomes)
  return report === undefined ? '' : englishText(report)
}

/** `reportOutcomes` as a code: each line names the call and says how it
 *  ended, with the tool's own result in words where it has them. */
export function outcomesReport(outcomes: readonly ActionOutcome[]): RuntimeMessage | undefined {
  const lines: RuntimeMessage[] = []
  for (const outcome of outcomes) {
    if (outcome.type === 'permissions') {
      lines.push(describePermission(outcome))
      continue
    }
    if (outcome.type !== 'tool') continue
    const what = describeCall(outcome.call)
    const raw = outcome.result.output.trim()
    const said = outcome.result.message
    switch (outcome.status) {
      case 'succeeded':
        lines.push(
          raw === ''
            ? message('offline.done', { what })
            : message('offline.doneWith', { what, output: said ?? firstLine(raw) }),
        )
        break
      case 'refused':
        lines.push(message('offline.refused', { what, output: said ?? raw }))
        break
      case 'denied':
        // The runner's words name who denied it: the person, the automatic
        // review or the room's policy.
        lines.push(message('offline.denied', { what, output: said ?? raw }))
        break
      case 'expired':
        lines.push(message('offline.expired', { what }))
        break
      default:
        lines.push(message('offline.failed', { what, output: said ?? raw }))
    }
  }
  return lines.length === 0 ? undefined : message('offline.report', { lines })
}

function describePermission(
  outcome: Extract<ActionOutcome, { type: 'permissions' }>,
): RuntimeMessage {
  const { widen } = outcome.request
  const what =
    widen.type === 'write-directory'
      ? message('offline.permissionWrite', { path: widen.path })
      : message('offline.permissionNetwork', { command: widen.argv.join(' ') })
  const output = outcome.result.message ?? outcome.result.output.trim()
  if (outcome.status === 'succeeded') return message('offline.permissionGranted', { what })
  if (outcome.status === 'expired') return message('offline.permissionExpired', { what })
  if (outcome.status === 'refused') return message('offline.permissionRefused', { what, output })
  return message('offline.permissionDenied', { what, output })
}

function describeCall(call: AgentToolCall): RuntimeMessage | string {
  const args = call.arguments
  if (Array.isArray(args.argv)) {
    return message('offline.callRun', { command: args.argv.map(String).join(' ') })
  }
  if (typeof args.path === 'string') {
    return message('offline.callPath', { tool: call.tool, path: args.path })
  }
  return call.tool
}

/** Output can be a whole file; the report names the gist, the tool call in
 *  the timeline keeps the rest. */
function firstLine(text: string): string {
  const [first = ''] = text.split('\n')
  return first.length > 200 ? `${first.slice(0, 200)}…` : first
}

type ParsedStep = { step: AgentAction; says: RuntimeMessage }

/** An `ask` or `form` line, `'joined'` when an `ask` line added a question
 *  to the request just before it, or undefined when the line is neither. */
function parseInputLine(
  line: string,
  steps: AgentAction[],
): ParsedStep | 'joined' | null | undefined {
  const verb = /^\s*(\S+)/.exec(line)?.[1]?.toLowerCase()
  if (verb === 'form') {
    const form = parseFormLine(line)
    return form ? { step: { type: 'form', form }, says: message('offline.needDetails') } : null
  }
  if (verb !== 'ask') return undefined
  const parsed = parseAskLine(line)
  if (!parsed) return null
  const previous = steps.at(-1)
  if (previous?.type === 'questions') {
    previous.questions.push({ ...parsed.question, id: `q${previous.questions.length + 1}` })
    previous.blocking ||= parsed.blocking
    return 'joined'
  }
  return {
    step: {
      type: 'questions',
      questions: [{ ...parsed.question, id: 'q1' }],
      blocking: parsed.blocking,
    },
    says: message('offline.asking'),
  }
}

/** A `permit` line, or undefined when the line is something else. */
function parsePermitLine(line: string): ParsedStep | null | undefined {
  const verb = /^\s*(\S+)/.exec(line)?.[1]?.toLowerCase()
  if (verb !== 'permit') return undefined
  const split = line.indexOf(' | ')
  const body = split === -1 ? line : line.slice(0, split)
  const reason =
    split === -1
      ? ''
      : line
          .slice(split + 3)
          .trim()
          .slice(0, 2_000)
  const tokens = tokenize(body)
  if (tokens === null) return null
  const [, kind, ...rest] = tokens
  if (kind?.toLowerCase() === 'write' && rest.length === 1 && rest[0] !== '') {
    const target = rest[0] ?? ''
    return {
      step: {
        type: 'permissions',
        request: { widen: { type: 'write-directory', path: target }, reason },
      },
      says: message('offline.askingWrite', { path: target }),
    }
  }
  if (kind?.toLowerCase() === 'network' && rest.length >= 1 && rest[0] !== '') {
    return {
      step: { type: 'permissions', request: { widen: { type: 'network', argv: rest }, reason } },
      says: message('offline.askingNetwork', { command: rest.join(' ') }),
    }
  }
  return null
}

function parseToolLine(line: string): ParsedStep | null {
  const parsed = parseLine(line)
  return parsed ? { step: { type: 'tool', call: parsed.call }, says: parsed.says } : null
}

function parseLine(line: string): { call: AgentToolCall; says: RuntimeMessage } | null {
  const first = scanToken(line, 0)
  if (first === null || first === 'unterminated' || first.quoted) return null
  const verb = first.value.toLowerCase()
  const rest = line.slice(first.next)

  if (verb === 'write') {
    const target = scanToken(rest, 0)
    if (target === null || target === 'unterminated' || target.value === '') return null
    const content = rest.slice(target.next).replace(/^\s/, '')
    return {
      call: { tool: 'write_file', arguments: { path: target.value, content } },
      says: message('offline.writing', { path: target.value }),
    }
  }

  if (verb === 'mcp') return parseMcp(rest)

  const args = tokenize(rest)
  if (args === null) return null
  // Only `run` may carry empty arguments (`run echo ""`); an empty path or
  // program name is a mistake the tool would refuse anyway.
  if (verb !== 'run' && args.includes('')) return null

  if (verb === 'read' && args.length === 1 && args[0] !== undefined) {
    return {
      call: { tool: 'read_file', arguments: { path: args[0] } },
      says: message('offline.reading', { path: args[0] }),
    }
  }
  if (verb === 'delete') return parseDelete(args)
  if (verb === 'list' && args.length <= 1) {
    const target = args[0] ?? '.'
    return {
      call: { tool: 'list_dir', arguments: { path: target } },
      says: message('offline.listing', { path: target }),
    }
  }
  if (verb === 'run' && args.length >= 1 && args[0] !== '') {
    return {
      call: { tool: 'run_command', arguments: { argv: args } },
      says: message('offline.running', { command: args.join(' ') }),
    }
  }
  return null
}

/** `mcp <server> <tool> <json>`: names are plain words, the arguments one
 *  JSON object (the rest of the line). */
function parseMcp(rest: string): { call: AgentToolCall; says: RuntimeMessage } | null {
  const match = /^\s+([a-z0-9][a-z0-9-]*)\s+([A-Za-z0-9_.-]+)\s+(\{.*\})\s*$/.exec(rest)
  if (!match) return null
  const [, server = '', tool = '', json = ''] = match
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch {
    return null
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null
  return {
    call: { tool: `${server}__${tool}`, arguments: value as Record<string, unknown> },
    says: message('offline.callingMcp', { tool, server }),
  }
}

function parseDelete(args: string[]): { call: AgentToolCall; says: RuntimeMessage } | null {
  if (args.length === 1 && args[0] !== undefined && args[0] !== '-r') {
    return {
      call: { tool: 'delete_file', arguments: { path: args[0] } },
      says: message('offline.deleting', { path: args[0] }),
    }
  }
  if (args.length === 2 && args[0] === '-r' && args[1] !== undefined) {
    return {
      call: { tool: 'delete_file', arguments: { path: args[1], recursive: true } },
      says: message('offline.deletingTree', { path: args[1] }),
    }
  }
  return null
}

/** Every token on the line, or null if a quote is left open. */
function tokenize(text: string): string[] | null {
  const tokens: string[] = []
  let at = 0
  for (;;) {
    const token = scanToken(text, at)
    if (token === 'unterminated') return null
    if (token === null) return tokens
    tokens.push(token.value)
    at = token.next
  }
}

type Scanned = { value: string; next: number; quoted: boolean }

/** Reads one whitespace-separated token from `start`. Quoted runs keep their
 *  spaces and join with adjacent text, as in a shell: `a"b c"` is `ab c`. */
function scanToken(text: string, start: number): Scanned | 'unterminated' | null {
  let i = start
  while (i < text.length && /\s/.test(text[i] ?? '')) i += 1
  if (i >= text.length) return null
  let value = ''
  let quoted = false
  while (i < text.length) {
    const ch = text[i] ?? ''
    if (/\s/.test(ch)) break
    if (ch === '"' || ch === "'") {
      const close = text.indexOf(ch, i + 1)
      if (close === -1) return 'unterminated'
      value += text.slice(i + 1, close)
      quoted = true
      i = close + 1
      continue
    }
    value += ch
    i += 1
  }
  return { value, next: i, quoted }
}

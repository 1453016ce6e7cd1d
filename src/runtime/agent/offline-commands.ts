/**
 * The offline model fixture's message language: one command per line, each
 * read into an action (a tool call, a question or form, a permission
 * request) and what the agent says about it. offline-model.ts turns a whole
 * message into a plan with these.
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
 */

import type { AgentAction, AgentToolCall } from './agent-model.ts'
import { parseAskLine, parseFormLine } from './input-grammar.ts'
import { message, type RuntimeMessage } from '../../contracts/runtime-message.ts'

/** The grammar itself: commands, shown as they are in every language. */
export const COMMAND_GRAMMAR = [
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

/** What one line makes: its action and what the agent says about it. */
export type ParsedStep = { step: AgentAction; says: RuntimeMessage }

/** One line read by the grammar: its step, `'joined'` when an `ask` line
 *  added a question to the request just before it (the last of `steps`,
 *  the actions so far), or null when the line does not fit. */
export function parseCommandLine(line: string, steps: AgentAction[]): ParsedStep | 'joined' | null {
  return parseInputLine(line, steps) ?? parsePermitLine(line) ?? parseToolLine(line)
}

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

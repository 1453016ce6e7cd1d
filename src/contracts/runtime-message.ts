import { z } from 'zod'
import { RUNTIME_MESSAGES_EN } from './runtime-messages-en.ts'

/**
 * What the runtime says to a person (a summary, a tool's result, a refusal,
 * the offline agent's reply) as a code with parameters, so the workbench
 * and the protected window word it in the person's language. The English
 * `text` (or `summary`, `output`, `reason`) beside it stays, for logs, the
 * HTTP API and the model.
 *
 * A parameter is a value shown as it is (a path, a command, a tool's name:
 * a string, drawn as code), a number, or another message (a reason worded
 * in its own right), or a list of messages (one per line).
 */
export interface RuntimeMessage {
  code: string
  params?: { [name: string]: RuntimeMessageParam }
}
export type RuntimeMessageParam = string | number | RuntimeMessage | RuntimeMessage[]

const MAX_PARAM_CHARS = 64 * 1024
const MAX_LIST_ITEMS = 500

/** How deep messages nest: a message may name messages eight levels down
 *  at most. The workbench draws no deeper (`messagePieces`), and a bound
 *  keeps a hostile row or body from driving the parser down without end. */
export const MAX_MESSAGE_DEPTH = 8

const MESSAGE_CODE = z.string().regex(/^[a-z][A-Za-z]*(\.[a-z][A-Za-z]*)+$/)
const PARAM_NAME = z.string().regex(/^[a-z][A-Za-z]*$/)

/** A message whose parameters nest `depth` more levels of messages at most.
 *  Written out level by level rather than as one recursive schema: zod
 *  guards every recursive schema against cyclic input on each parse, which
 *  cost more than the parse itself on the decision path (docs/benchmarks-history.md),
 *  and a JSON value is never cyclic. */
function messageNesting(depth: number): z.ZodType<RuntimeMessage> {
  const inner = depth === 0 ? undefined : messageNesting(depth - 1)
  const value =
    inner === undefined
      ? z.union([z.string().max(MAX_PARAM_CHARS), z.number()])
      : z.union([
          z.string().max(MAX_PARAM_CHARS),
          z.number(),
          inner,
          z.array(inner).max(MAX_LIST_ITEMS),
        ])
  return z.strictObject({
    code: MESSAGE_CODE,
    params: z.record(PARAM_NAME, value).optional(),
  }) as z.ZodType<RuntimeMessage>
}

export const RuntimeMessageSchema: z.ZodType<RuntimeMessage> = messageNesting(MAX_MESSAGE_DEPTH)

export { RUNTIME_MESSAGES_EN }

/** Dotted paths to every message, e.g. `'summary.write'`. */
type Leaves<T> = {
  [K in keyof T & string]: T[K] extends string ? K : `${K}.${Leaves<T[K]>}`
}[keyof T & string]
export type RuntimeMessageCode = Leaves<typeof RUNTIME_MESSAGES_EN>

/** A message, checked at compile time to name a code that exists. */
export function message(
  code: RuntimeMessageCode,
  params?: { [name: string]: RuntimeMessageParam },
): RuntimeMessage {
  return params === undefined ? { code } : { code, params }
}

/** Finds a template by its dotted code in a catalog of the same shape. */
export function templateIn(catalog: unknown, code: string): string | undefined {
  let node = catalog
  for (const part of code.split('.')) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, part)) return undefined
    node = (node as Record<string, unknown>)[part]
  }
  return typeof node === 'string' ? node : undefined
}

/** A worded message, in pieces: plain text, or a value shown as it is. */
export type MessagePiece = { text: string } | { value: string }

const PLACEHOLDER = /\{\{([A-Za-z]+)\}\}/g

/**
 * A message as pieces of text and values, worded by `lookup` (a code's
 * template in one language). Undefined when any code in it, or any
 * parameter its template names, is missing: the caller then shows the
 * English text the message came with, rather than half a sentence.
 */
export function messagePieces(
  msg: RuntimeMessage,
  lookup: (code: string) => string | undefined,
  depth = 0,
): MessagePiece[] | undefined {
  // Messages nest only a few levels (a report line names a call and its
  // result); a deeper one is not something the runtime sent.
  if (depth > 8) return undefined
  const template = lookup(msg.code)
  if (template === undefined) return undefined
  const pieces: MessagePiece[] = []
  let last = 0
  for (const match of template.matchAll(PLACEHOLDER)) {
    if (match.index > last) pieces.push({ text: template.slice(last, match.index) })
    last = match.index + match[0].length
    const name = match[1] ?? ''
    const value =
      msg.params !== undefined && Object.hasOwn(msg.params, name) ? msg.params[name] : undefined
    if (value === undefined) return undefined
    if (typeof value === 'string') pieces.push({ value })
    else if (typeof value === 'number') pieces.push({ text: String(value) })
    else {
      const items = Array.isArray(value) ? value : [value]
      for (const [index, item] of items.entries()) {
        if (index > 0) pieces.push({ text: '\n' })
        const inner = messagePieces(item, lookup, depth + 1)
        if (inner === undefined) return undefined
        pieces.push(...inner)
      }
    }
  }
  if (last < template.length) pieces.push({ text: template.slice(last) })
  return pieces
}

/** The message as plain text in the language `lookup` words it in. */
export function messageText(
  msg: RuntimeMessage,
  lookup: (code: string) => string | undefined,
): string | undefined {
  return messagePieces(msg, lookup)
    ?.map((piece) => ('text' in piece ? piece.text : piece.value))
    .join('')
}

/** The English text of a message the runtime builds itself: every code it
 *  uses is in `RUNTIME_MESSAGES_EN` (a type error otherwise). */
export function englishText(msg: RuntimeMessage): string {
  const text = messageText(msg, (code) => templateIn(RUNTIME_MESSAGES_EN, code))
  if (text === undefined) throw new Error(`no English wording for ${JSON.stringify(msg)}`)
  return text
}

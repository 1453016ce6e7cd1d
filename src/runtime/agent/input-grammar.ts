import {
  FormRequestSchema,
  type FormRequest,
  type Question,
} from '../../contracts/input-request.ts'

/**
 * The offline model's lines that ask the person instead of calling a tool.
 *
 *   ask [--secret] [--blocking] <title> | <text> [| <option>[ = <explanation>]]...
 *       One question. Consecutive `ask` lines make one request with several
 *       questions; `--blocking` on any of them makes the request blocking
 *       (plan mode: it never times out). `--secret` keeps that answer out of
 *       history and every log.
 *   form <message>
 *       A form without a schema: one large text field, sent as `answer`.
 *   form <message> :: <requestedSchema as JSON>
 *       A form from an MCP-style `requestedSchema` (see form-schema.ts).
 */
export type ParsedQuestion = { question: Omit<Question, 'id'>; blocking: boolean }

export function parseAskLine(line: string): ParsedQuestion | null {
  const match = /^\s*ask\s+(.*)$/i.exec(line)
  if (!match) return null
  let rest = match[1] ?? ''
  let secret = false
  let blocking = false
  for (;;) {
    const flag = /^(--secret|--blocking)(\s+|$)/.exec(rest)
    if (!flag) break
    if (flag[1] === '--secret') secret = true
    else blocking = true
    rest = rest.slice(flag[0].length)
  }
  const parts = rest.split('|').map((part) => part.trim())
  const [title, text, ...options] = parts
  if (!title || text === undefined || text === '') return null
  const parsedOptions = []
  for (const option of options) {
    const [label, ...explanation] = option.split(' = ')
    if (!label?.trim()) return null
    const why = explanation.join(' = ').trim()
    parsedOptions.push({ label: label.trim(), ...(why ? { explanation: why } : {}) })
  }
  return { question: { title, text, options: parsedOptions, secret }, blocking }
}

export function parseFormLine(line: string): FormRequest | null {
  const match = /^\s*form\s+(.*)$/i.exec(line)
  if (!match) return null
  const body = match[1] ?? ''
  const split = body.indexOf(' :: ')
  const message = (split === -1 ? body : body.slice(0, split)).trim()
  if (message === '') return null
  if (split === -1) return { message }
  let requestedSchema: unknown
  try {
    requestedSchema = JSON.parse(body.slice(split + 4))
  } catch {
    return null
  }
  const parsed = FormRequestSchema.safeParse({ message, requestedSchema })
  return parsed.success ? parsed.data : null
}

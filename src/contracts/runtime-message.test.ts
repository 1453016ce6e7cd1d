import { describe, expect, it } from 'vitest'
import {
  MAX_MESSAGE_DEPTH,
  RuntimeMessageSchema,
  messagePieces,
  type RuntimeMessage,
} from './runtime-message.ts'

/** A message that names one `depth` levels down, by a parameter or in a
 *  list, alternately. */
function nested(depth: number): RuntimeMessage {
  let message: RuntimeMessage = { code: 'call.done', params: { tool: 'write_file', bytes: 3 } }
  for (let level = 1; level <= depth; level += 1) {
    message =
      level % 2 === 0
        ? { code: 'report.reason', params: { reason: message } }
        : { code: 'report.items', params: { items: [message, { code: 'call.expired' }] } }
  }
  return message
}

describe('RuntimeMessageSchema', () => {
  it('takes messages nested as deep as the workbench draws them, and no deeper', () => {
    for (let depth = 0; depth <= MAX_MESSAGE_DEPTH; depth += 1) {
      expect(RuntimeMessageSchema.safeParse(nested(depth)).success, `depth ${depth}`).toBe(true)
    }
    expect(RuntimeMessageSchema.safeParse(nested(MAX_MESSAGE_DEPTH + 1)).success).toBe(false)
    expect(RuntimeMessageSchema.safeParse(nested(MAX_MESSAGE_DEPTH + 5)).success).toBe(false)
  })

  it('draws exactly the depths it takes', () => {
    const templates: Record<string, string> = {
      'call.done': '{{tool}} wrote {{bytes}}',
      'call.expired': 'expired',
      'report.items': '- {{items}}',
      'report.reason': 'because {{reason}}',
    }
    const lookup = (code: string) => templates[code]
    expect(messagePieces(nested(MAX_MESSAGE_DEPTH), lookup)).toBeDefined()
    expect(messagePieces(nested(MAX_MESSAGE_DEPTH + 1), lookup)).toBeUndefined()
  })

  it('checks every level the same way: codes, parameter names, value sizes, list lengths', () => {
    const deep = (inner: unknown) => ({
      code: 'a.b',
      params: { reason: { code: 'c.d', params: inner } },
    })
    expect(RuntimeMessageSchema.safeParse(deep({ path: 'x' })).success).toBe(true)
    expect(RuntimeMessageSchema.safeParse(deep({ Path: 'x' })).success).toBe(false)
    expect(RuntimeMessageSchema.safeParse(deep({ path: 'x'.repeat(64 * 1024 + 1) })).success).toBe(
      false,
    )
    expect(RuntimeMessageSchema.safeParse(deep({ path: true })).success).toBe(false)
    expect(
      RuntimeMessageSchema.safeParse(deep({ items: Array(501).fill({ code: 'e.f' }) })).success,
    ).toBe(false)
    expect(RuntimeMessageSchema.safeParse({ code: 'NoDot' }).success).toBe(false)
    expect(RuntimeMessageSchema.safeParse({ code: 'a.b', extra: 1 }).success).toBe(false)
  })
})

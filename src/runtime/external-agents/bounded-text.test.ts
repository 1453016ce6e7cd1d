import { describe, expect, it } from 'vitest'
import { BoundedTextBuilder, boundedText, MAX_EXTERNAL_TEXT_CHARS } from './external-agent-port.ts'

describe('a text that arrives in pieces', () => {
  it.each([
    ['nothing', []],
    ['one piece', ['hello']],
    ['pieces up to the limit', ['a'.repeat(MAX_EXTERNAL_TEXT_CHARS - 1), 'b']],
    ['a piece that crosses the limit', ['a'.repeat(MAX_EXTERNAL_TEXT_CHARS - 1), 'bcd']],
    ['many pieces past it', Array.from({ length: 300 }, (_, n) => `${n}`.padEnd(1_000, '.'))],
  ])('%s: reads as the whole text cut by boundedText', (_name, pieces) => {
    const builder = new BoundedTextBuilder()
    for (const piece of pieces) builder.append(piece)
    expect(builder.text()).toBe(boundedText(pieces.join('')))
    expect(builder.empty).toBe(pieces.join('') === '')
  })

  it('holds no more than it shows, however long the agent streams', () => {
    const builder = new BoundedTextBuilder()
    const piece = 'x'.repeat(1_000_000)
    for (let n = 0; n < 100; n += 1) builder.append(piece)
    expect(builder.held).toBe(MAX_EXTERNAL_TEXT_CHARS)
    expect(builder.text()).toBe(
      `${'x'.repeat(MAX_EXTERNAL_TEXT_CHARS)}\n[… ${100_000_000 - MAX_EXTERNAL_TEXT_CHARS} more characters]`,
    )
  })
})

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { SENSITIVE_RULES } from './sensitive-path-rules.ts'

const DOC = readFileSync(new URL('../../../docs/security-model.md', import.meta.url), 'utf8')

/** The table as docs/security-model.md prints it: one row per class, kind
 *  of match and reason, in the code's order. */
function rowsFromCode(): string[][] {
  const groups = new Map<string, string[]>()
  for (const rule of SENSITIVE_RULES) {
    const key = [rule.class, rule.match, rule.readAsks ? 'yes' : 'no', rule.why].join('\0')
    groups.set(key, [...(groups.get(key) ?? []), `\`${rule.value}\``])
  }
  return [...groups].map(([key, values]) => {
    const [klass = '', match = '', readAsks = '', why = ''] = key.split('\0')
    return [klass, match, values.join(', '), readAsks, why]
  })
}

/** The rows of the documented table, cells unescaped (`\|` inside code). */
function rowsFromDoc(): string[][] {
  return DOC.split('\n')
    .filter((line) => /^\|\s*(credentials|shell-startup|git|runs-later)\s*\|/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim().replaceAll('\\|', '|')),
    )
}

describe('the table of what always needs a person in docs/security-model.md', () => {
  it('states exactly the rules the code applies, in its order', () => {
    expect(rowsFromDoc()).toEqual(rowsFromCode())
  })
})

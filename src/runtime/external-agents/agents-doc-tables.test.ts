import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { PermissionModeSchema } from '../../contracts/policy-axes.ts'
import { acpOutcomeFor } from './acp-messages.ts'
import { CODEX_THREAD_SETTINGS, KNOWN_ACP_SESSION_MODES } from './agent-mode-mapping.ts'
import { codexAnswerFor } from './codex-app-server-messages.ts'
import { ExternalDecisionSchema } from './external-agent-port.ts'

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8')
const DOC = read('../../../docs/agents-external.md')

/** The cells of the table rows in `doc` whose first cell is one of `keys`, quoted. */
function rows(keys: readonly string[], doc = DOC): Record<string, string[]> {
  const found: Record<string, string[]> = {}
  for (const line of doc.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim())
    const key = /^`([a-z-]+)`$/.exec(cells[1] ?? '')?.[1]
    if (line.startsWith('|') && key && keys.includes(key)) found[key] = cells.slice(2, -1)
  }
  return found
}

const unquote = (cell: string | undefined) => cell?.replaceAll('`', '')

// The README links here rather than repeating the table.
describe.each([['docs/agents-external.md', DOC]])('%s', (_name, doc) => {
  it('prints the mode table the adapters use', () => {
    const documented = rows(PermissionModeSchema.options, doc)
    const actual = Object.fromEntries(
      PermissionModeSchema.options.map((mode) => {
        const codex = CODEX_THREAD_SETTINGS[mode]
        const acp = KNOWN_ACP_SESSION_MODES['codex-acp'][mode]
        const claude = KNOWN_ACP_SESSION_MODES['claude-agent-acp'][mode]
        return [mode, [codex.approvalPolicy, codex.sandbox, codex.approvalsReviewer, acp, claude]]
      }),
    )
    expect(
      Object.fromEntries(Object.entries(documented).map(([k, v]) => [k, v.map(unquote)])),
    ).toEqual(actual)
  })
})

describe('docs/agents-external.md', () => {
  it('prints how each decision is told to each agent', () => {
    const documented = rows(ExternalDecisionSchema.options)
    const options = [
      { optionId: 'the `allow_once` option', kind: 'allow_once' },
      { optionId: 'the `reject_once` option', kind: 'reject_once' },
    ]
    for (const decision of ExternalDecisionSchema.options) {
      const [codex, acp] = documented[decision] ?? []
      expect(unquote(codex)).toBe(codexAnswerFor(decision))
      const outcome = acpOutcomeFor(decision, options)
      const expected = outcome.outcome === 'selected' ? outcome.optionId : '`cancelled`'
      // A reject answer falls back to `cancelled` when no reject_once is offered.
      expect(acp?.startsWith(expected)).toBe(true)
    }
    expect(Object.keys(documented).sort()).toEqual([...ExternalDecisionSchema.options].sort())
  })
})

import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { ApprovalPolicy } from '../../contracts/policy-axes.ts'
import { APPROVAL_POLICY_TABLE, grantsHonoured, privateReadDisposition } from './approval-policy.ts'

const DOC = readFileSync(new URL('../../../docs/policy-and-modes.md', import.meta.url), 'utf8')

describe('the approval-policy table in docs/policy-and-modes.md', () => {
  it('states exactly what the code does for every policy and effect', () => {
    const rows = DOC.split('\n').filter((line) =>
      /^\|\s*`[a-z-]+`( \(legacy\))?\s*\|\s*(run|ask|deny)\s*\|/.test(line),
    )
    const documented = Object.fromEntries(
      rows.map((row) => {
        const cells = row.split('|').map((cell) => cell.trim())
        const policy = /`([a-z-]+)`/.exec(cells[1] ?? '')?.[1] as ApprovalPolicy
        return [policy, cells.slice(2, 8)]
      }),
    )
    const actual = Object.fromEntries(
      Object.entries(APPROVAL_POLICY_TABLE).map(([policy, effects]) => [
        policy,
        [
          effects.read.plain,
          privateReadDisposition(policy as ApprovalPolicy),
          effects.write.plain,
          effects.execute.plain,
          effects.network.plain,
          grantsHonoured(policy as ApprovalPolicy) ? 'honoured' : 'ignored',
        ],
      ]),
    )
    expect(documented).toEqual(actual)
  })
})

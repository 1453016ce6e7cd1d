import { describe, expect, it } from 'vitest'
import {
  ApprovalPolicySchema,
  ApprovalReviewerSchema,
  PermissionModeSchema,
  SandboxModeSchema,
  ToolEffectSchema,
  type PermissionMode,
  type RoomPolicy,
  type ToolEffect,
} from '../../contracts/policy-axes.ts'
import {
  APPROVAL_POLICY_TABLE,
  PRIVATE_READ_TABLE,
  dispositionFor,
  grantsHonoured,
  privateReadDisposition,
} from './approval-policy.ts'
import type { CallDisposition } from './approval-policy.ts'
import { MODE_PRESETS, modeFromPolicy, policyForMode } from './permission-modes.ts'

function allPolicies(): RoomPolicy[] {
  const out: RoomPolicy[] = []
  for (const approvalPolicy of ApprovalPolicySchema.options) {
    for (const sandboxMode of SandboxModeSchema.options) {
      for (const approvalReviewer of ApprovalReviewerSchema.options) {
        out.push({ approvalPolicy, sandboxMode, approvalReviewer })
      }
    }
  }
  return out
}

const key = (p: RoomPolicy): string => `${p.approvalPolicy}/${p.sandboxMode}/${p.approvalReviewer}`

describe('mode presets', () => {
  it('defines each mode with the axes the architecture names', () => {
    expect(MODE_PRESETS).toEqual({
      plan: {
        approvalPolicy: 'never',
        sandboxMode: 'read-only',
        approvalReviewer: 'user',
      },
      'ask-for-approval': {
        approvalPolicy: 'on-request',
        sandboxMode: 'workspace-write',
        approvalReviewer: 'user',
      },
      'approve-for-me': {
        approvalPolicy: 'on-request',
        sandboxMode: 'workspace-write',
        approvalReviewer: 'agent',
      },
      'full-access': {
        approvalPolicy: 'auto',
        sandboxMode: 'danger-full-access',
        approvalReviewer: 'user',
      },
    })
  })

  it.each(PermissionModeSchema.options)('projects the %s preset back to its own mode', (mode) => {
    expect(modeFromPolicy(policyForMode(mode))).toBe(mode)
  })

  it('hands out a copy, so editing it never widens the shared preset', () => {
    const copy = policyForMode('ask-for-approval')
    copy.sandboxMode = 'danger-full-access'
    expect(MODE_PRESETS['ask-for-approval'].sandboxMode).toBe('workspace-write')
    expect(policyForMode('ask-for-approval').sandboxMode).toBe('workspace-write')
  })

  it('makes plan narrower than every other mode on every axis', () => {
    const plan = MODE_PRESETS.plan
    for (const mode of PermissionModeSchema.options.filter((other) => other !== 'plan')) {
      const other = MODE_PRESETS[mode]
      for (const effect of ToolEffectSchema.options) {
        for (const destructive of [false, true]) {
          // Plan never asks and never runs more: what it runs, the other runs.
          const inPlan = dispositionFor(plan.approvalPolicy, effect, destructive)
          expect(inPlan).not.toBe('ask')
          if (inPlan === 'run') {
            expect(dispositionFor(other.approvalPolicy, effect, destructive)).toBe('run')
          }
        }
      }
      expect(plan.sandboxMode).toBe('read-only')
      expect(plan.approvalReviewer).toBe('user')
    }
  })

  it('keeps the presets frozen against in-place edits', () => {
    expect(Object.isFrozen(MODE_PRESETS)).toBe(true)
    expect(Object.isFrozen(MODE_PRESETS['full-access'])).toBe(true)
  })
})

describe('projection of every other axis combination', () => {
  const presetKeys = new Set(Object.values(MODE_PRESETS).map(key))
  const others = allPolicies().filter((p) => !presetKeys.has(key(p)))

  it('enumerates all 48 combinations, four of them presets', () => {
    expect(allPolicies()).toHaveLength(6 * 4 * 2)
    expect(others).toHaveLength(44)
  })

  it.each(others.map((p) => [key(p), p] as const))(
    'shows %s as ask-for-approval',
    (_name, policy) => {
      expect(modeFromPolicy(policy)).toBe<PermissionMode>('ask-for-approval')
    },
  )
})

describe('approval policy table', () => {
  // Written out by hand rather than read from the table under test, so a
  // change to the table has to change this too.
  const expected: Record<string, Record<ToolEffect, [CallDisposition, CallDisposition]>> = {
    always: {
      read: ['ask', 'ask'],
      write: ['ask', 'ask'],
      execute: ['ask', 'ask'],
      network: ['ask', 'ask'],
    },
    'on-request': {
      read: ['run', 'ask'],
      write: ['ask', 'ask'],
      execute: ['ask', 'ask'],
      network: ['ask', 'ask'],
    },
    untrusted: {
      read: ['run', 'ask'],
      write: ['ask', 'ask'],
      execute: ['ask', 'ask'],
      network: ['ask', 'ask'],
    },
    suggest: {
      read: ['run', 'ask'],
      write: ['ask', 'ask'],
      execute: ['ask', 'ask'],
      network: ['ask', 'ask'],
    },
    never: {
      read: ['run', 'deny'],
      write: ['deny', 'deny'],
      execute: ['deny', 'deny'],
      network: ['deny', 'deny'],
    },
    auto: {
      read: ['run', 'run'],
      write: ['run', 'run'],
      execute: ['run', 'run'],
      network: ['run', 'run'],
    },
  }

  const rows = ApprovalPolicySchema.options.flatMap((policy) =>
    ToolEffectSchema.options.flatMap((effect) =>
      [false, true].map((destructive) => {
        const row = expected[policy]?.[effect]
        if (!row) throw new Error(`missing expectation for ${policy}/${effect}`)
        return [policy, effect, destructive, row[destructive ? 1 : 0]] as const
      }),
    ),
  )

  it.each(rows)('%s / %s / destructive=%s → %s', (policy, effect, destructive, want) => {
    expect(dispositionFor(policy, effect, destructive)).toBe(want)
  })

  it('never asks a person under the never policy', () => {
    for (const effect of ToolEffectSchema.options) {
      for (const destructive of [false, true]) {
        expect(dispositionFor('never', effect, destructive)).not.toBe('ask')
      }
    }
  })

  it('treats suggest exactly as on-request', () => {
    expect(APPROVAL_POLICY_TABLE.suggest).toEqual(APPROVAL_POLICY_TABLE['on-request'])
  })

  it('is frozen, so no caller can loosen a row at run time', () => {
    expect(Object.isFrozen(APPROVAL_POLICY_TABLE['on-request'].write)).toBe(true)
    expect(() => {
      ;(APPROVAL_POLICY_TABLE['on-request'].write as { plain: string }).plain = 'run'
    }).toThrow()
  })
})

describe('private reads (outside the workspace, sensitive, several names)', () => {
  it.each([
    ['always', 'ask'],
    ['on-request', 'ask'],
    ['untrusted', 'ask'],
    ['suggest', 'ask'],
    ['never', 'deny'],
    ['auto', 'run'],
  ] as const)('under %s a private read is %s', (policy, want) => {
    expect(privateReadDisposition(policy)).toBe(want)
  })

  it('ask the person under the modes that ask, and only full access reads freely', () => {
    expect(privateReadDisposition(policyForMode('ask-for-approval').approvalPolicy)).toBe('ask')
    expect(privateReadDisposition(policyForMode('approve-for-me').approvalPolicy)).toBe('ask')
    expect(privateReadDisposition(policyForMode('full-access').approvalPolicy)).toBe('run')
  })

  it('are never looser than a write under any policy', () => {
    const rank = { deny: 0, ask: 1, run: 2 } as const
    for (const policy of ApprovalPolicySchema.options) {
      expect(rank[privateReadDisposition(policy)]).toBeLessThanOrEqual(
        rank[dispositionFor(policy, 'write', false)],
      )
    }
  })

  it('is frozen, so no caller can loosen a row at run time', () => {
    expect(Object.isFrozen(PRIVATE_READ_TABLE)).toBe(true)
  })
})

describe('standing grants', () => {
  it.each([
    ['always', false],
    ['untrusted', false],
    ['on-request', true],
    ['suggest', true],
    ['never', false],
    ['auto', true],
  ] as const)('under %s an always-allow grant is honoured: %s', (policy, honoured) => {
    expect(grantsHonoured(policy)).toBe(honoured)
  })
})

describe('the tool effects the policy table is keyed by', () => {
  // The exhaustive loops above iterate these options: pinned here, so an
  // empty or shortened list cannot make them pass vacuously.
  it('are exactly read, write, execute and network', () => {
    expect(ToolEffectSchema.options).toEqual(['read', 'write', 'execute', 'network'])
    expect(Object.keys(APPROVAL_POLICY_TABLE.always)).toEqual(ToolEffectSchema.options)
    expect(ToolEffectSchema.safeParse('delete').success).toBe(false)
  })
})

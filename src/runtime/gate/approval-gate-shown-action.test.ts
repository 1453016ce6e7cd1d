import { describe, expect, it } from 'vitest'
import { actionDigest, canonicalAction } from '../domain/approval.ts'
import {
  auditTypes,
  makeGate,
  openApproval,
  useGateDatabase,
} from './test-support/approval-gate-fixture.ts'

// A person's decision names the action they were shown (its digest, which
// their consent token binds) and may be one the approval cannot honour (an
// "always" no grant can be scoped to). The gate judges both on the very
// read it commits the decision from, so nothing can change between the
// check and the write.

useGateDatabase()

const OTHER_DIGEST = 'f'.repeat(64)

describe('a decision on the action its decider was shown', () => {
  it('commits when the approval shows exactly that action', async () => {
    const { gate, approvals } = makeGate()
    const shown = actionDigest(canonicalAction(openApproval(gate)))
    const outcome = await gate.decide({
      approvalId: 'approval-1',
      decision: 'allow-once',
      decidedBy: 'user',
      shownActionDigest: shown,
    })
    expect(outcome.ok).toBe(true)
    expect(approvals.get('approval-1')?.status).toBe('allowed')
  })

  it('refuses a decision made on another action, as consent required, and writes nothing', async () => {
    const { gate, approvals } = makeGate()
    openApproval(gate)
    const outcome = await gate.decide({
      approvalId: 'approval-1',
      decision: 'allow-once',
      decidedBy: 'user',
      shownActionDigest: OTHER_DIGEST,
    })
    expect(outcome).toEqual({
      ok: false,
      code: 'consent_required',
      error: 'protected approval consent required',
    })
    expect(approvals.get('approval-1')?.status).toBe('pending')
    expect(auditTypes()).toEqual(['approval_requested'])
  })

  it('refuses a decision it cannot honour, naming why, and writes nothing', async () => {
    const { gate, approvals } = makeGate()
    const opened = openApproval(gate)
    const judged: string[] = []
    const outcome = await gate.decide({
      approvalId: 'approval-1',
      decision: 'allow-once',
      decidedBy: 'user',
      shownActionDigest: actionDigest(canonicalAction(opened)),
      unavailable: (approval) => {
        judged.push(approval.id)
        return 'no grant can be scoped to this action'
      },
    })
    expect(outcome).toEqual({
      ok: false,
      code: 'always_allow_unavailable',
      error: 'always allow is unavailable: no grant can be scoped to this action',
    })
    expect(judged).toEqual(['approval-1'])
    expect(approvals.get('approval-1')?.status).toBe('pending')
    expect(auditTypes()).toEqual(['approval_requested'])
  })

  it('holds a decision that joins one in flight to its own shown action', async () => {
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const { gate } = makeGate({ afterReserve: () => held })
    const shown = actionDigest(canonicalAction(openApproval(gate)))
    const first = gate.decide({
      approvalId: 'approval-1',
      decision: 'allow-once',
      decidedBy: 'user',
      shownActionDigest: shown,
    })
    const stale = gate.decide({
      approvalId: 'approval-1',
      decision: 'allow-once',
      decidedBy: 'user',
      shownActionDigest: OTHER_DIGEST,
    })
    const cannot = gate.decide({
      approvalId: 'approval-1',
      decision: 'allow-once',
      decidedBy: 'user',
      shownActionDigest: shown,
      unavailable: () => 'refused for this test',
    })
    const joined = gate.decide({
      approvalId: 'approval-1',
      decision: 'allow-once',
      decidedBy: 'user',
      shownActionDigest: shown,
    })
    release()
    const [a, b, c, d] = await Promise.all([first, stale, cannot, joined])
    expect(a.ok).toBe(true)
    expect(b).toMatchObject({ ok: false, code: 'consent_required' })
    expect(c).toMatchObject({ ok: false, code: 'always_allow_unavailable' })
    expect(d).toBe(a)
    expect(auditTypes()).toEqual(['approval_requested', 'approval_resolved'])
  })
})

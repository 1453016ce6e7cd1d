import { describe, expect, it } from 'vitest'
import { actionDigest, canonicalAction } from '../domain/approval.ts'
import {
  auditTypes,
  fixture,
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

// The approvals table carries no seal: a row edited on disk after the
// agent asked is what the window shows and a decider judges, while
// whoever asked runs what it asked for. Every decider, every decision.
describe('a decision on an approval whose stored action changed after it was opened', () => {
  const editRow = () =>
    fixture.db
      .prepare(`UPDATE approvals SET arguments_json = ? WHERE id = 'approval-1'`)
      .run(JSON.stringify({ path: 'a', content: 'harmless' }))
  const deciders = [
    { decidedBy: 'user', shown: true },
    { decidedBy: 'user', shown: false },
    { decidedBy: 'agent-review', shown: false },
    { decidedBy: 'policy', shown: false },
    { decidedBy: 'webhook', shown: false },
  ] as const
  const decisions = ['allow-once', 'allow-always', 'deny'] as const
  it.each(deciders.flatMap((decider) => decisions.map((decision) => ({ ...decider, decision }))))(
    'is refused as approval_tampered and withdraws it: $decidedBy (shown digest: $shown), $decision',
    async ({ decidedBy, shown, decision }) => {
      const { gate, approvals } = makeGate()
      openApproval(gate)
      editRow()
      const edited = approvals.get('approval-1')
      expect(edited?.arguments).toEqual({ path: 'a', content: 'harmless' })
      const outcome = await gate.decide({
        approvalId: 'approval-1',
        decision,
        decidedBy,
        ...(shown && edited ? { shownActionDigest: actionDigest(canonicalAction(edited)) } : {}),
      })
      expect(outcome).toEqual({
        ok: false,
        code: 'approval_tampered',
        error: 'the approval was changed outside Assent after the agent asked; it was withdrawn',
      })
      expect(approvals.get('approval-1')).toMatchObject({
        status: 'expired',
        reason: 'its stored action changed outside Assent',
        reasonMessage: { code: 'call.actionChanged' },
      })
      expect(auditTypes()).toEqual(['approval_requested', 'approval_expired'])
    },
  )

  it('is not refused for an approval whose row is as it was opened (control)', async () => {
    const { gate, approvals } = makeGate()
    openApproval(gate)
    await expect(
      gate.decide({ approvalId: 'approval-1', decision: 'allow-once', decidedBy: 'webhook' }),
    ).resolves.toMatchObject({ ok: true })
    expect(approvals.get('approval-1')?.status).toBe('allowed')
  })
})

import { describe, expect, it, vi } from 'vitest'
import { Refusal } from '../domain/refusal.ts'
import {
  fixture,
  makeGate,
  openApproval,
  auditTypes,
  useGateDatabase,
} from './test-support/approval-gate-fixture.ts'

useGateDatabase()

describe('ApprovalGate and the rollback anchor', () => {
  it('refuses to be built to write grants without the anchor check', () => {
    expect(() => makeGate({ grantFor: () => undefined })).toThrow('needs beforeGrant')
  })

  // Each decision that writes a grant, the server-wide one included.
  it.each(['allow-always', 'allow-always-server'] as const)(
    'asks before %s and writes nothing when the anchor cannot be brought up to date',
    async (decision) => {
      let asked = 0
      let anchorReachable = false
      const { gate, approvals } = makeGate({
        beforeGrant: async () => {
          asked += 1
          if (!anchorReachable) throw new Refusal('rollback_anchor_unavailable', 'keychain locked')
        },
      })
      openApproval(gate)
      await expect(
        gate.decide({ approvalId: 'approval-1', decision, decidedBy: 'user' }),
      ).rejects.toMatchObject({ code: 'rollback_anchor_unavailable' })
      expect(asked).toBe(1)
      expect(approvals.get('approval-1')?.status).toBe('pending')
      expect(auditTypes()).toEqual(['approval_requested'])

      anchorReachable = true
      const outcome = await gate.decide({ approvalId: 'approval-1', decision, decidedBy: 'user' })
      expect(outcome).toMatchObject({ ok: true, approval: { decision } })
      expect(asked).toBe(2)
    },
  )

  it('takes an allow-always without the check in a gate that writes no grant', async () => {
    const { gate } = makeGate()
    openApproval(gate)
    await expect(
      gate.decide({ approvalId: 'approval-1', decision: 'allow-always', decidedBy: 'user' }),
    ).resolves.toMatchObject({ ok: true, approval: { decision: 'allow-always' } })
  })

  it('never asks for a decision that widens nothing lasting (allow once, deny)', async () => {
    let asked = 0
    const { gate } = makeGate({
      beforeGrant: async () => {
        asked += 1
      },
    })
    openApproval(gate, 'approval-1')
    openApproval(gate, 'approval-2')
    await gate.decide({ approvalId: 'approval-1', decision: 'allow-once', decidedBy: 'user' })
    await gate.decide({ approvalId: 'approval-2', decision: 'deny', decidedBy: 'user' })
    expect(asked).toBe(0)
  })
})

describe('ApprovalGate reads the approval', () => {
  it('again after bringing the anchor up to date: one gone meanwhile is unknown, nothing written', async () => {
    const { gate } = makeGate({
      grantFor: () => undefined,
      beforeGrant: async () => {
        fixture.db.prepare('DELETE FROM approvals WHERE id = ?').run('approval-1')
      },
    })
    openApproval(gate)
    await expect(
      gate.decide({ approvalId: 'approval-1', decision: 'allow-always', decidedBy: 'user' }),
    ).resolves.toEqual({ ok: false, code: 'unknown_approval', error: 'unknown approval' })
    expect(auditTypes()).toEqual(['approval_requested'])
  })

  it('once for a decision that waits for nothing', async () => {
    const { gate, approvals } = makeGate()
    openApproval(gate)
    const reads = vi.spyOn(approvals, 'get')
    await expect(
      gate.decide({ approvalId: 'approval-1', decision: 'allow-once', decidedBy: 'user' }),
    ).resolves.toMatchObject({ ok: true, approval: { status: 'allowed' } })
    expect(reads).toHaveBeenCalledTimes(1)
  })

  it('twice for an allow-always that waited for the anchor', async () => {
    const { gate, approvals } = makeGate({
      grantFor: () => undefined,
      beforeGrant: async () => undefined,
    })
    openApproval(gate)
    const reads = vi.spyOn(approvals, 'get')
    await expect(
      gate.decide({ approvalId: 'approval-1', decision: 'allow-always', decidedBy: 'user' }),
    ).resolves.toMatchObject({ ok: true, approval: { decision: 'allow-always' } })
    expect(reads).toHaveBeenCalledTimes(2)
  })
})

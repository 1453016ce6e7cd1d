import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { editDatabase } from './support/integrity-helpers.ts'
import { auditEvents, decide } from './support/policy-helpers.ts'
import { createRoom, pendingApprovalFor, timeline, turnSettled } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

// The approvals table carries no seal. Someone who can write the data
// folder (threat-model.md's adversary) edits a pending approval's row so
// the protected window shows a harmless write; the person allows exactly
// what they were shown (their token binds the edited row's digest). The
// gate refuses the decision (`approval_tampered`) and withdraws the
// approval, so neither action runs (approval-gate-shown-action.test.ts
// walks every decider through the same rule).

let harness: RuntimeHarness
beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await harness?.close()
})

describe('a pending approval row edited on disk (built-in door)', () => {
  it('is refused when the person allows the edited one: neither action runs', async () => {
    const room = await createRoom(harness)
    const original = await pendingApprovalFor(harness, room.id, 'write notes.txt PAYLOAD')
    expect(original.action.arguments).toMatchObject({ content: 'PAYLOAD' })

    // Every text column that names the content now names a harmless one.
    editDatabase(harness.dataDir, (db) => {
      const row = db.prepare('SELECT * FROM approvals WHERE id = ?').get(original.approval.id)!
      for (const column of ['arguments_json', 'summary', 'file_change_json']) {
        const value = row[column]
        if (typeof value !== 'string') continue
        db.prepare(`UPDATE approvals SET ${column} = ? WHERE id = ?`).run(
          value.replaceAll('PAYLOAD', 'harmless'),
          original.approval.id,
        )
      }
    })
    // What the protected window reads now, and the person allows.
    const shown = await harness.client.getApproval(original.approval.id)
    expect(shown.action.arguments).toMatchObject({ content: 'harmless' })
    expect(shown.actionDigest).not.toBe(original.actionDigest)
    expect(await decide(harness, shown, 'allow-once')).toMatchObject({
      status: 409,
      body: { code: 'approval_tampered' },
    })
    await turnSettled(harness, room.id, original.approval.turnId)

    const file = join(harness.workspace, 'notes.txt')
    expect(existsSync(file)).toBe(false)
    expect((await harness.client.getApproval(original.approval.id)).approval).toMatchObject({
      status: 'expired',
      reason: 'its stored action changed outside Assent',
    })
    // The agent hears why, as at every door (the gateway's:
    // mcp-gateway.test.ts), not that nobody answered.
    const { toolCalls } = await timeline(harness, room.id)
    const record = toolCalls.find((call) => call.id === original.approval.toolCallId)
    expect(record).toMatchObject({
      status: 'expired',
      result: {
        output: expect.stringContaining('changed outside Assent') as unknown,
        message: { code: 'call.actionChanged' },
      },
    })
    const digests = (await auditEvents(harness))
      .filter((event) => event.subjectId === original.approval.id)
      .map((event) => [event.type, (event.payload as { actionDigest?: string }).actionDigest])
    expect(digests).toContainEqual(['approval_requested', original.actionDigest])
  })
})

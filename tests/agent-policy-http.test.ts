import { existsSync, readFileSync } from 'node:fs'
import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MODE_PRESETS } from '../src/runtime/policy/permission-modes.ts'
import { createRoom, pendingApprovalFor, send, turnSettled } from './support/room-helpers.ts'
import { storeSealedPolicy } from './support/integrity-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import {
  auditEvents,
  decide,
  outsideDir,
  putMode,
  readPermissions,
  roomApprovals,
  roomGrants,
  setMode,
  toolCallsOf,
  waitForPendingApproval,
} from './support/policy-helpers.ts'

let harness: RuntimeHarness

beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await harness?.close()
})

/** Sends a message, waits for its turn to settle and returns its tool calls. */
async function runTurn(roomId: string, text: string) {
  const turnId = await send(harness, roomId, text)
  const settled = await turnSettled(harness, roomId, turnId)
  return {
    turn: settled.turns.find((turn) => turn.id === turnId)!,
    calls: await toolCallsOf(harness, roomId, turnId),
    messages: settled.messages.filter((message) => message.turnId === turnId),
  }
}

describe('full access for agents with limits', () => {
  it('is reported unavailable: read_only_agent for the reader, agent_directory_limits for the scoped agent', async () => {
    const reader = await createRoom(harness, { agentId: 'reader' })
    const scoped = await createRoom(harness, { agentId: 'scoped' })
    expect(await readPermissions(harness, reader.id)).toMatchObject({
      status: 200,
      body: { mode: 'ask-for-approval', fullAccessUnavailable: 'read_only_agent' },
    })
    expect(await readPermissions(harness, scoped.id)).toMatchObject({
      status: 200,
      body: { mode: 'ask-for-approval', fullAccessUnavailable: 'agent_directory_limits' },
    })
  })

  it('is refused with 409 and the blocker code, while the narrower modes stay available', async () => {
    for (const [agentId, code] of [
      ['reader', 'read_only_agent'],
      ['scoped', 'agent_directory_limits'],
    ] as const) {
      const room = await createRoom(harness, { agentId })
      const refused = await putMode(harness, room.id, { mode: 'full-access', expectedRevision: 0 })
      expect(refused.status, agentId).toBe(409)
      expect(refused.body, agentId).toMatchObject({ code })
      expect(await readPermissions(harness, room.id)).toMatchObject({
        body: { revision: 0, mode: 'ask-for-approval' },
      })
      const narrower = await putMode(harness, room.id, {
        mode: 'approve-for-me',
        expectedRevision: 0,
      })
      expect(narrower.status, agentId).toBe(200)
    }
  })

  it('fails the turn at admission when a full-access policy was written into the store for a scoped agent', async () => {
    const room = await createRoom(harness, { agentId: 'scoped' })
    const outside = await outsideDir(harness)
    // Sealed with the integrity key, as a row from before the agent had
    // ceilings would be (an unsealed edit is caught earlier, see
    // tests/room-integrity.test.ts): only the ceiling check stands between.
    await storeSealedPolicy(harness, room.id, MODE_PRESETS['full-access'], 0)

    const { turn, calls, messages } = await runTurn(room.id, `write ${outside}/smuggled.txt x`)
    expect(turn.policy).toEqual(MODE_PRESETS['full-access'])
    expect(turn.status).toBe('failed')
    expect(calls).toEqual([])
    expect(messages.map((message) => message.text).join('\n')).toMatch(
      /Full access is unavailable for this agent: it may use only certain folders/,
    )
    expect(existsSync(join(outside, 'smuggled.txt'))).toBe(false)
  })

  it('fails the turn at admission when a sealed full-access policy was written into the store for the read-only reader', async () => {
    const room = await createRoom(harness, { agentId: 'reader' })
    await storeSealedPolicy(harness, room.id, MODE_PRESETS['full-access'], 0)

    const { turn, calls, messages } = await runTurn(room.id, 'read reader-admission.txt')
    expect(turn.policy).toEqual(MODE_PRESETS['full-access'])
    expect(turn.status).toBe('failed')
    expect(calls).toEqual([])
    expect(messages.map((message) => message.text).join('\n')).toMatch(
      /Full access is unavailable for this agent: it is read-only/,
    )
  })
})

describe('group rooms', () => {
  it('refuses write and run messages under their read-only sandbox, with no approval and no file', async () => {
    const room = await createRoom(harness, { kind: 'group' })
    const { turn, calls } = await runTurn(
      room.id,
      'write group-wrote.txt x\nrun touch group-ran.txt',
    )
    expect(turn.policy.sandboxMode).toBe('read-only')
    expect(calls).toMatchObject([
      { toolName: 'write_file', status: 'refused', approvalId: null },
      { toolName: 'run_command', status: 'refused', approvalId: null },
    ])
    expect(calls.map((call) => call.result?.code)).toEqual([
      'sandbox_read_only',
      'sandbox_read_only',
    ])
    expect(await roomApprovals(harness, room.id)).toEqual([])
    expect(existsSync(join(harness.workspace, 'group-wrote.txt'))).toBe(false)
    expect(existsSync(join(harness.workspace, 'group-ran.txt'))).toBe(false)
  })
})

describe('the sandbox, end to end', () => {
  it('refuses a write outside the workspace in ask-for-approval without asking anyone', async () => {
    const room = await createRoom(harness)
    const outside = await outsideDir(harness)
    const { calls } = await runTurn(room.id, `write ${outside}/escaped.txt x`)
    expect(calls).toMatchObject([
      { status: 'refused', approvalId: null, result: { ok: false, code: 'outside_workspace' } },
    ])
    expect(await roomApprovals(harness, room.id)).toEqual([])
    expect(existsSync(join(outside, 'escaped.txt'))).toBe(false)
  })

  it('refuses a write through a symlink inside the workspace that points outside', async () => {
    const room = await createRoom(harness)
    const outside = await outsideDir(harness)
    await symlink(outside, join(harness.workspace, 'escape-dir'))
    await symlink(join(outside, 'dangling.txt'), join(harness.workspace, 'escape-file'))
    const { calls } = await runTurn(room.id, 'write escape-dir/evil.txt x\nwrite escape-file y')
    expect(calls.map((call) => [call.status, call.result?.code])).toEqual([
      ['refused', 'outside_workspace'],
      ['refused', 'outside_workspace'],
    ])
    expect(await roomApprovals(harness, room.id)).toEqual([])
    expect(existsSync(join(outside, 'evil.txt'))).toBe(false)
    expect(existsSync(join(outside, 'dangling.txt'))).toBe(false)
  })

  it('in full access, really writes outside the workspace, with no approval', async () => {
    const room = await createRoom(harness)
    const outside = await outsideDir(harness)
    await setMode(harness, room.id, 'full-access')
    const { turn, calls } = await runTurn(room.id, `write ${outside}/allowed.txt full`)
    expect(turn.policy).toEqual(MODE_PRESETS['full-access'])
    expect(calls).toMatchObject([{ status: 'succeeded', approvalId: null }])
    expect(readFileSync(join(outside, 'allowed.txt'), 'utf8')).toBe('full')
    expect(await roomApprovals(harness, room.id)).toEqual([])
  })

  it('runs a read inside the workspace without asking, in ask-for-approval', async () => {
    const room = await createRoom(harness)
    await writeFile(join(harness.workspace, 'readable.txt'), 'read me')
    const { calls } = await runTurn(room.id, 'read readable.txt')
    expect(calls).toMatchObject([
      { status: 'succeeded', approvalId: null, result: { ok: true, output: 'read me' } },
    ])
    expect(await roomApprovals(harness, room.id)).toEqual([])
  })

  it('asks before running a command, in ask-for-approval', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'run echo hi')
    expect(view.action).toMatchObject({
      toolName: 'run_command',
      arguments: { argv: ['echo', 'hi'] },
    })
    const [call] = await toolCallsOf(harness, room.id, view.approval.turnId)
    expect(call).toMatchObject({ status: 'awaiting-approval', approvalId: view.approval.id })
    expect((await decide(harness, view, 'deny')).status).toBe(200)
  })

  it('refuses any write by the read-only reader agent, without asking', async () => {
    const room = await createRoom(harness, { agentId: 'reader' })
    const { calls } = await runTurn(room.id, 'write reader-wrote.txt x')
    expect(calls).toMatchObject([{ status: 'refused', approvalId: null }])
    expect(await roomApprovals(harness, room.id)).toEqual([])
    expect(existsSync(join(harness.workspace, 'reader-wrote.txt'))).toBe(false)
  })
})

describe('approve-for-me', () => {
  it('allows a routine write by itself: decided by agent-review with a reason, no token, file written', async () => {
    const room = await createRoom(harness)
    await setMode(harness, room.id, 'approve-for-me')
    const { calls } = await runTurn(room.id, 'write afm-notes.txt hi')
    expect(calls).toMatchObject([{ status: 'succeeded' }])
    const [approval] = await roomApprovals(harness, room.id)
    expect(approval).toMatchObject({
      id: calls[0]?.approvalId,
      status: 'allowed',
      decision: 'allow-once',
      decidedBy: 'agent-review',
    })
    expect(approval?.reason).toMatch(/inside the workspace/)
    expect(readFileSync(join(harness.workspace, 'afm-notes.txt'), 'utf8')).toBe('hi')
    const resolved = (await auditEvents(harness)).find(
      (event) => event.type === 'approval_resolved' && event.subjectId === approval?.id,
    )
    expect(resolved?.payload).toMatchObject({ decidedBy: 'agent-review', reason: approval?.reason })
  })

  it('denies a recursive delete by itself, and the directory stays', async () => {
    const room = await createRoom(harness)
    await setMode(harness, room.id, 'approve-for-me')
    await mkdir(join(harness.workspace, 'afm-somedir'))
    await writeFile(join(harness.workspace, 'afm-somedir', 'keep.txt'), 'keep')
    const { calls } = await runTurn(room.id, 'delete -r afm-somedir')
    expect(calls).toMatchObject([{ status: 'denied', result: { code: 'approval_denied' } }])
    const [approval] = await roomApprovals(harness, room.id)
    expect(approval).toMatchObject({ status: 'denied', decidedBy: 'agent-review' })
    expect(approval?.reason).toMatch(/recursive/)
    expect(readFileSync(join(harness.workspace, 'afm-somedir', 'keep.txt'), 'utf8')).toBe('keep')
  })

  it('escalates a command to the person, and the person’s minted allow-once runs it', async () => {
    const room = await createRoom(harness)
    await setMode(harness, room.id, 'approve-for-me')
    const turnId = await send(harness, room.id, 'run echo hi')
    const view = await waitForPendingApproval(harness, room.id, turnId)
    // The reviewer's verdict is an event: its review_escalated audit entry.
    // Once that is written the reviewer is done, and the call must still be
    // the person's to decide.
    const escalated = await eventually(async () => {
      const found = (await auditEvents(harness)).filter(
        (event) => event.type === 'review_escalated' && event.subjectId === view.approval.id,
      )
      return found.length > 0 ? found : undefined
    }, 'the review_escalated event')
    const pending = await harness.client.getApproval(view.approval.id)
    expect(pending.approval.status).toBe('pending')
    expect(pending.approval.decidedBy).toBeUndefined()
    // The reviewer's reason is kept for the person: on the approval the
    // room lists, and in the audit log.
    const [listed] = await roomApprovals(harness, room.id)
    expect(listed?.escalationReason).toBe('commands are decided by a person')
    expect(escalated.map((event) => event.payload.reason)).toEqual([
      'commands are decided by a person',
    ])

    expect((await decide(harness, view, 'allow-once')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    expect(await toolCallsOf(harness, room.id, turnId)).toMatchObject([
      { status: 'succeeded', result: { ok: true, output: 'hi\n' } },
    ])
    expect((await harness.client.getApproval(view.approval.id)).approval).toMatchObject({
      status: 'allowed',
      decidedBy: 'user',
    })
  })
})

describe('allow-always grants', () => {
  /** A room where `run echo granted` was allowed always by the person. */
  async function roomWithGrant() {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'run echo granted')
    expect((await decide(harness, view, 'allow-always')).status).toBe(200)
    await turnSettled(harness, room.id, view.approval.turnId)
    const grants = await roomGrants(harness, room.id)
    return { room, grants, approvalId: view.approval.id }
  }

  it('creates a grant for the exact command, listed by the room and audited', async () => {
    const { room, grants, approvalId } = await roomWithGrant()
    expect(grants).toMatchObject([
      { roomId: room.id, toolName: 'run_command', command: ['echo', 'granted'], approvalId },
    ])
    const created = (await auditEvents(harness)).filter(
      (event) => event.type === 'grant_created' && event.subjectId === grants[0]?.id,
    )
    expect(created).toHaveLength(1)
  })

  it('runs the granted command again without asking, while a different command still asks', async () => {
    const { room, grants } = await roomWithGrant()
    const { calls } = await runTurn(room.id, 'run echo granted')
    expect(calls).toMatchObject([
      { status: 'succeeded', approvalId: null, result: { output: 'granted\n' } },
    ])
    const byGrant = (await auditEvents(harness)).filter(
      (event) => event.type === 'tool_allowed_by_grant' && event.subjectId === calls[0]?.id,
    )
    expect(byGrant.map((event) => event.payload.grantId)).toEqual([grants[0]?.id])

    const other = await pendingApprovalFor(harness, room.id, 'run echo other')
    expect(other.action.arguments).toEqual({ argv: ['echo', 'other'] })
    expect((await decide(harness, other, 'deny')).status).toBe(200)
  })

  /** A room where the person allowed `write <path> a` always. */
  async function roomWithWriteGrant(path = 'granted-first.txt') {
    const room = await createRoom(harness)
    const first = await pendingApprovalFor(harness, room.id, `write ${path} a`)
    expect(first.alwaysAllowAvailable).toBe(true)
    expect((await decide(harness, first, 'allow-always')).status).toBe(200)
    await turnSettled(harness, room.id, first.approval.turnId)
    expect(readFileSync(join(harness.workspace, path), 'utf8')).toBe('a')
    const grants = await roomGrants(harness, room.id)
    return { room, grants, approvalId: first.approval.id }
  }

  it('turns an allow-always on a file write into a grant for that tool in that room, listed with its scope and audited', async () => {
    const { room, grants, approvalId } = await roomWithWriteGrant()
    expect(grants).toEqual([
      expect.objectContaining({
        roomId: room.id,
        toolName: 'write_file',
        scope: 'tool',
        command: null,
        approvalId,
      }),
    ])
    const created = (await auditEvents(harness)).filter(
      (event) => event.type === 'grant_created' && event.subjectId === grants[0]?.id,
    )
    expect(created).toHaveLength(1)
  })

  it('runs the next write in the same room without asking, audited with the grant', async () => {
    const { room, grants } = await roomWithWriteGrant()
    const { calls } = await runTurn(room.id, 'write granted-second.txt b')
    expect(calls).toMatchObject([{ status: 'succeeded', approvalId: null }])
    expect(readFileSync(join(harness.workspace, 'granted-second.txt'), 'utf8')).toBe('b')
    expect(await roomApprovals(harness, room.id)).toHaveLength(1)
    const byGrant = (await auditEvents(harness)).filter(
      (event) => event.type === 'tool_allowed_by_grant' && event.subjectId === calls[0]?.id,
    )
    expect(byGrant.map((event) => event.payload.grantId)).toEqual([grants[0]?.id])
  })

  it('still asks for a write to a git hook or a credential file despite a write grant', async () => {
    const { room } = await roomWithWriteGrant()
    const hook = await pendingApprovalFor(harness, room.id, 'write .git/hooks/pre-commit evil')
    expect(hook.action.arguments).toEqual({ path: '.git/hooks/pre-commit', content: 'evil' })
    expect((await decide(harness, hook, 'deny')).status).toBe(200)
    await turnSettled(harness, room.id, hook.approval.turnId)
    expect(existsSync(join(harness.workspace, '.git', 'hooks', 'pre-commit'))).toBe(false)
  })

  it('applies a grant only in its own room, which alone can revoke it', async () => {
    const a = await roomWithWriteGrant()
    const grantId = a.grants[0]!.id
    const b = await createRoom(harness)
    const view = await pendingApprovalFor(harness, b.id, 'write room-b.txt b')
    expect((await decide(harness, view, 'deny')).status).toBe(200)
    await turnSettled(harness, b.id, view.approval.turnId)
    expect(existsSync(join(harness.workspace, 'room-b.txt'))).toBe(false)

    const fromB = await harness.client.raw('DELETE', `/v1/rooms/${b.id}/grants/${grantId}`)
    expect(fromB.status).toBe(404)
    expect((await roomGrants(harness, a.room.id)).map((grant) => grant.id)).toEqual([grantId])
  })

  it('never widens the sandbox: a write outside the workspace stays refused in the granted room', async () => {
    const { room } = await roomWithWriteGrant()
    const outside = await outsideDir(harness)
    const { calls } = await runTurn(room.id, `write ${outside}/granted-escape.txt x`)
    expect(calls).toMatchObject([
      { status: 'refused', approvalId: null, result: { code: 'outside_workspace' } },
    ])
    expect(existsSync(join(outside, 'granted-escape.txt'))).toBe(false)
  })

  it('once a write grant is revoked, the next write asks again', async () => {
    const { room, grants } = await roomWithWriteGrant()
    const revoked = await harness.client.raw(
      'DELETE',
      `/v1/rooms/${room.id}/grants/${grants[0]!.id}`,
    )
    expect(revoked.status).toBe(200)
    const view = await pendingApprovalFor(harness, room.id, 'write after-revoke.txt x')
    expect((await decide(harness, view, 'deny')).status).toBe(200)
    await turnSettled(harness, room.id, view.approval.turnId)
    expect(existsSync(join(harness.workspace, 'after-revoke.txt'))).toBe(false)
  })

  it('narrows an allow-always on a delete to that one real path', async () => {
    const room = await createRoom(harness)
    await writeFile(join(harness.workspace, 'delete-granted.txt'), 'x')
    await writeFile(join(harness.workspace, 'delete-other.txt'), 'y')
    const first = await pendingApprovalFor(harness, room.id, 'delete delete-granted.txt')
    expect((await decide(harness, first, 'allow-always')).status).toBe(200)
    await turnSettled(harness, room.id, first.approval.turnId)
    expect(existsSync(join(harness.workspace, 'delete-granted.txt'))).toBe(false)
    const realWorkspace = await realpath(harness.workspace)
    expect(await roomGrants(harness, room.id)).toEqual([
      expect.objectContaining({
        toolName: 'delete_file',
        scope: 'path',
        path: join(realWorkspace, 'delete-granted.txt'),
      }),
    ])

    const other = await pendingApprovalFor(harness, room.id, 'delete delete-other.txt')
    expect((await decide(harness, other, 'deny')).status).toBe(200)
    await turnSettled(harness, room.id, other.approval.turnId)
    expect(existsSync(join(harness.workspace, 'delete-other.txt'))).toBe(true)

    await writeFile(join(harness.workspace, 'delete-granted.txt'), 'again')
    const { calls } = await runTurn(room.id, 'delete delete-granted.txt')
    expect(calls).toMatchObject([{ status: 'succeeded', approvalId: null }])
    expect(existsSync(join(harness.workspace, 'delete-granted.txt'))).toBe(false)
  })

  it('refuses allow-always with 409 where no grant can be scoped (a recursive delete), says so in the view, and leaves the approval pending', async () => {
    const room = await createRoom(harness)
    await mkdir(join(harness.workspace, 'no-always-dir'))
    const view = await pendingApprovalFor(harness, room.id, 'delete -r no-always-dir')
    expect(view.alwaysAllowAvailable).toBe(false)
    const refused = await decide(harness, view, 'allow-always')
    expect(refused).toMatchObject({ status: 409, body: { code: 'always_allow_unavailable' } })
    expect((await harness.client.getApproval(view.approval.id)).approval.status).toBe('pending')
    expect(await roomGrants(harness, room.id)).toEqual([])
    expect((await decide(harness, view, 'deny')).status).toBe(200)
    await turnSettled(harness, room.id, view.approval.turnId)
    expect(existsSync(join(harness.workspace, 'no-always-dir'))).toBe(true)
  })

  it('once revoked with the bearer token alone, the command asks again, and the revocation is audited', async () => {
    const { room, grants } = await roomWithGrant()
    const grantId = grants[0]!.id
    const revoked = await harness.client.raw('DELETE', `/v1/rooms/${room.id}/grants/${grantId}`)
    expect(revoked).toEqual({ status: 200, body: { revoked: grantId } })
    expect(await roomGrants(harness, room.id)).toEqual([])
    const again = await harness.client.raw('DELETE', `/v1/rooms/${room.id}/grants/${grantId}`)
    expect(again.status).toBe(404)

    const view = await pendingApprovalFor(harness, room.id, 'run echo granted')
    expect(view.approval.status).toBe('pending')
    expect((await decide(harness, view, 'deny')).status).toBe(200)
    const types = (await auditEvents(harness))
      .filter((event) => event.subjectId === grantId)
      .map((event) => event.type)
    expect(types).toEqual(['grant_created', 'grant_revoked'])
  })
})

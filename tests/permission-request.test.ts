import { existsSync, readFileSync, realpathSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalView } from '../src/contracts/approval.ts'
import { MODE_PRESETS } from '../src/runtime/policy/permission-modes.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import {
  auditEvents,
  decide,
  outsideDir,
  putMode,
  readPermissions,
  roomApprovals,
  setMode,
  toolCallsOf,
  waitForPendingApproval,
} from './support/policy-helpers.ts'
import { RecordingModel } from './support/recording-model.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { eventually, type RuntimeHarness } from './support/runtime-harness.ts'

let harness: RuntimeHarness

beforeAll(async () => {
  harness = await startInProcessRuntime({ model: new RecordingModel() })
})
afterAll(async () => {
  await harness?.close()
})

/** The next pending approval of the turn after `seen` were already decided. */
async function nextPending(roomId: string, turnId: string, seen: Set<string>) {
  const view = await eventually(async () => {
    const pending = (await roomApprovals(harness, roomId)).find(
      (approval) =>
        approval.turnId === turnId && approval.status === 'pending' && !seen.has(approval.id),
    )
    return pending ? harness.client.getApproval(pending.id) : undefined
  }, `a new pending approval in turn ${turnId}`)
  seen.add(view.approval.id)
  return view
}

function widenedEvents(turnId: string) {
  return auditEvents(harness).then((events) =>
    events.filter(
      (event) => event.type === 'turn_permission_widened' && event.subjectId === turnId,
    ),
  )
}

describe('an agent asking for write access to one more directory', () => {
  it('asks the person exactly what widens and for how long; once allowed, that turn may write there, each write still asking', async () => {
    const room = await createRoom(harness)
    const outside = await outsideDir(harness)
    const turnId = await send(
      harness,
      room.id,
      [
        `permit write ${outside} | to leave the report beside the project`,
        `write ${outside}/report.txt done`,
      ].join('\n'),
    )
    const seen = new Set<string>()
    const request: ApprovalView = await nextPending(room.id, turnId, seen)
    const real = realpathSync(outside)
    const permission = {
      widen: { type: 'write-directory', path: real },
      duration: 'turn',
      reason: 'to leave the report beside the project',
    }
    expect(request.approval).toMatchObject({
      kind: 'permission-request',
      toolName: 'request_permissions',
      summary: `Write access to ${real} for this turn`,
      // Also as a code, so the person reads it in their own language.
      summaryMessage: { code: 'permission.writeSummary', params: { path: real } },
      permission,
    })
    expect(request.action.permission).toEqual(permission)
    expect(request.alwaysAllowAvailable).toBe(false)
    const always = await decide(harness, request, 'allow-always')
    expect(always).toMatchObject({ status: 409, body: { code: 'always_allow_unavailable' } })
    expect((await decide(harness, request, 'allow-once')).status).toBe(200)

    // The write it was for now asks, like any write in this room.
    const write = await nextPending(room.id, turnId, seen)
    expect(write.approval).toMatchObject({ kind: 'apply-changes', toolName: 'write_file' })
    expect((await decide(harness, write, 'allow-once')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    expect(readFileSync(join(outside, 'report.txt'), 'utf8')).toBe('done')
    expect(await toolCallsOf(harness, room.id, turnId)).toMatchObject([
      {
        toolName: 'request_permissions',
        status: 'succeeded',
        approvalId: request.approval.id,
        result: {
          output: `Write access to ${real} for this turn: granted.`,
          message: {
            code: 'permission.granted',
            params: { what: { code: 'permission.writeSummary', params: { path: real } } },
          },
        },
      },
      { toolName: 'write_file', status: 'succeeded' },
    ])
    const widened = await widenedEvents(turnId)
    expect(widened.map((event) => event.payload)).toEqual([
      expect.objectContaining({
        approvalId: request.approval.id,
        widen: permission.widen,
        duration: 'turn',
      }),
    ])
    // The room's stored mode never moved.
    expect(await readPermissions(harness, room.id)).toMatchObject({
      body: { mode: 'ask-for-approval', revision: 0, policy: MODE_PRESETS['ask-for-approval'] },
    })
    expect((await auditEvents(harness)).filter((e) => e.type === 'grant_created')).toEqual([])

    // Only that turn: the next one is refused there without asking anyone.
    const later = await send(harness, room.id, `write ${outside}/later.txt x`)
    await turnSettled(harness, room.id, later)
    expect(await toolCallsOf(harness, room.id, later)).toMatchObject([
      { status: 'refused', result: { code: 'outside_workspace' } },
    ])
    expect(existsSync(join(outside, 'later.txt'))).toBe(false)
  })

  it('widens that one directory only: a write elsewhere outside the workspace stays refused', async () => {
    const room = await createRoom(harness)
    const allowed = await outsideDir(harness)
    const elsewhere = await outsideDir(harness)
    const turnId = await send(
      harness,
      room.id,
      [`permit write ${allowed}`, `write ${elsewhere}/no.txt x`].join('\n'),
    )
    const seen = new Set<string>()
    expect(
      (await decide(harness, await nextPending(room.id, turnId, seen), 'allow-once')).status,
    ).toBe(200)
    await turnSettled(harness, room.id, turnId)
    expect(await toolCallsOf(harness, room.id, turnId)).toMatchObject([
      { status: 'succeeded' },
      { status: 'refused', result: { code: 'outside_workspace' } },
    ])
    expect(existsSync(join(elsewhere, 'no.txt'))).toBe(false)
  })

  it('widens nothing when the person denies it', async () => {
    const room = await createRoom(harness)
    const outside = await outsideDir(harness)
    const turnId = await send(
      harness,
      room.id,
      [`permit write ${outside}`, `write ${outside}/x.txt x`].join('\n'),
    )
    const request = await waitForPendingApproval(harness, room.id, turnId)
    expect((await decide(harness, request, 'deny')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    expect(await toolCallsOf(harness, room.id, turnId)).toMatchObject([
      { toolName: 'request_permissions', status: 'denied', result: { code: 'approval_denied' } },
      { toolName: 'write_file', status: 'refused', result: { code: 'outside_workspace' } },
    ])
    expect(await widenedEvents(turnId)).toEqual([])
  })

  it('goes to the person under approve-for-me too: the automatic reviewer neither widens a room nor allows a write the widening let out', async () => {
    const room = await createRoom(harness)
    await setMode(harness, room.id, 'approve-for-me')
    const outside = await outsideDir(harness)
    const turnId = await send(
      harness,
      room.id,
      [`permit write ${outside}`, `write ${outside}/r.txt x`].join('\n'),
    )
    const seen = new Set<string>()
    const request = await nextPending(room.id, turnId, seen)
    expect(request.approval.decidedBy).toBeUndefined()
    expect((await decide(harness, request, 'allow-once')).status).toBe(200)
    // The write the widening let out of the workspace is not the reviewer's
    // to allow either: it goes to the person.
    const write = await nextPending(room.id, turnId, seen)
    const escalated = await eventually(async () => {
      const summary = (await roomApprovals(harness, room.id)).find(
        (approval) => approval.id === write.approval.id,
      )
      return summary?.escalationReason === undefined ? undefined : summary
    }, 'the reviewer to escalate the widened write')
    expect(escalated).toMatchObject({
      status: 'pending',
      escalationReason: 'the write is outside the workspace',
    })
    expect((await decide(harness, write, 'allow-once')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    expect(readFileSync(join(outside, 'r.txt'), 'utf8')).toBe('x')
    const decided = await roomApprovals(harness, room.id)
    expect(decided.map(({ kind, status, decidedBy }) => ({ kind, status, decidedBy }))).toEqual(
      expect.arrayContaining([
        { kind: 'permission-request', status: 'allowed', decidedBy: 'user' },
        { kind: 'apply-changes', status: 'allowed', decidedBy: 'user' },
      ]),
    )
  })

  it('lets no grant answer for a write the widening let out of the workspace', async () => {
    const room = await createRoom(harness)
    const inside = await send(harness, room.id, 'write granted.txt x')
    const first = await waitForPendingApproval(harness, room.id, inside)
    expect((await decide(harness, first, 'allow-always')).status).toBe(200)
    await turnSettled(harness, room.id, inside)

    const outside = await outsideDir(harness)
    const turnId = await send(
      harness,
      room.id,
      [`permit write ${outside}`, `write ${outside}/g.txt x`].join('\n'),
    )
    const seen = new Set<string>()
    expect(
      (await decide(harness, await nextPending(room.id, turnId, seen), 'allow-once')).status,
    ).toBe(200)
    const write = await nextPending(room.id, turnId, seen)
    expect(write.approval.toolName).toBe('write_file')
    expect((await decide(harness, write, 'deny')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    expect(existsSync(join(outside, 'g.txt'))).toBe(false)
  })
})

describe('a permission request refused without asking anyone', () => {
  async function refusedWithoutAsking(
    line: string,
    code: string,
    setup: (roomId: string) => Promise<unknown> = async () => undefined,
    agentId = 'assistant',
  ) {
    const room = await createRoom(harness, { agentId })
    await setup(room.id)
    const turnId = await send(harness, room.id, line)
    await turnSettled(harness, room.id, turnId)
    expect(await toolCallsOf(harness, room.id, turnId), line).toMatchObject([
      { toolName: 'request_permissions', status: 'refused', result: { code } },
    ])
    expect(await roomApprovals(harness, room.id), line).toEqual([])
  }

  it('refuses network access for a command: no turn can give a sandboxed command a network', async () => {
    await refusedWithoutAsking('permit network npm install', 'nothing_to_widen')
  })

  it('refuses the file-system root, a credentials folder, a git folder by any name, a missing folder and the workspace', async () => {
    const ssh = join(harness.root, 'home', '.ssh')
    const git = join(harness.root, 'repo', '.git')
    await mkdir(ssh, { recursive: true })
    await mkdir(git, { recursive: true })
    await refusedWithoutAsking('permit write /', 'too_broad')
    await refusedWithoutAsking(`permit write ${ssh}`, 'sensitive_path')
    await refusedWithoutAsking(`permit write ${git}`, 'sensitive_path')
    // A git folder under another name (a bare repository, a separate git
    // folder), and a folder inside one, by its shape: HEAD, objects/, refs/.
    const bare = join(harness.root, 'backup')
    for (const part of ['objects', 'refs', 'hooks'])
      await mkdir(join(bare, part), { recursive: true })
    await writeFile(join(bare, 'HEAD'), 'ref: refs/heads/main\n')
    await refusedWithoutAsking(`permit write ${bare}`, 'sensitive_path')
    await refusedWithoutAsking(`permit write ${join(bare, 'hooks')}`, 'sensitive_path')
    // A settings folder holding a shell's start-up folder, judged by where
    // it is (`.config/fish/conf.d`), though below it it is `fish/conf.d`.
    const settings = join(harness.root, 'home', '.config')
    await mkdir(join(settings, 'fish', 'conf.d'), { recursive: true })
    await writeFile(join(settings, 'fish', 'conf.d', 'path.fish'), 'set -x PATH $PATH\n')
    await refusedWithoutAsking(`permit write ${settings}`, 'sensitive_path')
    await refusedWithoutAsking(`permit write ${join(harness.root, 'missing')}`, 'invalid_path')
    await refusedWithoutAsking('permit write .', 'already_allowed')
    await refusedWithoutAsking(`permit write ${join(harness.workspace, 'sub')}`, 'invalid_path')
  })

  it('refuses under full access (nothing to widen), in plan mode, and for a read-only agent', async () => {
    const outside = await outsideDir(harness)
    await refusedWithoutAsking(`permit write ${outside}`, 'already_allowed', (roomId) =>
      setMode(harness, roomId, 'full-access'),
    )
    await refusedWithoutAsking(`permit write ${outside}`, 'not_offered_in_plan', (roomId) =>
      putMode(harness, roomId, { mode: 'plan', expectedRevision: 0 }, null),
    )
    await refusedWithoutAsking(
      `permit write ${outside}`,
      'read_only_agent',
      async () => undefined,
      'reader',
    )
  })

  it('refuses a folder outside the directories a limited agent may use', async () => {
    const outside = await outsideDir(harness)
    await refusedWithoutAsking(
      `permit write ${outside}`,
      'outside_agent_roots',
      async () => undefined,
      'scoped',
    )
  })
})

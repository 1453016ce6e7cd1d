import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { link, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { actionDigest } from '../src/runtime/domain/approval.ts'
import type { ActionReviewer } from '../src/runtime/policy/reviewer.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import {
  auditEvents,
  decide,
  outsideDir,
  roomApprovals,
  roomGrants,
  setMode,
  toolCallsOf,
  waitForPendingApproval,
} from './support/policy-helpers.ts'
import { createRoom, send, timeline, turnSettled } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

// What runs is what the person saw: a write or delete acts only on the file
// the approval showed, and a read that reaches beyond the workspace asks the
// person. Everything here goes through a real
// runtime: HTTP, the SQLite store, consent tokens and the real file tools.

let harness: RuntimeHarness
let outside: string
let victim: string
const VICTIM_TEXT = 'the person’s own file, outside the workspace\n'

beforeAll(async () => {
  harness = await startHarness()
  outside = await outsideDir(harness)
  victim = join(outside, 'victim.txt')
  await writeFile(victim, VICTIM_TEXT)
})
afterAll(async () => {
  await harness?.close()
})

async function victimUntouched(): Promise<void> {
  expect(await readFile(victim, 'utf8')).toBe(VICTIM_TEXT)
}

/** Sends a message, waits for its turn to settle, returns its one call. */
async function runTurn(roomId: string, text: string) {
  const turnId = await send(harness, roomId, text)
  await turnSettled(harness, roomId, turnId)
  const [call] = await toolCallsOf(harness, roomId, turnId)
  if (!call) throw new Error(`no tool call for "${text}"`)
  return { turnId, call }
}

async function approvalsOfTurn(roomId: string, turnId: string) {
  return (await roomApprovals(harness, roomId)).filter((approval) => approval.turnId === turnId)
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

describe('a write through a hard link to a file outside the workspace', () => {
  it('is refused without asking, and the file outside keeps its content', async () => {
    const room = await createRoom(harness)
    await link(victim, join(harness.workspace, 'hl-direct.txt'))
    const { turnId, call } = await runTurn(room.id, 'write hl-direct.txt agent bytes')
    expect(call).toMatchObject({ status: 'refused', result: { code: 'hard_linked_target' } })
    expect(await approvalsOfTurn(room.id, turnId)).toEqual([])
    await victimUntouched()
  })

  it('is refused even when an allow-always grant answers for write_file', async () => {
    const room = await createRoom(harness)
    const first = await send(harness, room.id, 'write granted.txt first')
    expect(
      (await decide(harness, await waitForPendingApproval(harness, room.id, first), 'allow-always'))
        .status,
    ).toBe(200)
    await turnSettled(harness, room.id, first)
    expect(await roomGrants(harness, room.id)).toMatchObject([
      { toolName: 'write_file', scope: 'tool' },
    ])

    await link(victim, join(harness.workspace, 'hl-granted.txt'))
    const { turnId, call } = await runTurn(room.id, 'write hl-granted.txt agent bytes')
    expect(call).toMatchObject({ status: 'refused', result: { code: 'hard_linked_target' } })
    expect(await approvalsOfTurn(room.id, turnId)).toEqual([])
    await victimUntouched()
  })

  it('is refused and audited when the hard link appears between the approval and its execution', async () => {
    const room = await createRoom(harness)
    const turnId = await send(harness, room.id, 'write hl-late.txt agent bytes')
    const view = await waitForPendingApproval(harness, room.id, turnId)
    const target = join(harness.workspace, 'hl-late.txt')
    expect(view.action.target).toEqual({ path: target, exists: false })
    expect(view.action.fileChange).toMatchObject({ kind: 'create', path: 'hl-late.txt' })

    await link(victim, target)
    expect((await decide(harness, view, 'allow-once')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    const [call] = await toolCallsOf(harness, room.id, turnId)
    expect(call).toMatchObject({ status: 'refused', result: { code: 'target_changed' } })
    const refused = (await auditEvents(harness)).filter(
      (event) => event.type === 'execution_refused' && event.subjectId === call?.id,
    )
    expect(refused).toMatchObject([
      { payload: { approvalId: view.approval.id, code: 'target_changed', toolName: 'write_file' } },
    ])
    await victimUntouched()
  })
})

describe('the file a write replaces', () => {
  it('is shown as a numbered diff against its current content, bound into the digest', async () => {
    const room = await createRoom(harness)
    await writeFile(join(harness.workspace, 'shown.txt'), 'one\ntwo\n')
    const turnId = await send(harness, room.id, 'write shown.txt one')
    const view = await waitForPendingApproval(harness, room.id, turnId)
    const before = await stat(join(harness.workspace, 'shown.txt'), { bigint: true })
    expect(view.action.target).toMatchObject({
      exists: true,
      type: 'file',
      inode: before.ino.toString(),
      links: 1,
      contentSha256: sha256('one\ntwo\n'),
    })
    expect(view.action.fileChange).toEqual({
      path: 'shown.txt',
      kind: 'modify',
      truncated: false,
      hunks: [
        {
          oldStart: 1,
          oldLines: 2,
          newStart: 1,
          newLines: 1,
          lines: [
            { op: 'remove', text: 'one' },
            { op: 'remove', text: 'two' },
            // The new content is "one" with no line feed after it.
            { op: 'add', text: 'one', noFinalNewline: true },
          ],
        },
      ],
    })
    expect(view.actionDigest).toBe(actionDigest(view.action))
    // The card never sees the file's lines.
    const [summary] = await approvalsOfTurn(room.id, turnId)
    expect(summary).not.toHaveProperty('fileChange')
    expect(summary).not.toHaveProperty('target')

    expect((await decide(harness, view, 'allow-once')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    expect(await readFile(join(harness.workspace, 'shown.txt'), 'utf8')).toBe('one')
  })

  it('is not replaced when its content changed after the person saw the diff', async () => {
    const room = await createRoom(harness)
    const file = join(harness.workspace, 'edited-meanwhile.txt')
    await writeFile(file, 'what the person saw\n')
    const turnId = await send(harness, room.id, 'write edited-meanwhile.txt agent text')
    const view = await waitForPendingApproval(harness, room.id, turnId)
    await writeFile(file, 'edited by someone else\n')
    expect((await decide(harness, view, 'allow-once')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    const [call] = await toolCallsOf(harness, room.id, turnId)
    expect(call).toMatchObject({ status: 'refused', result: { code: 'target_changed' } })
    expect(await readFile(file, 'utf8')).toBe('edited by someone else\n')
  })
})

describe('a delete', () => {
  it('is refused and audited when the file was replaced by another after the approval', async () => {
    const room = await createRoom(harness)
    const file = join(harness.workspace, 'to-delete.txt')
    await writeFile(file, 'the file the person saw')
    const turnId = await send(harness, room.id, 'delete to-delete.txt')
    const view = await waitForPendingApproval(harness, room.id, turnId)
    expect(view.action.target).toMatchObject({ exists: true, type: 'file', links: 1 })
    await rm(file)
    await writeFile(file, 'another file under the same name')
    expect((await decide(harness, view, 'allow-once')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    const [call] = await toolCallsOf(harness, room.id, turnId)
    expect(call).toMatchObject({ status: 'refused', result: { code: 'target_changed' } })
    expect(await readFile(file, 'utf8')).toBe('another file under the same name')
    expect(
      (await auditEvents(harness)).some(
        (e) => e.type === 'execution_refused' && e.subjectId === call?.id,
      ),
    ).toBe(true)
  })

  it('is refused and audited when the file gains a name outside between the approval and its execution', async () => {
    const room = await createRoom(harness)
    const file = join(harness.workspace, 'linked-late.txt')
    await writeFile(file, 'the file the person saw')
    const turnId = await send(harness, room.id, 'delete linked-late.txt')
    const view = await waitForPendingApproval(harness, room.id, turnId)
    expect(view.action.target).toMatchObject({ exists: true, type: 'file', links: 1 })
    const outsideName = join(outside, 'linked-late.txt')
    await link(file, outsideName)
    expect((await decide(harness, view, 'allow-once')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    const [call] = await toolCallsOf(harness, room.id, turnId)
    expect(call).toMatchObject({ status: 'refused', result: { code: 'target_changed' } })
    expect(await readFile(file, 'utf8')).toBe('the file the person saw')
    expect((await stat(outsideName)).nlink).toBe(2)
    expect(
      (await auditEvents(harness)).filter(
        (e) => e.type === 'execution_refused' && e.subjectId === call?.id,
      ),
    ).toMatchObject([{ payload: { approvalId: view.approval.id, toolName: 'delete_file' } }])
  })

  it('of a hard link to a file outside is refused without asking', async () => {
    const room = await createRoom(harness)
    await link(victim, join(harness.workspace, 'hl-delete.txt'))
    const { turnId, call } = await runTurn(room.id, 'delete hl-delete.txt')
    expect(call).toMatchObject({ status: 'refused', result: { code: 'hard_linked_target' } })
    expect(await approvalsOfTurn(room.id, turnId)).toEqual([])
    expect(existsSync(join(harness.workspace, 'hl-delete.txt'))).toBe(true)
    await victimUntouched()
  })
})

describe('reads under ask-for-approval', () => {
  it('ask before reading a credential outside the workspace, and a denied read shows nothing', async () => {
    const room = await createRoom(harness)
    const key = join(outside, '.ssh', 'id_ed25519')
    await mkdir(join(outside, '.ssh'))
    await writeFile(key, 'PRIVATE KEY MATERIAL 4f1c\n')
    const turnId = await send(harness, room.id, `read ${key}`)
    const view = await waitForPendingApproval(harness, room.id, turnId)
    expect(view.action).toMatchObject({ kind: 'read', toolName: 'read_file' })
    expect((await decide(harness, view, 'deny')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    const [call] = await toolCallsOf(harness, room.id, turnId)
    expect(call).toMatchObject({ status: 'denied' })
    expect(JSON.stringify(await timeline(harness, room.id))).not.toContain('PRIVATE KEY MATERIAL')
  })

  it('read a plain workspace file unasked, and ask for .env and for a hard link inside it', async () => {
    const room = await createRoom(harness)
    await writeFile(join(harness.workspace, 'plain-read.txt'), 'plain')
    await writeFile(join(harness.workspace, '.env'), 'TOKEN=abc')
    await link(victim, join(harness.workspace, 'hl-read.txt'))
    const plain = await runTurn(room.id, 'read plain-read.txt')
    expect(plain.call).toMatchObject({ status: 'succeeded', result: { output: 'plain' } })
    expect(await approvalsOfTurn(room.id, plain.turnId)).toEqual([])
    for (const asked of ['.env', 'hl-read.txt']) {
      const turnId = await send(harness, room.id, `read ${asked}`)
      const view = await waitForPendingApproval(harness, room.id, turnId)
      expect((await decide(harness, view, 'deny')).status).toBe(200)
      await turnSettled(harness, room.id, turnId)
    }
  })

  it('under full access read outside the workspace freely', async () => {
    const room = await createRoom(harness)
    await setMode(harness, room.id, 'full-access')
    const { turnId, call } = await runTurn(room.id, `read ${victim}`)
    expect(call).toMatchObject({ status: 'succeeded', result: { output: VICTIM_TEXT } })
    expect(await approvalsOfTurn(room.id, turnId)).toEqual([])
  })
})

describe('reads under approve-for-me', () => {
  it('never let the reviewer decide a private read, even one that would allow everything', async () => {
    let reviewed: string[] = []
    const allowEverything: ActionReviewer = {
      review: async (input) => {
        reviewed = [...reviewed, `${input.toolName} ${String(input.arguments.path)}`]
        return { verdict: 'allow', reason: 'allows everything' }
      },
    }
    const runtime = await startInProcessRuntime({ reviewer: allowEverything })
    try {
      const room = await createRoom(runtime)
      await setMode(runtime, room.id, 'approve-for-me')
      const secretDir = join(runtime.root, 'elsewhere')
      await mkdir(secretDir)
      await writeFile(join(secretDir, 'secret.txt'), 'secret')
      const readTurn = await send(runtime, room.id, `read ${join(secretDir, 'secret.txt')}`)
      const view = await waitForPendingApproval(runtime, room.id, readTurn)
      // The positive step: a write inside the workspace is decided by the
      // same reviewer, so it was there to ask, and was not asked about the read.
      const writeTurn = await send(runtime, room.id, 'write reviewed.txt ok')
      await turnSettled(runtime, room.id, writeTurn)
      expect(reviewed).toEqual(['write_file reviewed.txt'])
      expect((await runtime.client.getApproval(view.approval.id)).approval.status).toBe('pending')
      expect((await decide(runtime, view, 'deny')).status).toBe(200)
    } finally {
      await runtime.close()
    }
  })
})

describe("the built-in MCP filesystem server's file tools", () => {
  const mcpWrite = (path: string, content: string) =>
    `mcp filesystem write_file ${JSON.stringify({ path, content })}`

  it('show a write as the numbered diff of the file it replaces, and write it once allowed', async () => {
    const room = await createRoom(harness)
    const file = join(harness.workspace, 'mcp-shown.txt')
    await writeFile(file, 'a\nb\n')
    const turnId = await send(harness, room.id, mcpWrite('mcp-shown.txt', 'a\nB\n'))
    const view = await waitForPendingApproval(harness, room.id, turnId)
    const preview = view.action.mcp?.preview ?? ''
    expect(preview).toContain(`Replaces ${file}`)
    expect(preview).toContain('@@ -1,2 +1,2 @@')
    expect(preview).toContain('     2        -b')
    expect(preview).toContain('            2 +B')
    expect((await decide(harness, view, 'allow-once')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    expect(await readFile(file, 'utf8')).toBe('a\nB\n')
  })

  it('refuse and audit a write whose file changed after the person saw its diff', async () => {
    const room = await createRoom(harness)
    const file = join(harness.workspace, 'mcp-changed.txt')
    await writeFile(file, 'seen\n')
    const turnId = await send(harness, room.id, mcpWrite('mcp-changed.txt', 'agent\n'))
    const view = await waitForPendingApproval(harness, room.id, turnId)
    await writeFile(file, 'changed meanwhile\n')
    expect((await decide(harness, view, 'allow-once')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    const [call] = await toolCallsOf(harness, room.id, turnId)
    expect(call).toMatchObject({ status: 'refused', result: { code: 'preview_changed' } })
    expect(await readFile(file, 'utf8')).toBe('changed meanwhile\n')
    expect(
      (await auditEvents(harness)).some(
        (event) => event.type === 'execution_refused' && event.subjectId === call?.id,
      ),
    ).toBe(true)
  })

  it('never write through a hard link to a file outside, even once allowed', async () => {
    const room = await createRoom(harness)
    await link(victim, join(harness.workspace, 'hl-mcp.txt'))
    const turnId = await send(harness, room.id, mcpWrite('hl-mcp.txt', 'agent bytes'))
    const view = await waitForPendingApproval(harness, room.id, turnId)
    expect(view.action.mcp?.preview).toContain('[preview failed]')
    expect(view.action.mcp?.preview).toContain('hard links')
    expect((await decide(harness, view, 'allow-once')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    const [call] = await toolCallsOf(harness, room.id, turnId)
    expect(call?.status).toBe('failed')
    await victimUntouched()
  })

  it('read nothing unasked that read_file would ask about', async () => {
    const room = await createRoom(harness)
    await writeFile(join(harness.workspace, '.env.local'), 'TOKEN=abc')
    await link(victim, join(harness.workspace, 'hl-mcp-read.txt'))
    const turnId = await send(
      harness,
      room.id,
      [
        'mcp filesystem read_file {"path": ".env.local"}',
        'mcp filesystem read_file {"path": "hl-mcp-read.txt"}',
      ].join('\n'),
    )
    const settled = await turnSettled(harness, room.id, turnId)
    expect(settled.approvals.filter((approval) => approval.turnId === turnId)).toEqual([])
    const calls = await toolCallsOf(harness, room.id, turnId)
    expect(calls.map((call) => call.status)).toEqual(['failed', 'failed'])
    expect(JSON.stringify(calls)).not.toContain('TOKEN=abc')
    expect(JSON.stringify(calls)).not.toContain('the person’s own file')
  })
})

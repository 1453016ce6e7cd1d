import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readdir, rename, symlink } from 'node:fs/promises'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MODE_PRESETS } from '../src/runtime/policy/permission-modes.ts'
import { narrowestRoomPolicy } from '../src/runtime/policy/room-policy.ts'
import { SqliteAuditLog } from '../src/runtime/store/audit-log.ts'
import { DATABASE_FILE_NAME } from '../src/runtime/store/database.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { SqliteRoomRepository } from '../src/runtime/store/room-repository.ts'
import { queryDatabase } from './support/integrity-helpers.ts'
import {
  auditEvents,
  decide,
  putMode,
  readPermissions,
  roomGrants,
  toolCallsOf,
  waitForPendingApproval,
} from './support/policy-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

// A room's workspace is the folder the person chose, by identity (device
// and inode of its real path), not whatever is at its name later. Each
// test runs a real runtime over loopback on real folders and links.

let harness: RuntimeHarness

beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await harness?.close()
})

/** Folder A, which a room is made on, and folder B, which must stay
 *  untouched whatever happens to A. */
async function folders(): Promise<{ a: string; b: string }> {
  const id = randomUUID()
  const a = join(harness.root, `A-${id}`)
  const b = join(harness.root, `B-${id}`)
  await mkdir(a)
  await mkdir(b)
  return { a, b }
}

/** The attack: A renamed away, and a link to B put in its place. */
async function swapForLink(a: string, b: string): Promise<void> {
  await rename(a, `${a}.old`)
  await symlink(b, a)
}

function sendRaw(roomId: string, text: string) {
  return harness.client.raw('POST', `/v1/rooms/${roomId}/messages`, {
    clientRequestId: randomUUID(),
    text,
  })
}

function createRaw(workspace: string) {
  return harness.client.raw('POST', '/v1/rooms', {
    kind: 'direct',
    agentId: 'assistant',
    workspace,
    title: 'Workspace rule',
  })
}

describe('a room whose workspace folder is replaced by a link to another folder', () => {
  it('refuses the write allowed during the swap, and every turn after it, so nothing lands in the other folder', async () => {
    const { a, b } = await folders()
    const room = await createRoom(harness, { workspace: a })
    // Admitted before the swap: its write waits for the person meanwhile.
    const turnId = await send(harness, room.id, 'write notes.txt first')
    const pending = await waitForPendingApproval(harness, room.id, turnId)
    await swapForLink(a, b)

    expect((await decide(harness, pending, 'allow-always')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    expect(await toolCallsOf(harness, room.id, turnId)).toMatchObject([
      {
        status: 'refused',
        result: { code: 'workspace_moved', message: { code: 'workspace.redirected' } },
      },
    ])
    // The always-allow the person gave is there; nothing runs under it.
    expect(await roomGrants(harness, room.id)).toMatchObject([{ toolName: 'write_file' }])
    const unasked = await sendRaw(room.id, 'write notes.txt second')
    expect(unasked).toMatchObject({ status: 409, body: { code: 'workspace_moved' } })

    expect(await readdir(b)).toEqual([])
    expect(await readdir(`${a}.old`)).toEqual([])
  })

  it('refuses an unasked write under a grant given before the swap', async () => {
    const { a, b } = await folders()
    const room = await createRoom(harness, { workspace: a })
    const first = await send(harness, room.id, 'write first.txt 1')
    const pending = await waitForPendingApproval(harness, room.id, first)
    expect((await decide(harness, pending, 'allow-always')).status).toBe(200)
    await turnSettled(harness, room.id, first)
    expect(existsSync(join(a, 'first.txt'))).toBe(true)

    await swapForLink(a, b)
    const unasked = await sendRaw(room.id, 'write second.txt 2')
    expect(unasked).toMatchObject({ status: 409, body: { code: 'workspace_moved' } })
    expect(await readdir(b)).toEqual([])
  })

  it('cannot be confirmed again: the person is told to make a new room, and plan mode still applies', async () => {
    const { a, b } = await folders()
    const room = await createRoom(harness, { workspace: a })
    await swapForLink(a, b)

    const confirmed = await putMode(harness, room.id, {
      mode: 'ask-for-approval',
      expectedRevision: 0,
      acceptsReplacedWorkspace: true,
    })
    expect(confirmed).toMatchObject({ status: 409, body: { code: 'workspace_moved' } })
    expect((confirmed.body as { error: string }).error).toMatch(/create a new room/i)
    expect((await readPermissions(harness, room.id)).body).toMatchObject({ revision: 0 })

    // Narrowing is never refused, and changes nothing about the workspace.
    expect(
      await putMode(harness, room.id, { mode: 'plan', expectedRevision: 0 }, null),
    ).toMatchObject({ status: 200, body: { mode: 'plan', revision: 1 } })
    expect(await sendRaw(room.id, 'list .')).toMatchObject({
      status: 409,
      body: { code: 'workspace_moved' },
    })
  })
})

describe('a room whose workspace folder is replaced by another folder of the same name', () => {
  it('refuses every turn until the person confirms the room’s mode again, which accepts the new folder', async () => {
    const { a } = await folders()
    const room = await createRoom(harness, { workspace: a })
    const first = await send(harness, room.id, 'write first.txt 1')
    const granted = await waitForPendingApproval(harness, room.id, first)
    expect((await decide(harness, granted, 'allow-always')).status).toBe(200)
    await turnSettled(harness, room.id, first)
    expect(await roomGrants(harness, room.id)).toHaveLength(1)
    await rename(a, `${a}.old`)
    await mkdir(a)

    const refused = await sendRaw(room.id, 'write notes.txt x')
    expect(refused).toMatchObject({ status: 409, body: { code: 'workspace_moved' } })
    expect((refused.body as { error: string }).error).toMatch(/confirm the room’s mode again/)
    expect(await readdir(a)).toEqual([])

    // Without the protected window's token, nothing is re-pinned.
    expect(
      await putMode(harness, room.id, { mode: 'ask-for-approval', expectedRevision: 0 }, null),
    ).toMatchObject({ status: 403 })
    expect(await sendRaw(room.id, 'write notes.txt x')).toMatchObject({ status: 409 })

    // Nor by a token that does not say it accepts the folder there now.
    const unsaid = await putMode(harness, room.id, {
      mode: 'ask-for-approval',
      expectedRevision: 0,
    })
    expect(unsaid).toMatchObject({ status: 409, body: { code: 'stale_revision' } })
    expect(await roomGrants(harness, room.id)).toHaveLength(1)

    const confirmed = await putMode(harness, room.id, {
      mode: 'ask-for-approval',
      expectedRevision: 0,
      acceptsReplacedWorkspace: true,
    })
    expect(confirmed).toMatchObject({ status: 200, body: { revision: 1, integrity: 'ok' } })
    const repinned = (await auditEvents(harness)).filter(
      (event) => event.type === 'room_permission_changed' && event.subjectId === room.id,
    )
    expect(repinned).toMatchObject([{ payload: { workspaceIdentity: { realPath: a } } }])
    // The grant was given for the old folder: accepting the new one revokes it.
    expect(await roomGrants(harness, room.id)).toEqual([])

    // A restart reads the re-pinned identity back from the sealed row.
    await harness.restart()
    const turnId = await send(harness, room.id, 'write notes.txt x')
    const pending = await waitForPendingApproval(harness, room.id, turnId)
    expect((await decide(harness, pending, 'allow-once')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    expect(await readdir(a)).toEqual(['notes.txt'])
    expect(await readdir(`${a}.old`)).toEqual(['first.txt'])
  })
})

describe('creating a room', () => {
  const refusedWorkspaces: [string, () => Promise<string>][] = [
    ['the file-system root', async () => '/'],
    ['the home folder', async () => homedir()],
    ['/proc/self/cwd', async () => '/proc/self/cwd'],
    ['/etc', async () => '/etc'],
    [
      'a link to the root',
      async () => {
        const link = join(harness.root, `to-root-${randomUUID()}`)
        await symlink('/', link)
        return link
      },
    ],
  ]

  it.each(refusedWorkspaces)('refuses %s as a workspace', async (_name, workspace) => {
    const response = await createRaw(await workspace())
    expect(response).toMatchObject({ status: 400, body: { code: 'invalid_workspace' } })
  })

  it('pins the workspace it accepts: its device and inode are sealed into the row and the creation record', async () => {
    const { a } = await folders()
    const room = await createRoom(harness, { workspace: a })
    const [row] = queryDatabase(
      harness.dataDir,
      'SELECT workspace_dev, workspace_ino FROM rooms WHERE id = ?',
      room.id,
    )
    expect(row).toMatchObject({ workspace_dev: expect.stringMatching(/^\d+$/) })
    const created = (await auditEvents(harness)).find(
      (event) => event.type === 'room_created' && event.subjectId === room.id,
    )
    expect(created?.payload).toMatchObject({
      workspaceIdentity: { realPath: a, ino: row?.workspace_ino },
    })
  })
})

/** Seals the room's row the way a runtime from before workspace identities
 *  did: no device or inode (and its revision moved on by one). */
async function makeLegacy(roomId: string): Promise<void> {
  await harness.supervisor.stop()
  try {
    const db = new DatabaseSync(join(harness.dataDir, DATABASE_FILE_NAME))
    try {
      const mac = new IntegrityMac(harness.integrityKey)
      const rooms = new SqliteRoomRepository(db, {
        mac,
        audit: new SqliteAuditLog(db, { mac }),
        narrowestPolicy: narrowestRoomPolicy,
        onTampered: (problem) => {
          throw new Error(`unexpected integrity problem: ${JSON.stringify(problem)}`)
        },
      })
      const policy = MODE_PRESETS['ask-for-approval']
      const changed = rooms.changePolicy(
        {
          roomId,
          clientRequestId: randomUUID(),
          bodyDigest: 'stored by a test',
          policy,
          expectedRevision: 0,
          fromMode: 'ask-for-approval',
          toMode: 'ask-for-approval',
          at: Date.now(),
          repinWorkspace: null,
        },
        () => ({
          roomId,
          revision: 1,
          policy,
          mode: 'ask-for-approval',
          fullAccessUnavailable: null,
          integrity: 'ok',
        }),
      )
      if (!changed) throw new Error(`room ${roomId} is not at revision 0`)
    } finally {
      db.close()
    }
  } finally {
    await harness.supervisor.start()
  }
}

describe('a room made before workspace identities were kept', () => {
  it('is pinned at its next turn when its path still resolves to itself', async () => {
    const { a } = await folders()
    const room = await createRoom(harness, { workspace: a })
    await makeLegacy(room.id)
    const rowOf = () =>
      queryDatabase(
        harness.dataDir,
        'SELECT workspace_dev, workspace_ino FROM rooms WHERE id = ?',
        room.id,
      )[0]
    expect(rowOf()).toMatchObject({ workspace_dev: null, workspace_ino: null })

    const turnId = await send(harness, room.id, 'list .')
    await turnSettled(harness, room.id, turnId)
    expect(rowOf()).toMatchObject({ workspace_dev: expect.stringMatching(/^\d+$/) })
    expect((await readPermissions(harness, room.id)).body).toMatchObject({ integrity: 'ok' })

    // Pinned now: another folder in its place is refused like any room's.
    await rename(a, `${a}.old`)
    await mkdir(a)
    expect(await sendRaw(room.id, 'list .')).toMatchObject({
      status: 409,
      body: { code: 'workspace_moved' },
    })
  })

  it('is refused, never pinned, when its path now leads elsewhere', async () => {
    const { a, b } = await folders()
    const room = await createRoom(harness, { workspace: a })
    await makeLegacy(room.id)
    await swapForLink(a, b)
    expect(await sendRaw(room.id, 'write notes.txt x')).toMatchObject({
      status: 409,
      body: { code: 'workspace_moved' },
    })
    expect(
      queryDatabase(harness.dataDir, 'SELECT workspace_dev FROM rooms WHERE id = ?', room.id),
    ).toEqual([{ workspace_dev: null }])
    expect(await readdir(b)).toEqual([])
  })
})

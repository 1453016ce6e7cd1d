import { randomUUID } from 'node:crypto'
import { mkdir, rename } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { canonicalJson } from '../src/contracts/canonical-json.ts'
import type { PermissionChangeRequest } from '../src/contracts/room.ts'
import { ConsentController } from '../src/main/core/consent-controller.ts'
import { MODE_PRESETS } from '../src/runtime/policy/permission-modes.ts'
import { FakeWindows } from './support/fake-protected-windows.ts'
import { editDatabase } from './support/integrity-helpers.ts'
import { createRoom } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

// A confirm that accepts a replaced workspace folder or seals a tampered
// room again vouches for something, whatever the modes: main times it like
// any widening, the window says what it does, and the runtime applies it
// only with a token that says so of a room that needs it.

const ENABLE_DELAY_MS = 10_000

let harness: RuntimeHarness
beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await harness?.close()
})

/** A controller whose monotonic clock the test moves by hand. */
function controllerOn(windows: FakeWindows) {
  const clock = { monotonic: 1_000 }
  const controller = new ConsentController({
    client: harness.client,
    connection: () => harness.supervisor.current,
    windows,
    preferences: () => ({ lang: 'en', theme: 'light' }),
    enableDelayMs: ENABLE_DELAY_MS,
    monotonicNow: () => clock.monotonic,
  })
  return { controller, clock }
}

async function raise(roomId: string) {
  const change: PermissionChangeRequest = {
    clientRequestId: randomUUID(),
    expectedRevision: 0,
    mode: 'approve-for-me',
  }
  const token = harness.mintPermission({ roomId, ...change })
  await harness.client.changePermissions(roomId, change, token)
}

/** A room at approve-for-me whose workspace folder was then replaced by
 *  another at the same path. */
async function roomWithReplacedFolder() {
  const workspace = join(harness.root, `replaced-${randomUUID()}`)
  await mkdir(workspace)
  const room = await createRoom(harness, { workspace })
  await raise(room.id)
  await rename(workspace, `${workspace}.old`)
  await mkdir(workspace)
  expect(await harness.client.getPermissions(room.id)).toMatchObject({
    mode: 'approve-for-me',
    revision: 1,
    workspaceMoved: true,
  })
  return room
}

/** A room whose stored row was edited outside Assent: it reads as
 *  ask-for-approval, with `integrity: 'tampered'`. */
async function tamperedRoom() {
  const room = await createRoom(harness)
  await harness.supervisor.stop()
  editDatabase(harness.dataDir, (db) => {
    db.prepare('UPDATE rooms SET policy_json = ? WHERE id = ?').run(
      canonicalJson(MODE_PRESETS['full-access']),
      room.id,
    )
  })
  await harness.supervisor.start()
  expect(await harness.client.getPermissions(room.id)).toMatchObject({
    mode: 'ask-for-approval',
    integrity: 'tampered',
  })
  return room
}

describe('a narrowing confirm that vouches for a room', () => {
  it('waits out main’s enable delay before accepting a replaced workspace folder', async () => {
    const room = await roomWithReplacedFolder()
    const windows = new FakeWindows()
    const { controller, clock } = controllerOn(windows)
    const narrowing = controller.requestModeChange([room.id, 'ask-for-approval'])
    const window = await windows.nextShown()
    expect(window.views[0]).toMatchObject({
      subject: 'mode-change',
      fromMode: 'approve-for-me',
      toMode: 'ask-for-approval',
      acceptsReplacedWorkspace: true,
    })

    controller.handleDecision(window.promptId, 'confirm', window)
    expect(window.refusedCount).toBe(1)
    expect(await harness.client.getPermissions(room.id)).toMatchObject({ workspaceMoved: true })

    clock.monotonic += ENABLE_DELAY_MS
    controller.handleDecision(window.promptId, 'confirm', window)
    const changed = await narrowing
    expect(changed).toMatchObject({ status: 'changed', permissions: { mode: 'ask-for-approval' } })
    expect(changed.status === 'changed' && 'workspaceMoved' in changed.permissions).toBe(false)
  })

  it('waits out main’s enable delay before sealing a tampered room again', async () => {
    const room = await tamperedRoom()
    const windows = new FakeWindows()
    const { controller, clock } = controllerOn(windows)
    const narrowing = controller.requestModeChange([room.id, 'plan'])
    const window = await windows.nextShown()
    expect(window.views[0]).toMatchObject({
      fromMode: 'ask-for-approval',
      toMode: 'plan',
      resealsRoom: true,
    })

    controller.handleDecision(window.promptId, 'confirm', window)
    expect(window.refusedCount).toBe(1)
    expect(await harness.client.getPermissions(room.id)).toMatchObject({ integrity: 'tampered' })

    clock.monotonic += ENABLE_DELAY_MS
    controller.handleDecision(window.promptId, 'confirm', window)
    await expect(narrowing).resolves.toMatchObject({
      status: 'changed',
      permissions: { mode: 'plan', integrity: 'ok' },
    })
  })

  it('is refused by the runtime unless its token says it accepts the replaced folder', async () => {
    const room = await roomWithReplacedFolder()
    const change = { clientRequestId: randomUUID(), expectedRevision: 1, mode: 'plan' } as const
    const unsaid = harness.mintPermission({ roomId: room.id, ...change })
    await expect(harness.client.changePermissions(room.id, change, unsaid)).rejects.toMatchObject({
      status: 409,
      code: 'stale_revision',
    })
    expect(await harness.client.getPermissions(room.id)).toMatchObject({
      revision: 1,
      workspaceMoved: true,
    })

    const said = {
      ...change,
      clientRequestId: randomUUID(),
      acceptsReplacedWorkspace: true,
    } as const
    const token = harness.mintPermission({ roomId: room.id, ...said })
    const changed = await harness.client.changePermissions(room.id, said, token)
    expect(changed).toMatchObject({ mode: 'plan', revision: 2 })
    expect('workspaceMoved' in changed).toBe(false)
  })

  it('is refused by the runtime when its token says so of a room that needs no vouching', async () => {
    const room = await createRoom(harness)
    for (const flag of [{ acceptsReplacedWorkspace: true }, { resealsRoom: true }] as const) {
      const change: PermissionChangeRequest = {
        clientRequestId: randomUUID(),
        expectedRevision: 0,
        mode: 'plan',
        ...flag,
      }
      const token = harness.mintPermission({ roomId: room.id, ...change })
      await expect(harness.client.changePermissions(room.id, change, token)).rejects.toMatchObject({
        status: 409,
        code: 'stale_revision',
      })
    }
    expect(await harness.client.getPermissions(room.id)).toMatchObject({ revision: 0 })
  })

  it('is refused by the runtime unless its token says it seals the tampered room again', async () => {
    const room = await tamperedRoom()
    const change = { clientRequestId: randomUUID(), expectedRevision: 0, mode: 'plan' } as const
    const unsaid = harness.mintPermission({ roomId: room.id, ...change })
    await expect(harness.client.changePermissions(room.id, change, unsaid)).rejects.toMatchObject({
      status: 409,
      code: 'stale_revision',
    })
    expect(await harness.client.getPermissions(room.id)).toMatchObject({ integrity: 'tampered' })
  })
})

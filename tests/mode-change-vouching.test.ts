import { randomUUID } from 'node:crypto'
import { mkdir, rename } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PermissionMode } from '../src/contracts/policy-axes.ts'
import type { PermissionChangeRequest } from '../src/contracts/room.ts'
import { ConsentController } from '../src/main/core/consent-controller.ts'
import { FakeWindows } from './support/fake-protected-windows.ts'
import { tamperWithRoomPolicy } from './support/integrity-helpers.ts'
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
  await tamperWithRoomPolicy(harness, room.id)
  expect(await harness.client.getPermissions(room.id)).toMatchObject({
    mode: 'ask-for-approval',
    integrity: 'tampered',
  })
  return room
}

/** Opens the review of `mode` for the room, checks its view says `shown`,
 *  and confirms at once (main refuses: the room must stay `untouched`),
 *  then once the enable delay has passed. */
async function confirmInTime(
  roomId: string,
  mode: PermissionMode,
  shown: Record<string, unknown>,
  untouched: Record<string, unknown>,
) {
  const windows = new FakeWindows()
  const { controller, clock } = controllerOn(windows)
  const outcome = controller.requestModeChange([roomId, mode])
  const window = await windows.nextShown()
  expect(window.views[0]).toMatchObject({ subject: 'mode-change', toMode: mode, ...shown })

  controller.handleDecision(window.promptId, 'confirm', window)
  expect(window.refusedCount).toBe(1)
  expect(await harness.client.getPermissions(roomId)).toMatchObject(untouched)

  clock.monotonic += ENABLE_DELAY_MS
  controller.handleDecision(window.promptId, 'confirm', window)
  return outcome
}

/** Sends `change` with a token minted for exactly it, and expects it
 *  applied, or refused as not the room the window showed. */
async function changeWithToken(
  roomId: string,
  fields: Omit<PermissionChangeRequest, 'clientRequestId'>,
  expected: 'applied' | 'refused',
) {
  const change = { clientRequestId: randomUUID(), ...fields }
  const token = harness.mintPermission({ roomId, ...change })
  const sent = harness.client.changePermissions(roomId, change, token)
  if (expected === 'applied') return sent
  await expect(sent).rejects.toMatchObject({ status: 409, code: 'stale_revision' })
  return undefined
}

describe('a narrowing confirm that vouches for a room', () => {
  it('waits out main’s enable delay before accepting a replaced workspace folder', async () => {
    const room = await roomWithReplacedFolder()
    const changed = await confirmInTime(
      room.id,
      'ask-for-approval',
      { fromMode: 'approve-for-me', acceptsReplacedWorkspace: true },
      { workspaceMoved: true },
    )
    expect(changed).toMatchObject({ status: 'changed', permissions: { mode: 'ask-for-approval' } })
    expect(changed.status === 'changed' && 'workspaceMoved' in changed.permissions).toBe(false)
  })

  it('waits out main’s enable delay before sealing a tampered room again', async () => {
    const room = await tamperedRoom()
    const changed = await confirmInTime(
      room.id,
      'plan',
      { fromMode: 'ask-for-approval', resealsRoom: true },
      { integrity: 'tampered' },
    )
    expect(changed).toMatchObject({
      status: 'changed',
      permissions: { mode: 'plan', integrity: 'ok' },
    })
  })

  it('is refused by the runtime unless its token says it accepts the replaced folder', async () => {
    const room = await roomWithReplacedFolder()
    await changeWithToken(room.id, { expectedRevision: 1, mode: 'plan' }, 'refused')
    expect(await harness.client.getPermissions(room.id)).toMatchObject({
      revision: 1,
      workspaceMoved: true,
    })

    const said = { expectedRevision: 1, mode: 'plan', acceptsReplacedWorkspace: true } as const
    const changed = await changeWithToken(room.id, said, 'applied')
    expect(changed).toMatchObject({ mode: 'plan', revision: 2 })
    expect('workspaceMoved' in changed!).toBe(false)
  })

  it('is refused by the runtime when its token says so of a room that needs no vouching', async () => {
    const room = await createRoom(harness)
    for (const flag of [{ acceptsReplacedWorkspace: true }, { resealsRoom: true }] as const) {
      await changeWithToken(room.id, { expectedRevision: 0, mode: 'plan', ...flag }, 'refused')
    }
    expect(await harness.client.getPermissions(room.id)).toMatchObject({ revision: 0 })
  })

  it('is refused by the runtime unless its token says it seals the tampered room again', async () => {
    const room = await tamperedRoom()
    await changeWithToken(room.id, { expectedRevision: 0, mode: 'plan' }, 'refused')
    expect(await harness.client.getPermissions(room.id)).toMatchObject({ integrity: 'tampered' })
  })
})

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { GatewayMode } from '../../contracts/mcp-gateway.ts'
import type { RoomPolicy } from '../../contracts/policy-axes.ts'
import type {
  Room,
  RoomPermissions,
  RowIntegrity,
  WorkspaceIdentity,
} from '../../contracts/room.ts'
import { GATEWAY_AGENT_ID } from '../domain/agent-preset.ts'
import { Refusal } from '../domain/refusal.ts'
import { EventBus } from '../events/event-bus.ts'
import { policyForMode } from '../policy/permission-modes.ts'
import { workspaceIdentityNow } from '../policy/workspace-identity.ts'
import { GatewayModeService, NO_GATEWAY_ROOM_REVISION } from './gateway-mode-service.ts'

/** Long enough never to end a wait a test expects to end otherwise. */
const LONG_MS = 30_000

/** The rooms as the service reads them: one gateway room at most, whose
 *  mode a test sets. */
class FakeRooms {
  room: Room | undefined
  policy: RoomPolicy = policyForMode('ask-for-approval')
  revision = 0
  integrity: RowIntegrity = 'ok'
  reads = 0

  findRoom(agentId: string, workspace: string): Room | undefined {
    this.reads += 1
    const room = this.room
    return room?.agentId === agentId && room.workspace === workspace ? room : undefined
  }

  permissions(roomId: string): RoomPermissions {
    return {
      roomId,
      revision: this.revision,
      policy: this.policy,
      mode: 'ask-for-approval',
      fullAccessUnavailable: null,
      integrity: this.integrity,
    }
  }

  create(workspace: string, events: EventBus): Room {
    this.room = {
      id: 'room_1',
      kind: 'direct',
      agentId: GATEWAY_AGENT_ID,
      workspace,
      title: 'MCP gateway',
      mode: 'ask-for-approval',
      revision: 0,
      createdAt: 1,
    }
    events.emit('room.created', { room: this.room })
    return this.room
  }

  change(mode: 'plan' | 'ask-for-approval', events: EventBus): void {
    this.policy = policyForMode(mode)
    this.revision += 1
    events.emit('room.updated', { roomId: this.room?.id })
  }
}

let folder: string
let pinned: WorkspaceIdentity
let rooms: FakeRooms
let events: EventBus
let service: GatewayModeService

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'assent-gateway-mode-'))
  const identity = workspaceIdentityNow(folder)
  if (identity === null) throw new Error('no folder')
  pinned = identity
  rooms = new FakeRooms()
  events = new EventBus()
  service = new GatewayModeService({ rooms, events })
})
afterEach(() => rmSync(folder, { recursive: true, force: true }))

const watch = (seen: string | null, waitMs = LONG_MS, signal?: AbortSignal) =>
  service.watch({ workspaceIdentity: pinned, seen }, waitMs, signal)

/** Whether `promise` is still pending after the event loop had a turn. */
async function stillWaiting(promise: Promise<GatewayMode>): Promise<boolean> {
  const marker = Symbol('waiting')
  const first = await Promise.race([
    promise,
    new Promise<symbol>((resolve) => setTimeout(() => resolve(marker), 20)),
  ])
  return first === marker
}

describe('POST /v1/gateway/mode: the gateway room mode long poll', () => {
  it('answers at once with the mode a new room starts in, and creates no room', async () => {
    expect(await watch(null)).toEqual({ revision: NO_GATEWAY_ROOM_REVISION, neverAsks: false })
    expect(rooms.room).toBeUndefined()
  })

  it('waits while nothing changed, and answers once the room is created', async () => {
    const waiting = watch(NO_GATEWAY_ROOM_REVISION)
    expect(await stillWaiting(waiting)).toBe(true)
    rooms.create(pinned.realPath, events)
    const answer = await waiting
    expect(answer.neverAsks).toBe(false)
    expect(answer.revision).not.toBe(NO_GATEWAY_ROOM_REVISION)
  })

  it('answers within the change when the room enters plan mode, and again when it leaves', async () => {
    rooms.create(pinned.realPath, events)
    const asking = await watch(null)
    expect(asking.neverAsks).toBe(false)

    const toPlan = watch(asking.revision)
    expect(await stillWaiting(toPlan)).toBe(true)
    rooms.change('plan', events)
    const plan = await toPlan
    expect(plan).toMatchObject({ neverAsks: true })
    expect(plan.revision).not.toBe(asking.revision)

    const back = watch(plan.revision)
    rooms.change('ask-for-approval', events)
    expect(await back).toMatchObject({ neverAsks: false })
  })

  it('answers at once when what the gateway saw is not the state now', async () => {
    rooms.create(pinned.realPath, events)
    rooms.change('plan', events)
    // A gateway that missed the change (it was restarting, say).
    expect(await watch(NO_GATEWAY_ROOM_REVISION)).toMatchObject({ neverAsks: true })
  })

  it('keeps waiting through events of other rooms and folders, then answers the same', async () => {
    rooms.create(pinned.realPath, events)
    const now = await watch(null)
    const waiting = watch(now.revision, 200)
    events.emit('room.updated', { roomId: 'another-room' })
    events.emit('room.created', { room: { agentId: GATEWAY_AGENT_ID, workspace: '/elsewhere' } })
    events.emit('room.created', { room: { agentId: 'assistant', workspace: pinned.realPath } })
    events.emit('timeline.updated', { roomId: 'room_1' })
    expect(await stillWaiting(waiting)).toBe(true)
    expect(await waiting).toEqual(now)
  })

  it('ends the wait when the gateway goes away', async () => {
    const gone = new AbortController()
    const waiting = watch(NO_GATEWAY_ROOM_REVISION, LONG_MS, gone.signal)
    gone.abort()
    expect(await waiting).toEqual({ revision: NO_GATEWAY_ROOM_REVISION, neverAsks: false })
    // And it no longer listens: an event after it reads nothing.
    const reads = rooms.reads
    rooms.create(pinned.realPath, events)
    expect(rooms.reads).toBe(reads)
  })

  it.each(['tampered', 'rolled-back'] as const)(
    'fails closed for a room whose row is %s: it never asks, whatever it claims',
    async (integrity) => {
      rooms.create(pinned.realPath, events)
      rooms.integrity = integrity
      const answer = await watch(null)
      expect(answer.neverAsks).toBe(true)
      expect(answer.revision).toContain(integrity)
    },
  )

  it('refuses a folder that is no longer the one the gateway pinned, as its calls are', async () => {
    const moved = { ...pinned, ino: String(BigInt(pinned.ino) + 1n) }
    const refusal = await service
      .watch({ workspaceIdentity: moved, seen: null }, LONG_MS)
      .catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(Refusal)
    expect((refusal as Refusal).code).toBe('workspace_moved')
  })
})

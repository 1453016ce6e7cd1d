import { describe, expect, it } from 'vitest'
import type { PermissionMode } from '../../contracts/policy-axes.ts'
import { allowerStands, policyInForce, type Allower, type RoomNow } from './allower-stands.ts'
import { modeFromPolicy, policyForMode } from './permission-modes.ts'

const ROOM = 'room-1'
const WRITE: Allower = { by: 'policy', effect: 'write', destructive: false, privateRead: false }
const READ: Allower = { by: 'policy', effect: 'read', destructive: false, privateRead: false }
const PRIVATE_READ: Allower = {
  by: 'policy',
  effect: 'read',
  destructive: false,
  privateRead: true,
}

interface World {
  frozen: PermissionMode
  now: PermissionMode
  grantActive?: boolean
  webhook?: { id: string; setAt: number }
}

/** The room in `world`: at its mode now, its grant and webhook as given. */
function roomIn(world: World): RoomNow {
  return {
    policyOf: () => policyForMode(world.now),
    grantActive: () => world.grantActive ?? true,
    webhookOf: () => world.webhook,
  }
}

function judge(allower: Allower, world: World) {
  return allowerStands(
    allower,
    { roomId: ROOM, policy: policyForMode(world.frozen) },
    roomIn(world),
  )
}

const W1 = { id: 'w1', setAt: 10 }

/** allower × narrowing: null where the allow still stands. */
const TABLE: Array<[string, Allower, World, string | null]> = [
  ['full access × plan', WRITE, { frozen: 'full-access', now: 'plan' }, 'room_narrowed'],
  ['full access × ask', WRITE, { frozen: 'full-access', now: 'ask-for-approval' }, 'room_narrowed'],
  [
    'private read × ask',
    PRIVATE_READ,
    { frozen: 'full-access', now: 'ask-for-approval' },
    'room_narrowed',
  ],
  [
    'grant × plan',
    { by: 'grant', grantId: 'g' },
    { frozen: 'ask-for-approval', now: 'plan' },
    'room_narrowed',
  ],
  [
    'grant × revoked',
    { by: 'grant', grantId: 'g' },
    { frozen: 'ask-for-approval', now: 'ask-for-approval', grantActive: false },
    'grant_revoked',
  ],
  ['person × plan', { by: 'person' }, { frozen: 'ask-for-approval', now: 'plan' }, 'room_narrowed'],
  [
    'manifest × plan',
    { by: 'manifest' },
    { frozen: 'ask-for-approval', now: 'plan' },
    'room_narrowed',
  ],
  [
    'reviewer × ask',
    { by: 'reviewer' },
    { frozen: 'approve-for-me', now: 'ask-for-approval' },
    'room_narrowed',
  ],
  [
    'reviewer × plan',
    { by: 'reviewer' },
    { frozen: 'approve-for-me', now: 'plan' },
    'room_narrowed',
  ],
  [
    'webhook × removed',
    { by: 'webhook', webhookId: 'w1' },
    { frozen: 'ask-for-approval', now: 'ask-for-approval' },
    'webhook_removed',
  ],
  [
    'webhook × replaced',
    { by: 'webhook', webhookId: 'w1' },
    { frozen: 'ask-for-approval', now: 'ask-for-approval', webhook: { id: 'w2', setAt: 20 } },
    'webhook_removed',
  ],
  [
    'webhook decided × set after',
    { by: 'webhook', decidedAt: 15 },
    { frozen: 'ask-for-approval', now: 'ask-for-approval', webhook: { id: 'w2', setAt: 20 } },
    'webhook_removed',
  ],
  [
    'webhook × plan',
    { by: 'webhook', webhookId: 'w1' },
    { frozen: 'ask-for-approval', now: 'plan', webhook: W1 },
    'room_narrowed',
  ],
  [
    'unknown decider',
    { by: 'unknown' },
    { frozen: 'full-access', now: 'full-access' },
    'room_narrowed',
  ],
  // Controls: what still stands.
  ['read × plan (control)', READ, { frozen: 'ask-for-approval', now: 'plan' }, null],
  ['full access × widened (control)', WRITE, { frozen: 'full-access', now: 'full-access' }, null],
  [
    'grant × active (control)',
    { by: 'grant', grantId: 'g' },
    { frozen: 'ask-for-approval', now: 'ask-for-approval' },
    null,
  ],
  [
    'person × ask (control)',
    { by: 'person' },
    { frozen: 'approve-for-me', now: 'ask-for-approval' },
    null,
  ],
  [
    'reviewer × unchanged (control)',
    { by: 'reviewer' },
    { frozen: 'approve-for-me', now: 'approve-for-me' },
    null,
  ],
  [
    'webhook × same id (control)',
    { by: 'webhook', webhookId: 'w1' },
    { frozen: 'ask-for-approval', now: 'ask-for-approval', webhook: W1 },
    null,
  ],
  [
    'webhook decided × set before (control)',
    { by: 'webhook', decidedAt: 15 },
    { frozen: 'ask-for-approval', now: 'ask-for-approval', webhook: W1 },
    null,
  ],
]

describe('allowerStands: what allowed a call, judged again right before it acts', () => {
  it.each(TABLE)('%s', (_name, allower, world, code) => {
    const fallen = judge(allower, world)
    expect(fallen?.code ?? null).toBe(code)
    if (fallen) expect(fallen.message.code).toMatch(/^call\./)
  })
})

describe('policyInForce: the narrower of the frozen policy and the room now', () => {
  const modes: PermissionMode[] = ['plan', 'ask-for-approval', 'approve-for-me', 'full-access']
  it.each(modes.flatMap((frozen) => modes.map((now) => [frozen, now] as const)))(
    'frozen %s, room now %s',
    (frozen, now) => {
      const turn = { roomId: ROOM, policy: policyForMode(frozen) }
      const inForce = modeFromPolicy(policyInForce(turn, roomIn({ frozen, now })))
      // Widening never reaches a running turn; narrowing does.
      expect(inForce).toBe(modes.indexOf(now) < modes.indexOf(frozen) ? now : frozen)
    },
  )
})

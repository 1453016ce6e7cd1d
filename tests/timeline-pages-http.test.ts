import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TimelinePageSchema, type Timeline, type TimelinePage } from '../src/contracts/room.ts'
import { TIMELINE_PAGE_TURNS } from '../src/runtime/rooms/room-timeline.ts'
import { createRoom, pendingApprovalFor, send, timeline } from './support/room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

// A room's timeline in pages, from a real runtime over loopback HTTP with
// its SQLite file: the newest page, the pages before a turn and every turn
// from one on. Put together they are the whole timeline, and every page
// lists every approval still pending, whatever its turn.

let harness: RuntimeHarness
let roomId: string
let otherTurn: string
let whole: Timeline
/** Turns beyond one page. */
const EXTRA = 7

beforeAll(async () => {
  harness = await startHarness()
  const room = await createRoom(harness)
  roomId = room.id
  // The two oldest turns wait on approvals; the rest read and finish.
  await pendingApprovalFor(harness, roomId, 'write old0.txt x')
  await pendingApprovalFor(harness, roomId, 'write old1.txt x')
  for (let index = 2; index < TIMELINE_PAGE_TURNS + EXTRA; index += 1) {
    await send(harness, roomId, 'list')
  }
  whole = await eventually(async () => {
    const current = await timeline(harness, roomId)
    const settled = current.turns.filter((turn) => turn.status === 'done').length
    return settled === TIMELINE_PAGE_TURNS + EXTRA - 2 ? current : undefined
  }, 'every reading turn to finish')
  otherTurn = await send(harness, (await createRoom(harness)).id, 'list')
}, 120_000)
afterAll(async () => {
  await harness?.close()
})

function page(path: string): Promise<TimelinePage> {
  return harness.client.request(TimelinePageSchema, 'GET', `/v1/rooms/${roomId}/timeline/${path}`)
}

const turnIds = (value: Pick<Timeline, 'turns'>) => value.turns.map((turn) => turn.id)
const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((row) => row.id).sort()
const pendingIds = (value: Pick<Timeline, 'approvals'>) =>
  ids(value.approvals.filter((approval) => approval.status === 'pending'))

/** Every message, call and approval of `value` belongs to one of its turns,
 *  but for pending approvals. */
function expectOwnRows(value: TimelinePage) {
  const own = new Set(turnIds(value))
  for (const row of [...value.messages, ...value.toolCalls]) expect(own).toContain(row.turnId)
  for (const approval of value.approvals) {
    if (approval.status !== 'pending') expect(own).toContain(approval.turnId)
  }
}

describe('a room timeline in pages', () => {
  it('answers the newest page with every pending approval, and how many turns come before it', async () => {
    const recent = await page('recent')
    expect(turnIds(recent)).toEqual(turnIds(whole).slice(EXTRA))
    expect(recent.earlierTurns).toBe(EXTRA)
    expect(pendingIds(recent)).toEqual(pendingIds(whole))
    expect(pendingIds(recent)).toHaveLength(2)
    expectOwnRows(recent)
  })

  it('answers the page before a turn, and an empty page before the first', async () => {
    const recent = await page('recent')
    const earlier = await page(`before/${recent.turns[0]!.id}`)
    expect(turnIds(earlier)).toEqual(turnIds(whole).slice(0, EXTRA))
    expect(earlier.earlierTurns).toBe(0)
    expectOwnRows(earlier)
    const none = await page(`before/${whole.turns[0]!.id}`)
    expect(none).toMatchObject({ turns: [], messages: [], toolCalls: [], earlierTurns: 0 })
    expect(pendingIds(none)).toEqual(pendingIds(whole))
  })

  it('puts the pages together into the whole timeline', async () => {
    const recent = await page('recent')
    const earlier = await page(`before/${recent.turns[0]!.id}`)
    expect([...turnIds(earlier), ...turnIds(recent)]).toEqual(turnIds(whole))
    for (const rows of ['messages', 'toolCalls', 'approvals'] as const) {
      const together = new Set([...ids(earlier[rows]), ...ids(recent[rows])])
      expect([...together].sort(), rows).toEqual(ids(whole[rows]))
    }
  })

  it('answers every turn from one on, with what came before it counted', async () => {
    const from = await page(`from/${whole.turns[3]!.id}`)
    expect(turnIds(from)).toEqual(turnIds(whole).slice(3))
    expect(from.earlierTurns).toBe(3)
    expectOwnRows(from)
    expect(ids(from.toolCalls)).toEqual(
      ids(whole.toolCalls.filter((call) => turnIds(from).includes(call.turnId))),
    )
  })

  it('refuses a turn that is not one of the room’s, rather than answer an empty page', async () => {
    for (const path of [`from/${otherTurn}`, `before/${otherTurn}`, 'from/no-such-turn']) {
      const answer = await harness.client.raw('GET', `/v1/rooms/${roomId}/timeline/${path}`)
      expect(answer, path).toMatchObject({ status: 404, body: { code: 'not_found' } })
    }
    const unknownRoom = await harness.client.raw('GET', '/v1/rooms/no-such-room/timeline/recent')
    expect(unknownRoom.status).toBe(404)
  })
})

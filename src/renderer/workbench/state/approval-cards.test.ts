import { describe, expect, it } from 'vitest'
import { approvalFixture, emptyTimeline, toolCallFixture } from '../test-support/fake-gui.ts'
import {
  cardKey,
  markApprovalGone,
  markOpenCardsStale,
  mergeApproval,
  openCards,
  outcomeOf,
  reconcileApprovals,
  type Cards,
} from './approval-cards.ts'
import { timelineItems } from './timeline-items.ts'

const none: Cards = new Map()

describe('approval cards', () => {
  it('shows an approval reported by an event and by a timeline refresh once', () => {
    const event = approvalFixture()
    const refreshed = { ...approvalFixture() }
    const cards = reconcileApprovals(mergeApproval(none, event), [refreshed])
    expect(cards.size).toBe(1)
  })

  it('identifies a card by approval id and turn id together', () => {
    const cards = mergeApproval(
      mergeApproval(none, approvalFixture({ id: 'ap-1', turnId: 'turn-1' })),
      approvalFixture({ id: 'ap-1', turnId: 'turn-2' }),
    )
    expect(cards.size).toBe(2)
    expect(cardKey({ id: 'a', turnId: 'b,c' })).not.toBe(cardKey({ id: 'a,b', turnId: 'c' }))
  })

  it('never takes a decided approval back to pending (a late event changes nothing)', () => {
    const decided = approvalFixture({
      status: 'allowed',
      decision: 'allow-once',
      decidedBy: 'user',
    })
    const cards = mergeApproval(mergeApproval(none, decided), approvalFixture())
    expect([...cards.values()][0]?.approval.status).toBe('allowed')
  })

  it("keeps the reviewer's escalation reason when an older report without it arrives later", () => {
    const escalated = approvalFixture({ escalationReason: 'commands are decided by a person' })
    const cards = mergeApproval(reconcileApprovals(none, [escalated]), approvalFixture())
    expect([...cards.values()][0]?.approval.escalationReason).toBe(
      'commands are decided by a person',
    )
    const refreshed = mergeApproval(mergeApproval(none, approvalFixture()), escalated)
    expect([...refreshed.values()][0]?.approval.escalationReason).toBe(
      'commands are decided by a person',
    )
  })

  it('collects open cards in order of arrival, leaving decided ones out', () => {
    let cards = none
    cards = mergeApproval(cards, approvalFixture({ id: 'late', createdAt: 30 }))
    cards = mergeApproval(cards, approvalFixture({ id: 'early', createdAt: 10 }))
    cards = mergeApproval(cards, approvalFixture({ id: 'done', createdAt: 5, status: 'denied' }))
    cards = mergeApproval(cards, approvalFixture({ id: 'middle', createdAt: 20 }))
    expect(openCards(cards).map((card) => card.approval.id)).toEqual(['early', 'middle', 'late'])
  })

  it('marks open cards stale when the runtime goes away, and only a later answer clears it', () => {
    const open = approvalFixture({ id: 'open' })
    const decided = approvalFixture({ id: 'done', status: 'denied', decidedBy: 'user' })
    const stale = markOpenCardsStale(mergeApproval(mergeApproval(none, open), decided))
    expect(outcomeOf(stale.get(cardKey(open))!)).toBe('stale')
    expect(outcomeOf(stale.get(cardKey(decided))!)).toBe('rejected')
    expect(openCards(stale)).toEqual([])
    // An event (from before the runtime went away) does not revive it…
    expect(openCards(mergeApproval(stale, open))).toEqual([])
    // …the runtime's own answer after it came back does.
    expect(openCards(reconcileApprovals(stale, [open])).map((card) => card.approval.id)).toEqual([
      'open',
    ])
  })

  it('treats an approval expired by a runtime restart as stale, and a timeout as expired', () => {
    const restarted = approvalFixture({
      status: 'expired',
      decidedBy: 'timeout',
      reason: 'the runtime restarted; the agent is no longer waiting',
    })
    const timedOut = approvalFixture({
      status: 'expired',
      decidedBy: 'timeout',
      reason: 'not confirmed in time',
    })
    expect(outcomeOf({ approval: restarted, stale: false })).toBe('stale')
    expect(outcomeOf({ approval: timedOut, stale: false })).toBe('expired')
  })
})

describe('approvals the runtime no longer waits on', () => {
  it('marks a pending card a full timeline no longer lists as stale', () => {
    const cards = reconcileApprovals(mergeApproval(none, approvalFixture(), { seenAt: 1 }), [], 1)
    const card = [...cards.values()][0]!
    expect(outcomeOf(card)).toBe('stale')
    expect(card.gone).toBe(true)
    expect(openCards(cards)).toEqual([])
  })

  it('keeps a card an event reported after the timeline was asked for', () => {
    const cards = reconcileApprovals(mergeApproval(none, approvalFixture(), { seenAt: 2 }), [], 1)
    expect(outcomeOf([...cards.values()][0]!)).toBe('pending')
  })

  it('leaves decided cards alone when the timeline does not list them', () => {
    const decided = approvalFixture({ status: 'denied', decision: 'deny', decidedBy: 'user' })
    const cards = reconcileApprovals(mergeApproval(none, decided), [])
    expect(outcomeOf([...cards.values()][0]!)).toBe('rejected')
  })

  it('keeps a gone card stale while a refresh still lists it pending, and shows its decision once one comes', () => {
    const gone = markApprovalGone(mergeApproval(none, approvalFixture()), approvalFixture())
    const stillListed = reconcileApprovals(gone, [approvalFixture()])
    expect(outcomeOf([...stillListed.values()][0]!)).toBe('stale')
    const decided = reconcileApprovals(stillListed, [
      approvalFixture({ status: 'allowed', decision: 'allow-always', decidedBy: 'user' }),
    ])
    expect(outcomeOf([...decided.values()][0]!)).toBe('always-allowed')
  })
})

describe('timelineItems', () => {
  it('keeps decided cards with their tool call and leaves open ones to the block', () => {
    const timeline = {
      ...emptyTimeline('room-1'),
      toolCalls: [
        toolCallFixture({ id: 'c1', approvalId: 'decided', seq: 0 }),
        toolCallFixture({ id: 'c2', approvalId: 'open', seq: 1 }),
      ],
    }
    let cards = none
    cards = mergeApproval(
      cards,
      approvalFixture({ id: 'decided', status: 'allowed', decidedBy: 'user' }),
    )
    cards = mergeApproval(cards, approvalFixture({ id: 'open' }))
    const items = timelineItems(timeline, cards)
    expect(items.map((item) => item.kind)).toEqual(['tool', 'tool'])
    expect(items[0]?.kind === 'tool' && items[0].card?.approval.id).toBe('decided')
    expect(items[1]?.kind === 'tool' && items[1].card).toBeUndefined()
    expect(items[1]?.kind === 'tool' && items[1].openCardKey).toBe(
      cardKey({ id: 'open', turnId: 'turn-1' }),
    )
  })

  it('places a decided card whose tool call is not loaded yet on its own', () => {
    const cards = mergeApproval(none, approvalFixture({ status: 'denied', decidedBy: 'user' }))
    expect(timelineItems(emptyTimeline('room-1'), cards).map((item) => item.kind)).toEqual([
      'approval',
    ])
  })

  it('orders a turn as message, reply, tool calls, then notes, turn by turn', () => {
    const turn = (id: string, createdAt: number) =>
      ({
        id,
        roomId: 'room-1',
        clientRequestId: id,
        text: id,
        attempt: 1,
        retryOf: null,
        workspace: '/w',
        policy: {
          approvalPolicy: 'on-request',
          sandboxMode: 'workspace-write',
          approvalReviewer: 'user',
        },
        status: 'failed',
        createdAt,
      }) as const
    const message = (
      id: string,
      turnId: string,
      role: 'user' | 'agent' | 'system',
      at: number,
    ) => ({
      id,
      roomId: 'room-1',
      turnId,
      role,
      text: id,
      createdAt: at,
    })
    const timeline = {
      ...emptyTimeline('room-1'),
      turns: [turn('t2', 20), turn('t1', 10)],
      messages: [
        message('t2-user', 't2', 'user', 20),
        message('t1-note', 't1', 'system', 12),
        message('t1-agent', 't1', 'agent', 10),
        message('t1-user', 't1', 'user', 10),
      ],
      toolCalls: [
        toolCallFixture({ id: 't1-call', turnId: 't1', approvalId: null, createdAt: 10 }),
      ],
    }
    expect(timelineItems(timeline, none).map((item) => item.key)).toEqual([
      'message:t1-user',
      'message:t1-agent',
      'tool:t1-call',
      'message:t1-note',
      'turn-end:t1',
      'message:t2-user',
      'turn-end:t2',
    ])
  })
})

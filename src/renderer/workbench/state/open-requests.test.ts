import { describe, expect, it } from 'vitest'
import { approvalFixture, questionRequestFixture } from '../test-support/fake-gui.ts'
import { expandedRequest, openRequests } from './open-requests.ts'
import { formatTimeLeft } from './use-time-left.ts'

const approval = (id: string, createdAt: number) => ({
  approval: approvalFixture({ id, createdAt }),
  stale: false,
})
const question = (id: string, createdAt: number) => ({
  request: questionRequestFixture({ id, createdAt }),
  stale: false,
})

describe('openRequests', () => {
  it('orders approvals, questions, forms and a waiting mode change by arrival, whatever their kind', () => {
    const requests = openRequests(
      [approval('ap-2', 4_000), approval('ap-1', 1_000)],
      [question('in-1', 2_000)],
      { request: { status: 'waiting', from: 'ask-for-approval', to: 'full-access' }, at: 3_000 },
    )
    expect(requests.map((request) => request.key)).toEqual([
      'approval:["ap-1","turn-1"]',
      'input:turn-1:in-1',
      'mode',
      'approval:["ap-2","turn-1"]',
    ])
  })

  it('leaves out a mode change whose window has closed: the timeline has it', () => {
    const requests = openRequests([], [], {
      request: { status: 'cancelled', from: 'ask-for-approval', to: 'full-access' },
      at: 1,
    })
    expect(requests).toEqual([])
  })
})

describe('expandedRequest', () => {
  const requests = openRequests([approval('ap-1', 1), approval('ap-2', 2)], [])
  const [first, second] = requests.map((request) => request.key)

  it('shows the oldest by default, the chosen one while it is open, none when folded', () => {
    expect(expandedRequest(requests, undefined)).toBe(first)
    expect(expandedRequest(requests, second)).toBe(second)
    expect(expandedRequest(requests, null)).toBeUndefined()
  })

  it('goes back to the oldest when the chosen one has left the block', () => {
    expect(expandedRequest(requests, 'approval:["ap-9","turn-1"]')).toBe(first)
    expect(expandedRequest([], undefined)).toBeUndefined()
  })
})

describe('formatTimeLeft', () => {
  it('shows minutes and padded seconds, hours when it must, rounding up', () => {
    expect(formatTimeLeft(272_000)).toBe('4:32')
    expect(formatTimeLeft(59_001)).toBe('1:00')
    expect(formatTimeLeft(0)).toBe('0:00')
    expect(formatTimeLeft(-5)).toBe('0:00')
    expect(formatTimeLeft(3_600_000 + 62_000)).toBe('1:01:02')
  })
})

import { describe, expect, it } from 'vitest'
import { proposedCall } from './proposed-call.ts'

describe('proposedCall', () => {
  it('records the call in its turn, awaiting approval, with no result and no approval yet', () => {
    const call = proposedCall({
      id: 'call-1',
      turn: { id: 'turn-1', roomId: 'room-1' },
      seq: 3,
      toolName: 'write_file',
      args: { path: 'a.txt', content: 'x' },
      at: 1_234,
    })
    expect(call).toEqual({
      id: 'call-1',
      roomId: 'room-1',
      turnId: 'turn-1',
      seq: 3,
      toolName: 'write_file',
      arguments: { path: 'a.txt', content: 'x' },
      status: 'awaiting-approval',
      result: null,
      approvalId: null,
      createdAt: 1_234,
      updatedAt: 1_234,
    })
  })
})

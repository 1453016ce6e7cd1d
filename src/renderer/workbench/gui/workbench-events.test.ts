import { describe, expect, it } from 'vitest'
import { approvalFixture } from '../test-support/fake-gui.ts'
import { readWorkbenchEvent } from './workbench-events.ts'

describe('readWorkbenchEvent', () => {
  it('reads the events the runtime and main send', () => {
    const approval = approvalFixture()
    expect(readWorkbenchEvent({ type: 'approval.requested', data: { approval } })).toEqual({
      type: 'approval.requested',
      approval,
    })
    expect(readWorkbenchEvent({ type: 'timeline.updated', data: { roomId: 'r' } })).toEqual({
      type: 'timeline.updated',
      roomId: 'r',
    })
    expect(
      readWorkbenchEvent({ type: 'runtime.status', data: { state: 'down', reason: 'x' } }),
    ).toEqual({
      type: 'runtime.status',
      state: 'down',
    })
    expect(
      readWorkbenchEvent({ type: 'runtime.status', data: { state: 'up', keyFile: true } }),
    ).toEqual({ type: 'runtime.status', state: 'up', keyFile: true })
    expect(
      readWorkbenchEvent({ type: 'runtime.status', data: { state: 'up', keyFile: 'yes' } }),
    ).toEqual({ type: 'runtime.status', state: 'up' })
    expect(readWorkbenchEvent({ type: 'runtime.reset', data: {} })).toEqual({
      type: 'runtime.reset',
    })
    expect(
      readWorkbenchEvent({
        type: 'runtime.integrity',
        data: { table: 'grants', rowId: 'g', roomId: 'r', problem: 'mac_missing' },
      }),
    ).toEqual({
      type: 'runtime.integrity',
      report: { table: 'grants', rowId: 'g', roomId: 'r', problem: 'mac_missing' },
    })
    expect(readWorkbenchEvent({ type: 'approval.focus', data: { approvalId: 'a' } })).toEqual({
      type: 'approval.focus',
      approvalId: 'a',
    })
    expect(
      readWorkbenchEvent({ type: 'approval.focus', data: { approvalId: 'a', roomId: 'r' } }),
    ).toEqual({ type: 'approval.focus', approvalId: 'a', roomId: 'r' })
  })

  it('drops malformed and unknown events', () => {
    const approval = approvalFixture()
    for (const event of [
      { type: 'approval.requested', data: null },
      { type: 'approval.requested', data: { approval: { ...approval, status: 'maybe' } } },
      { type: 'approval.resolved', data: { approval: { ...approval, kind: 'format-disk' } } },
      { type: 'approval.resolved', data: { approval: { ...approval, id: 7 } } },
      { type: 'room.updated', data: { roomId: 1 } },
      { type: 'runtime.status', data: { state: 'sideways' } },
      { type: 'runtime.integrity', data: {} },
      { type: 'toString', data: {} },
    ]) {
      expect(readWorkbenchEvent(event)).toBeUndefined()
    }
  })
})

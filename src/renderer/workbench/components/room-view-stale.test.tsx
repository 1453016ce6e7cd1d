// @vitest-environment happy-dom
import { act, screen, waitFor, within, cleanup } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { approvalFixture, deferred, emptyTimeline, roomFixture } from '../test-support/fake-gui.ts'
import { withPending, setupRoomView } from '../test-support/room-view-setup.tsx'
import { renderWithI18n } from '../test-support/render.tsx'

afterEach(cleanup)

describe('RoomView: stale cards', () => {
  it('mutes an open card without buttons when the runtime goes down, and keeps it so after a restart', async () => {
    const { gui } = setupRoomView(roomFixture(), withPending())
    await screen.findByTestId('approval-review')
    act(() => gui.emit('runtime.status', { state: 'down', reason: 'exited' }))
    const card = screen.getByTestId('approval-card')
    expect(card.dataset.outcome).toBe('stale')
    expect(within(card).queryByRole('button')).toBeNull()
    expect(card.textContent).toContain('The agent is no longer waiting for this')
    expect(screen.queryByTestId('open-requests')).toBeNull()
    expect(screen.getByTestId('status-line').textContent).toBe(
      'The runtime is not running. Reconnecting…',
    )

    gui.timelines.set('room-1', {
      ...withPending(),
      approvals: [
        approvalFixture({
          status: 'expired',
          decidedBy: 'timeout',
          reason: 'the runtime restarted; the agent is no longer waiting',
        }),
      ],
    })
    act(() => gui.emit('runtime.status', { state: 'up' }))
    await waitFor(() => expect(gui.callsOf('timeline')).toHaveLength(2))
    await waitFor(() => expect(screen.getByTestId('status-line').textContent).toBe('Ready'))
    expect(screen.getByTestId('approval-card').dataset.outcome).toBe('stale')
    expect(screen.queryByTestId('approval-review')).toBeNull()
  })

  it('mutes open cards on runtime.reset until the runtime says the agent still waits', async () => {
    const { gui } = setupRoomView(roomFixture(), withPending())
    await screen.findByTestId('approval-review')
    const held = deferred<void>()
    gui.timelineGate = held.promise
    act(() => gui.emit('runtime.reset', {}))
    expect(screen.getByTestId('approval-card').dataset.outcome).toBe('stale')
    await act(async () => held.resolve())
    await waitFor(() => expect(screen.getByTestId('approval-card').dataset.outcome).toBe('pending'))
    expect(screen.getByTestId('approval-review')).not.toBeNull()
  })

  it('drops a timeline answer asked for before the runtime went down', async () => {
    const { gui } = setupRoomView(roomFixture(), withPending())
    await screen.findByTestId('approval-review')
    const held = deferred<void>()
    gui.timelineGate = held.promise
    act(() => gui.emit('timeline.updated', { roomId: 'room-1' }))
    act(() => gui.emit('runtime.status', { state: 'down' }))
    // The dropped answer is handled in promise reactions only; a timer turn
    // comes after all of them, and act() then flushes whatever React was
    // given. An order of events, not a length of time.
    await act(async () => {
      held.resolve()
      await new Promise((resolve) => setTimeout(resolve, 0))
    })
    expect(screen.getByTestId('approval-card').dataset.outcome).toBe('stale')
  })

  it('mutes an open card that a refreshed timeline no longer lists', async () => {
    const { gui } = setupRoomView(roomFixture(), withPending())
    await screen.findByTestId('approval-review')
    gui.timelines.set('room-1', { ...withPending(), approvals: [] })
    act(() => gui.emit('timeline.updated', { roomId: 'room-1' }))
    await waitFor(() => expect(screen.getByTestId('approval-card').dataset.outcome).toBe('stale'))
    expect(screen.queryByTestId('approval-review')).toBeNull()
    expect(screen.getByTestId('approval-note').textContent).toContain(
      'The agent is no longer waiting for this',
    )
  })

  it('keeps a card an event reported after the timeline was asked for', async () => {
    const { gui } = setupRoomView()
    await waitFor(() => expect(gui.callsOf('timeline')).toHaveLength(1))
    const held = deferred<void>()
    gui.timelineGate = held.promise
    act(() => gui.emit('timeline.updated', { roomId: 'room-1' }))
    await waitFor(() => expect(gui.callsOf('timeline')).toHaveLength(2))
    act(() => gui.emit('approval.requested', { approval: approvalFixture() }))
    // The answer was made before the approval existed: it lists a message, not it.
    gui.timelines.set('room-1', {
      ...emptyTimeline('room-1'),
      messages: [
        { id: 'm1', roomId: 'room-1', turnId: 'turn-1', role: 'user', text: 'hi', createdAt: 1 },
      ],
    })
    await act(async () => held.resolve())
    await screen.findByText('hi')
    expect(screen.getByTestId('approval-card').dataset.outcome).toBe('pending')
    expect(screen.getByTestId('approval-review')).not.toBeNull()
  })

  it('reconciles cards with the runtime when the room is opened again', async () => {
    const { gui, rendered, view } = setupRoomView(roomFixture(), withPending())
    await screen.findByTestId('approval-review')
    rendered.unmount()
    gui.timelines.set('room-1', {
      ...withPending(),
      approvals: [approvalFixture({ status: 'denied', decision: 'deny', decidedBy: 'user' })],
    })
    renderWithI18n(view())
    const outcome = await screen.findByTestId('approval-outcome')
    expect(outcome.textContent).toBe('Rejected')
    expect(gui.callsOf('timeline')).toHaveLength(2)
  })
})

// @vitest-environment happy-dom
import { act, fireEvent, screen, waitFor, cleanup } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { englishWordsIn } from '../../../common/i18n/latin-words.ts'
import { workbenchError } from '../../../common/workbench-error.ts'
import type { Timeline } from '../../../contracts/room.ts'
import {
  approvalFixture,
  deferred,
  emptyTimeline,
  mainRejection,
  roomFixture,
  toolCallFixture,
} from '../test-support/fake-gui.ts'
import { cardsIn, withPending, setupRoomView } from '../test-support/room-view-setup.tsx'

afterEach(cleanup)

describe('RoomView: open and decided cards', () => {
  it('collects open cards in one block above the composer, in order of arrival', async () => {
    const timeline: Timeline = {
      ...emptyTimeline('room-1'),
      toolCalls: [
        toolCallFixture({ id: 'c0', approvalId: 'ap-0', seq: 0, status: 'succeeded' }),
        toolCallFixture({ id: 'c1', approvalId: 'ap-1', seq: 1 }),
        toolCallFixture({ id: 'c2', approvalId: 'ap-2', seq: 2, toolName: 'run_command' }),
      ],
      approvals: [
        approvalFixture({
          id: 'ap-2',
          createdAt: 3_000,
          toolName: 'run_command',
          kind: 'run-command',
        }),
        approvalFixture({
          id: 'ap-0',
          createdAt: 1_000,
          status: 'allowed',
          decision: 'allow-once',
          decidedBy: 'user',
        }),
        approvalFixture({ id: 'ap-1', createdAt: 2_000 }),
      ],
    }
    setupRoomView(roomFixture(), timeline)
    await waitFor(() => expect(cardsIn('open-requests')).toEqual(['ap-1', 'ap-2']))
    expect(cardsIn('timeline')).toEqual(['ap-0'])
    const pending = screen.getByTestId('open-requests')
    const order = (a: Element, b: Element) =>
      Boolean(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING)
    expect(order(screen.getByTestId('timeline'), pending)).toBe(true)
    expect(order(pending, screen.getByTestId('composer'))).toBe(true)
    // Said once, by the block: the status line says it to assistive
    // technology only, and the tool call in the timeline points at its card.
    const status = screen.getByTestId('status-line')
    expect(status.textContent).toBe('Waiting for confirmation: write_file, run_command')
    expect(status.querySelector('code')?.textContent).toBe('write_file, run_command')
    expect(status.className).toContain('visually-hidden')
    const waiting = screen
      .getByTestId('timeline')
      .querySelectorAll('[data-testid="timeline-tool"][data-status="awaiting-approval"]')
    expect(waiting).toHaveLength(2)
    for (const call of waiting) {
      expect(call.querySelector('.tool__status')).toBeNull()
      expect(call.textContent).not.toMatch(/waiting/i)
      expect(call.querySelector('[data-testid="tool-open-card"]')).not.toBeNull()
    }
    // The oldest shows its details; the other is one line with its buttons.
    const cards = pending.querySelectorAll<HTMLElement>('[data-testid="approval-card"]')
    expect([...cards].map((card) => card.dataset.expanded)).toEqual(['true', 'false'])
  })

  it('shows the details of the card the person picks, and of none when they fold it', async () => {
    setupRoomView(roomFixture(), {
      ...withPending(),
      toolCalls: [toolCallFixture(), toolCallFixture({ id: 'c2', approvalId: 'ap-2', seq: 1 })],
      approvals: [approvalFixture(), approvalFixture({ id: 'ap-2', createdAt: 2_000 })],
    })
    await waitFor(() => expect(cardsIn('open-requests')).toEqual(['ap-1', 'ap-2']))
    const expanded = () =>
      [...document.querySelectorAll<HTMLElement>('[data-testid="approval-card"]')].map(
        (card) => card.dataset.expanded,
      )
    const toggles = () => screen.getAllByTestId('request-toggle')
    fireEvent.click(toggles()[1]!)
    expect(expanded()).toEqual(['false', 'true'])
    fireEvent.click(toggles()[1]!)
    expect(expanded()).toEqual(['false', 'false'])
    fireEvent.click(toggles()[0]!)
    expect(expanded()).toEqual(['true', 'false'])
  })

  it('expands and focuses an open card from its tool call in the timeline', async () => {
    setupRoomView(roomFixture(), {
      ...withPending(),
      toolCalls: [toolCallFixture(), toolCallFixture({ id: 'c2', approvalId: 'ap-2', seq: 1 })],
      approvals: [approvalFixture(), approvalFixture({ id: 'ap-2', createdAt: 2_000 })],
    })
    await waitFor(() => expect(screen.getAllByText('Show the card')).toHaveLength(2))
    fireEvent.click(screen.getAllByText('Show the card')[1]!)
    await waitFor(() =>
      expect(
        document.activeElement?.closest<HTMLElement>('[data-testid="approval-card"]')?.dataset,
      ).toMatchObject({ approvalId: 'ap-2', expanded: 'true' }),
    )
  })

  it('shows an approval that arrives as an event and again in the timeline once', async () => {
    const { gui } = setupRoomView()
    await waitFor(() => expect(gui.callsOf('timeline')).toHaveLength(1))
    act(() => {
      gui.emit('approval.requested', { approval: approvalFixture() })
      gui.emit('approval.requested', { approval: approvalFixture() })
    })
    expect(document.querySelectorAll('[data-approval-id="ap-1"]')).toHaveLength(1)
    gui.timelines.set('room-1', withPending())
    act(() => gui.emit('timeline.updated', { roomId: 'room-1' }))
    await waitFor(() => expect(screen.queryByTestId('approval-arguments')).not.toBeNull())
    expect(document.querySelectorAll('[data-approval-id="ap-1"]')).toHaveLength(1)
    // The same approval id in another turn is another card.
    act(() => gui.emit('approval.requested', { approval: approvalFixture({ turnId: 'turn-2' }) }))
    expect(document.querySelectorAll('[data-approval-id="ap-1"]')).toHaveLength(2)
  })

  it('ignores approvals of other rooms and malformed events', async () => {
    const { gui } = setupRoomView()
    await waitFor(() => expect(gui.callsOf('timeline')).toHaveLength(1))
    act(() => {
      gui.emit('approval.requested', { approval: approvalFixture({ roomId: 'room-2' }) })
      gui.emit('approval.requested', { approval: { id: 'ap-9' } })
      gui.emit('approval.requested', null)
    })
    expect(screen.queryByTestId('approval-card')).toBeNull()
  })

  it('opens the same review from both buttons, then shows the outcome in the timeline', async () => {
    const { gui } = setupRoomView(roomFixture(), withPending())
    await screen.findByTestId('approval-review')
    fireEvent.click(screen.getByTestId('approval-deny'))
    await waitFor(() => expect(gui.callsOf('reviewApproval')).toEqual([['ap-1']]))
    const { arguments: _a, ...summary } = { ...approvalFixture(), arguments: {} }
    gui.review = async () => ({
      status: 'decided',
      decision: 'allow-once',
      approval: {
        ...summary,
        toolCallId: 'call-1',
        arguments: { path: 'notes.txt', content: 'hello' },
        sandboxMode: 'workspace-write',
        status: 'allowed',
        decision: 'allow-once',
        decidedBy: 'user',
        decidedAt: 5_000,
      },
    })
    fireEvent.click(screen.getByTestId('approval-review'))
    const outcome = await screen.findByTestId('approval-outcome')
    expect(outcome.textContent).toBe('Approved')
    expect(gui.callsOf('reviewApproval')).toEqual([['ap-1'], ['ap-1']])
    expect(screen.queryByTestId('open-requests')).toBeNull()
    expect(cardsIn('timeline')).toEqual(['ap-1'])
    expect(screen.getByTestId('status-line').textContent).toBe('Ready')
  })

  it('shows why a review did not open in the page language, and keeps the card open', async () => {
    const { gui } = setupRoomView(roomFixture(), withPending(), 'zh-CN')
    gui.review = async () => {
      throw new Error("Error invoking remote method 'assent:workbench:review': Error: disk on fire")
    }
    fireEvent.click(await screen.findByTestId('approval-review'))
    expect((await screen.findByRole('alert')).textContent).toBe(
      '受保护窗口未打开：未知错误（详情：disk on fire）',
    )
    expect(screen.getByTestId('approval-card').dataset.outcome).toBe('pending')
    gui.review = async () => ({
      status: 'closed',
      reason: workbenchError('runtime_restarted', 'the runtime restarted'),
    })
    fireEvent.click(screen.getByTestId('approval-review'))
    await waitFor(() =>
      expect(screen.getByRole('alert').textContent).toBe('受保护窗口已关闭：运行时已重启'),
    )
  })

  it('shows the decision when the review finds the approval no longer pending', async () => {
    const { gui } = setupRoomView(roomFixture(), withPending())
    const refreshed = deferred<void>()
    gui.review = async () => {
      gui.timelineGate = refreshed.promise
      throw mainRejection('approval_decided', 'approval ap-1 is no longer pending (allowed)')
    }
    fireEvent.click(await screen.findByTestId('approval-review'))
    // At once: muted, no buttons, no error to act on.
    await waitFor(() => expect(screen.getByTestId('approval-card').dataset.outcome).toBe('stale'))
    expect(screen.queryByTestId('approval-review')).toBeNull()
    expect(screen.queryByRole('alert')).toBeNull()
    expect(screen.getByTestId('approval-note').textContent).toBe(
      'The agent is no longer waiting for this: the runtime no longer has it pending.',
    )
    gui.timelines.set('room-1', {
      ...withPending(),
      approvals: [
        approvalFixture({ status: 'allowed', decision: 'allow-once', decidedBy: 'user' }),
      ],
    })
    await act(async () => refreshed.resolve())
    await waitFor(() => expect(screen.getByTestId('approval-outcome').textContent).toBe('Approved'))
    expect(screen.queryByTestId('open-requests')).toBeNull()
  })

  it('keeps a card stale when the runtime says the approval is gone and the refresh still lists it pending', async () => {
    const { gui } = setupRoomView(roomFixture(), withPending())
    gui.review = async () => ({
      status: 'failed',
      error: workbenchError('unknown_approval', 'unknown approval'),
    })
    fireEvent.click(await screen.findByTestId('approval-review'))
    await waitFor(() => expect(gui.callsOf('timeline')).toHaveLength(2))
    await waitFor(() => expect(screen.getByTestId('approval-card').dataset.outcome).toBe('stale'))
    expect(screen.queryByTestId('approval-review')).toBeNull()
    expect(screen.getByTestId('status-line').textContent).toBe('Ready')
  })
})

describe('RoomView: composer and picker', () => {
  it('sends on Enter and never reviews or approves from the keyboard', async () => {
    const { gui } = setupRoomView(roomFixture(), withPending())
    await screen.findByTestId('approval-review')
    const input = screen.getByTestId('composer-input')
    fireEvent.change(input, { target: { value: 'list' } })
    fireEvent.keyDown(input, { key: 'Enter', shiftKey: true })
    expect(gui.callsOf('sendMessage')).toEqual([])
    fireEvent.keyDown(input, { key: 'Enter' })
    await waitFor(() =>
      expect(gui.callsOf('sendMessage')).toEqual([
        ['room-1', { clientRequestId: 'request-1', text: 'list' }],
      ]),
    )
    fireEvent.keyDown(screen.getByTestId('approval-card'), { key: 'Enter' })
    expect(gui.callsOf('reviewApproval')).toEqual([])
    expect(gui.callsOf('requestModeChange')).toEqual([])
  })

  it('resends a failed message with the same clientRequestId', async () => {
    const { gui } = setupRoomView()
    gui.sendAnswer = { status: 503, body: { error: 'runtime unavailable', code: 'down' } }
    const input = await screen.findByTestId('composer-input')
    fireEvent.change(input, { target: { value: 'list' } })
    fireEvent.keyDown(input, { key: 'Enter' })
    expect((await screen.findByTestId('composer-error')).textContent).toBe(
      'Not sent: the runtime is not running',
    )
    expect((input as HTMLTextAreaElement).value).toBe('list')
    gui.sendAnswer = { status: 202, body: { turn: {} } }
    fireEvent.click(screen.getByTestId('composer-send'))
    await waitFor(() => expect((input as HTMLTextAreaElement).value).toBe(''))
    expect(
      gui
        .callsOf('sendMessage')
        .map((call) => (call[1] as { clientRequestId: string }).clientRequestId),
    ).toEqual(['request-1', 'request-1'])
  })

  it('words a runtime refusal in Chinese, leaving out its English detail', async () => {
    const { gui } = setupRoomView(roomFixture(), emptyTimeline('room-1'), 'zh-CN')
    gui.sendAnswer = {
      status: 409,
      body: {
        error:
          "this room's agent or workspace was changed outside Assent and cannot be confirmed; create a new room",
        code: 'room_tampered',
      },
    }
    const input = await screen.findByTestId('composer-input')
    fireEvent.change(input, { target: { value: 'list' } })
    fireEvent.keyDown(input, { key: 'Enter' })
    const shown = (await screen.findByTestId('composer-error')).textContent ?? ''
    expect(shown).toMatch(/^未发送：.*房间/)
    expect(englishWordsIn(shown)).toEqual([])
  })

  it('hides the permission picker in group rooms and never asks for their permissions', async () => {
    const { gui } = setupRoomView(roomFixture({ kind: 'group' }))
    await screen.findByTestId('composer-input')
    await waitFor(() => expect(gui.callsOf('timeline')).toHaveLength(1))
    expect(screen.queryByTestId('mode-picker')).toBeNull()
    expect(gui.callsOf('permissions')).toEqual([])
  })

  it('shows the permission picker in direct rooms with the runtime mode', async () => {
    setupRoomView()
    const picker = await screen.findByTestId('mode-picker')
    await waitFor(() => expect(picker.dataset.mode).toBe('ask-for-approval'))
  })

  it('lists and revokes the room grants', async () => {
    const { gui } = setupRoomView()
    gui.grantsOf.set('room-1', [
      {
        id: 'g1',
        roomId: 'room-1',
        toolName: 'run_command',
        command: ['npm', 'test'],
        approvalId: 'ap-0',
        createdAt: 1,
      },
    ])
    act(() => gui.emit('grant.changed', { roomId: 'room-1' }))
    const revoke = await screen.findByTestId('grant-revoke')
    expect(screen.getByTestId('grants-panel').textContent).toContain('npm test')
    expect(revoke.getAttribute('aria-label')).toBe('Revoke "always allow" for npm test')
    gui.grantsOf.set('room-1', [])
    fireEvent.click(revoke)
    await waitFor(() => expect(gui.callsOf('revokeGrant')).toEqual([['room-1', 'g1']]))
    await waitFor(() => expect(screen.queryByTestId('grant-revoke')).toBeNull())
    expect(screen.getByTestId('grants-panel').textContent).toContain(
      'Nothing is always allowed in this room.',
    )
  })

  it('names the server of an MCP grant', async () => {
    const { gui } = setupRoomView()
    gui.grantsOf.set('room-1', [
      {
        id: 'g2',
        roomId: 'room-1',
        toolName: 'write_note',
        command: null,
        mcp: { serverId: 'notes', definitionHash: 'c'.repeat(64) },
        approvalId: 'ap-0',
        createdAt: 1,
      },
    ])
    act(() => gui.emit('grant.changed', { roomId: 'room-1' }))
    const revoke = await screen.findByTestId('grant-revoke')
    expect(screen.getByTestId('grants-panel').textContent).toContain('notes: write_note')
    expect(revoke.getAttribute('aria-label')).toBe('Revoke "always allow" for notes: write_note')
    const revokeServer = screen.getByTestId('grant-revoke-server')
    expect(revokeServer.textContent).toBe('Revoke all for notes')
    fireEvent.click(revokeServer)
    await waitFor(() => expect(gui.callsOf('revokeServerGrants')).toEqual([['room-1', 'notes']]))
  })
})

// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { Language } from '../../../common/consent-view.ts'
import { workbenchError } from '../../../common/workbench-error.ts'
import { workbenchApi } from '../gui/workbench-api.ts'
import {
  FakeGui,
  approvalFixture,
  deferred,
  emptyTimeline,
  mainRejection,
  permissionsFixture,
  roomFixture,
  toolCallFixture,
} from '../test-support/fake-gui.ts'
import { renderWithI18n } from '../test-support/render.tsx'
import { RoomView } from './room-view.tsx'

afterEach(cleanup)

/** A room whose picker asks for `to`; the protected window's answer is held
 *  until the test gives it, unless `reply` answers at once. The room has one
 *  open approval unless `withApproval` is false. */
async function requestMode(
  to: string,
  lang: Language = 'en',
  reply?: () => Promise<unknown>,
  withApproval = true,
) {
  const gui = new FakeGui()
  gui.timelines.set('room-1', {
    ...emptyTimeline('room-1'),
    toolCalls: withApproval ? [toolCallFixture()] : [],
    approvals: withApproval ? [approvalFixture()] : [],
  })
  gui.permissionsOf.set('room-1', permissionsFixture())
  const answer = deferred<unknown>()
  gui.modeChange = reply ?? (() => answer.promise)
  renderWithI18n(
    <RoomView api={workbenchApi(gui)} gui={gui} room={roomFixture()} newId={() => 'id'} />,
    lang,
  )
  const toggle = await screen.findByTestId('mode-picker')
  await waitFor(() => expect(toggle.dataset.mode).toBe('ask-for-approval'))
  fireEvent.click(toggle)
  fireEvent.click(screen.getByTestId(`mode-option-${to}`))
  const card = await screen.findByTestId('mode-request-card')
  return { gui, toggle, card, answer }
}

describe('the permissions request card', () => {
  it('waits in the open block above the composer while the protected window is open, with no deciding button', async () => {
    const { gui, card, toggle } = await requestMode('full-access')
    expect(gui.callsOf('requestModeChange')).toEqual([['room-1', 'full-access']])
    expect(card.dataset.status).toBe('waiting')
    expect(within(card).getByRole('heading').textContent).toBe(
      'Permissions request Ask for approval → Full access',
    )
    expect(within(card).getByTestId('mode-request-change').textContent).toBe(
      'Ask for approval → Full access',
    )
    expect(card.textContent).toContain('Waiting for confirmation in the protected window')
    // Its one button shows or hides its note; nothing on it decides.
    expect(
      within(card)
        .getAllByRole('button')
        .map((button) => button.dataset.testid),
    ).toEqual(['request-toggle'])
    // With the open approval card, in the same block, before the composer,
    // in order of arrival: the approval first.
    const block = screen.getByTestId('open-requests')
    expect(
      [...block.querySelectorAll('.requests__item > article')].map(
        (item) => (item as HTMLElement).dataset.testid,
      ),
    ).toEqual(['approval-card', 'mode-request-card'])
    expect(
      block.compareDocumentPosition(screen.getByTestId('composer')) &
        Node.DOCUMENT_POSITION_FOLLOWING,
    ).toBeTruthy()
    // The picker still shows the runtime's mode, not the one asked for.
    expect(toggle.dataset.mode).toBe('ask-for-approval')
  })

  it('shows Approved once the window changed the mode, and the picker follows the runtime', async () => {
    const { gui, toggle, answer } = await requestMode('approve-for-me')
    gui.permissionsOf.set('room-1', permissionsFixture({ mode: 'approve-for-me', revision: 1 }))
    await act(async () =>
      answer.resolve({ status: 'changed', permissions: gui.permissionsOf.get('room-1') }),
    )
    const outcome = await screen.findByTestId('mode-request-outcome')
    expect(outcome.textContent).toBe('Approved')
    expect(outcome.dataset.outcome).toBe('changed')
    expect(screen.getByTestId('mode-request-card').textContent).toContain(
      'The room now runs as Approve for me.',
    )
    await waitFor(() => expect(toggle.dataset.mode).toBe('approve-for-me'))
  })

  it('leaves the open block for the timeline the moment its window closed, saying how', async () => {
    const { answer } = await requestMode('approve-for-me')
    await act(async () => answer.resolve({ status: 'cancelled' }))
    const outcome = await screen.findByTestId('mode-request-outcome')
    expect(outcome.textContent).toBe('Cancelled')
    const card = screen.getByTestId('mode-request-card')
    expect(card.className).toContain('card--mode-cancelled')
    expect(within(card).queryByRole('alert')).toBeNull()
    expect(card.textContent).toContain('Nothing changed: the room still runs as Ask for approval.')
    expect(card.closest('[data-testid="timeline"]')).not.toBeNull()
    expect(
      within(screen.getByTestId('open-requests')).queryByTestId('mode-request-card'),
    ).toBeNull()
    expect(within(card).queryByRole('button')).toBeNull()
  })

  it('takes the open block away once the only request in it has closed', async () => {
    const { answer } = await requestMode('approve-for-me', 'en', undefined, false)
    const block = screen.getByTestId('open-requests')
    expect(within(block).getByTestId('open-requests-heading').textContent).toBe('Open requests (1)')
    expect(screen.getByRole('region', { name: 'Open requests (1)' })).toBe(block)
    await act(async () => answer.resolve({ status: 'cancelled' }))
    await screen.findByTestId('mode-request-outcome')
    expect(screen.queryByTestId('open-requests')).toBeNull()
  })

  it('counts the open requests in the heading in Chinese with the zh-CN catalog', async () => {
    await requestMode('approve-for-me', 'zh-CN')
    expect(screen.getByRole('region', { name: '待处理的请求（2）' })).toBe(
      screen.getByTestId('open-requests'),
    )
  })

  it('shows the failure and its reason in the page language', async () => {
    const { answer } = await requestMode('approve-for-me', 'zh-CN')
    await act(async () =>
      answer.resolve({
        status: 'closed',
        reason: workbenchError('runtime_restarted', 'the runtime restarted'),
      }),
    )
    const outcome = await screen.findByTestId('mode-request-outcome')
    expect(outcome.textContent).toBe('失败')
    expect(outcome.dataset.outcome).toBe('failed')
    expect(within(screen.getByTestId('mode-request-card')).getByRole('alert').textContent).toBe(
      '模式未更改：运行时已重启',
    )
  })

  it('shows a failure main threw as failed, never as changed', async () => {
    await requestMode('approve-for-me', 'en', async () => {
      throw mainRejection('invalid_arguments', 'requestModeChange takes (roomId, mode)')
    })
    const outcome = await screen.findByTestId('mode-request-outcome')
    expect(outcome.dataset.outcome).toBe('failed')
    expect(screen.getByRole('alert').textContent).toBe(
      'The mode did not change: Assent refused a request with values it does not take',
    )
  })
})

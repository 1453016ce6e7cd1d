// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { RoomPermissions } from '../../../contracts/room.ts'
import { WorkbenchCallError, workbenchApi } from '../gui/workbench-api.ts'
import {
  FakeGui,
  deferred,
  emptyTimeline,
  permissionsFixture,
  roomFixture,
} from '../test-support/fake-gui.ts'
import { renderWithI18n } from '../test-support/render.tsx'
import { PermissionPicker } from './permission-picker.tsx'
import { RoomView } from './room-view.tsx'

afterEach(cleanup)

function renderPicker(permissions: RoomPermissions | undefined, onChoose = vi.fn(async () => {})) {
  renderWithI18n(<PermissionPicker permissions={permissions} onChoose={onChoose} />)
  return { onChoose, toggle: screen.getByTestId('mode-picker') }
}

describe('PermissionPicker', () => {
  it('shows the mode the runtime reports, with the four modes and their explanations', () => {
    const { toggle } = renderPicker(permissionsFixture({ mode: 'approve-for-me' }))
    expect(toggle.dataset.mode).toBe('approve-for-me')
    expect(toggle.textContent).toBe('Permissions: Approve for me')
    fireEvent.click(toggle)
    expect(toggle.getAttribute('aria-expanded')).toBe('true')
    const options = ['plan', 'ask-for-approval', 'approve-for-me', 'full-access'].map((mode) =>
      screen.getByTestId(`mode-option-${mode}`),
    )
    expect(options.map((option) => option.getAttribute('aria-pressed'))).toEqual([
      'false',
      'false',
      'true',
      'false',
    ])
    expect(options.map((option) => option.textContent)).toEqual([
      'PlanRead and plan only: nothing that would ask is offered, nothing is written, questions wait for me',
      'Ask for approvalAsk me before writes and commands',
      'Approve for meAn automatic reviewer decides; risky actions still come to me',
      'Full accessRun anything the agent can reach without asking' +
        'You give up being asked: the agent may write and delete anywhere your account can, run any command and reach the network.',
    ])
  })

  it('sets full access apart from the safe modes: a warning style and what the person gives up', () => {
    const { toggle } = renderPicker(permissionsFixture({ mode: 'ask-for-approval' }))
    expect(toggle.className).not.toContain('picker__toggle--danger')
    fireEvent.click(toggle)
    const full = screen.getByTestId('mode-option-full-access')
    expect(full.className).toContain('picker__option--danger')
    expect(full.querySelector('[data-icon="warning"]')).not.toBeNull()
    expect(screen.getByTestId('mode-gives-up').textContent).toContain('You give up being asked')
    for (const safe of ['ask-for-approval', 'approve-for-me']) {
      const option = screen.getByTestId(`mode-option-${safe}`)
      expect(option.className).not.toContain('danger')
      expect(option.querySelector('[data-icon="warning"]')).toBeNull()
    }
    cleanup()
    // While the room has full access, the picker's own button says so too.
    const current = renderPicker(permissionsFixture({ mode: 'full-access' })).toggle
    expect(current.className).toContain('picker__toggle--danger')
  })

  it('does not list what full access gives up where it cannot be chosen', () => {
    const { toggle } = renderPicker(
      permissionsFixture({ fullAccessUnavailable: 'read_only_agent' }),
    )
    fireEvent.click(toggle)
    expect(screen.queryByTestId('mode-gives-up')).toBeNull()
  })

  it('is disabled until the runtime has answered', () => {
    const { toggle } = renderPicker(undefined)
    expect((toggle as HTMLButtonElement).disabled).toBe(true)
    expect(toggle.textContent).toBe('Permissions: …')
  })

  it.each([
    ['read_only_agent', 'Unavailable: this agent is read-only.'],
    ['agent_directory_limits', 'Unavailable: this agent is limited to certain folders.'],
  ] as const)('disables full access with its reason (%s)', (blocker, reason) => {
    const { toggle, onChoose } = renderPicker(
      permissionsFixture({ fullAccessUnavailable: blocker }),
    )
    fireEvent.click(toggle)
    const fullAccess = screen.getByTestId('mode-option-full-access') as HTMLButtonElement
    expect(fullAccess.disabled).toBe(true)
    expect(within(fullAccess).getByTestId('mode-reason-full-access').textContent).toBe(reason)
    expect((screen.getByTestId('mode-option-approve-for-me') as HTMLButtonElement).disabled).toBe(
      false,
    )
    fireEvent.click(fullAccess)
    expect(onChoose).not.toHaveBeenCalled()
  })

  it.each(['tampered', 'rolled-back'] as const)(
    'asks nothing for the current mode, except to confirm a room that is %s',
    (integrity) => {
      const trusted = renderPicker(permissionsFixture())
      fireEvent.click(trusted.toggle)
      fireEvent.click(screen.getByTestId('mode-option-ask-for-approval'))
      expect(trusted.onChoose).not.toHaveBeenCalled()
      cleanup()
      const untrusted = renderPicker(permissionsFixture({ integrity }))
      fireEvent.click(untrusted.toggle)
      fireEvent.click(screen.getByTestId('mode-option-ask-for-approval'))
      expect(untrusted.onChoose).toHaveBeenCalledWith('ask-for-approval')
    },
  )

  it('enables full access when nothing blocks it', () => {
    const { toggle } = renderPicker(permissionsFixture())
    fireEvent.click(toggle)
    expect((screen.getByTestId('mode-option-full-access') as HTMLButtonElement).disabled).toBe(
      false,
    )
    expect(screen.queryByTestId('mode-reason-full-access')).toBeNull()
  })

  it('puts the keyboard on the current mode and moves with the arrows over enabled options', () => {
    const { toggle } = renderPicker(
      permissionsFixture({ mode: 'approve-for-me', fullAccessUnavailable: 'read_only_agent' }),
    )
    fireEvent.click(toggle)
    const focused = () => (document.activeElement as HTMLElement | null)?.dataset.testid
    expect(focused()).toBe('mode-option-approve-for-me')
    // Full access is disabled: down wraps past it to the first option.
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' })
    expect(focused()).toBe('mode-option-plan')
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown' })
    expect(focused()).toBe('mode-option-ask-for-approval')
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowUp' })
    fireEvent.keyDown(document.activeElement!, { key: 'ArrowUp' })
    expect(focused()).toBe('mode-option-approve-for-me')
  })

  it('closes on Escape and gives the focus back to its button', () => {
    const { toggle } = renderPicker(permissionsFixture())
    fireEvent.click(toggle)
    fireEvent.keyDown(screen.getByTestId('mode-option-approve-for-me'), { key: 'Escape' })
    expect(toggle.getAttribute('aria-expanded')).toBe('false')
    expect(document.activeElement).toBe(toggle)
  })
})

describe('PermissionPicker on its own', () => {
  it('says why a change failed when its caller rejects, and keeps the runtime mode', async () => {
    const { toggle } = renderPicker(
      permissionsFixture(),
      vi.fn(async () => {
        throw new WorkbenchCallError('the runtime restarted', undefined, 'runtime_restarted')
      }),
    )
    fireEvent.click(toggle)
    fireEvent.click(screen.getByTestId('mode-option-approve-for-me'))
    expect((await screen.findByRole('alert')).textContent).toBe(
      'The mode did not change: the runtime restarted',
    )
    expect(toggle.dataset.mode).toBe('ask-for-approval')
  })
})

describe('PermissionPicker in a room', () => {
  it('asks main for the change and shows the runtime mode, never the one clicked', async () => {
    const gui = new FakeGui()
    gui.timelines.set('room-1', emptyTimeline('room-1'))
    gui.permissionsOf.set('room-1', permissionsFixture())
    const change = deferred<unknown>()
    gui.modeChange = () => change.promise
    renderWithI18n(
      <RoomView api={workbenchApi(gui)} gui={gui} room={roomFixture()} newId={() => 'id'} />,
    )
    const toggle = await screen.findByTestId('mode-picker')
    await waitFor(() => expect(toggle.dataset.mode).toBe('ask-for-approval'))
    fireEvent.click(toggle)
    fireEvent.click(screen.getByTestId('mode-option-full-access'))
    expect(gui.callsOf('requestModeChange')).toEqual([['room-1', 'full-access']])
    expect(toggle.dataset.mode).toBe('ask-for-approval')
    expect(document.body.textContent).toContain('Confirm the change in the protected window.')

    // The runtime applied it: room.updated makes the picker ask again.
    gui.permissionsOf.set('room-1', permissionsFixture({ mode: 'full-access', revision: 1 }))
    act(() => gui.emit('room.updated', { roomId: 'room-1' }))
    await waitFor(() => expect(toggle.dataset.mode).toBe('full-access'))
    await act(async () => change.resolve({ status: 'changed' }))
    await waitFor(() =>
      expect(document.body.textContent).not.toContain(
        'Confirm the change in the protected window.',
      ),
    )
  })

  it('enters plan mode without a protected window, saying no review is needed, and shows the runtime mode', async () => {
    const gui = new FakeGui()
    gui.timelines.set('room-1', emptyTimeline('room-1'))
    gui.permissionsOf.set('room-1', permissionsFixture())
    const change = deferred<unknown>()
    gui.modeChange = () => change.promise
    renderWithI18n(
      <RoomView api={workbenchApi(gui)} gui={gui} room={roomFixture()} newId={() => 'id'} />,
    )
    const toggle = await screen.findByTestId('mode-picker')
    await waitFor(() => expect(toggle.dataset.mode).toBe('ask-for-approval'))
    fireEvent.click(toggle)
    fireEvent.click(screen.getByTestId('mode-option-plan'))
    expect(gui.callsOf('requestModeChange')).toEqual([['room-1', 'plan']])
    expect(screen.getByTestId('picker-note').textContent).toBe(
      'Entering plan mode only narrows what the agent may do: no review is needed.',
    )
    expect(screen.queryByTestId('mode-request-card')).toBeNull()

    gui.permissionsOf.set('room-1', permissionsFixture({ mode: 'plan', revision: 1 }))
    await act(async () => change.resolve({ status: 'changed' }))
    await waitFor(() => expect(toggle.dataset.mode).toBe('plan'))
    expect(toggle.textContent).toBe('Permissions: Plan')
    expect(screen.getByTestId('mode-request-card').dataset.status).toBe('changed')
    expect(screen.queryByTestId('picker-note')).toBeNull()
  })

  it('still asks for the protected window to leave plan mode, since that widens', async () => {
    const { toggle, onChoose } = renderPicker(permissionsFixture({ mode: 'plan' }))
    fireEvent.click(toggle)
    fireEvent.click(screen.getByTestId('mode-option-ask-for-approval'))
    expect(onChoose).toHaveBeenCalledWith('ask-for-approval')
    expect(screen.getByTestId('picker-note').textContent).toBe(
      'Confirm the change in the protected window.',
    )
  })
})

// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { App } from './app.tsx'
import { DISPLAY_STORAGE_KEY, ROOM_STORAGE_KEY } from './preferences.ts'
import {
  FakeGui,
  approvalFixture,
  emptyTimeline,
  permissionsFixture,
  roomFixture,
  toolCallFixture,
} from './test-support/fake-gui.ts'
import { renderWithI18n } from './test-support/render.tsx'

afterEach(() => {
  cleanup()
  localStorage.clear()
})

function setup() {
  const gui = new FakeGui()
  renderWithI18n(<App gui={gui} newId={() => 'id-1'} />)
  return { gui }
}

describe('App', () => {
  it('applies the system language and theme and tells main, so the protected window matches', async () => {
    const { gui } = setup()
    await waitFor(() => expect(gui.preferences).toEqual([{ lang: 'en', theme: 'light' }]))
    expect(document.documentElement.lang).toBe('en')
    expect(document.documentElement.dataset.theme).toBe('light')
  })

  it('switches to Chinese and dark from the settings control, remembers it and tells main', async () => {
    const { gui } = setup()
    fireEvent.click(screen.getByTestId('settings-open'))
    fireEvent.change(screen.getByTestId('settings-language'), { target: { value: 'zh-CN' } })
    fireEvent.change(screen.getByTestId('settings-theme'), { target: { value: 'dark' } })
    await waitFor(() => expect(gui.preferences.at(-1)).toEqual({ lang: 'zh-CN', theme: 'dark' }))
    expect(document.documentElement.lang).toBe('zh-CN')
    expect(document.documentElement.dataset.theme).toBe('dark')
    expect(screen.getByTestId('room-create').textContent).toBe('创建房间')
    expect(JSON.parse(localStorage.getItem(DISPLAY_STORAGE_KEY) ?? '{}')).toEqual({
      theme: 'dark',
      lang: 'zh-CN',
    })
  })

  it('starts from the remembered choice', async () => {
    localStorage.setItem(DISPLAY_STORAGE_KEY, JSON.stringify({ theme: 'dark', lang: 'system' }))
    const { gui } = setup()
    await waitFor(() => expect(gui.preferences).toEqual([{ lang: 'en', theme: 'dark' }]))
  })

  it('creates a direct room from the form and opens it', async () => {
    const { gui } = setup()
    fireEvent.change(screen.getByTestId('room-agent'), { target: { value: 'reader' } })
    fireEvent.change(screen.getByTestId('room-workspace'), { target: { value: 'projects/notes' } })
    fireEvent.change(screen.getByTestId('room-title'), { target: { value: 'Notes' } })
    fireEvent.click(screen.getByTestId('room-create'))
    expect((await screen.findByTestId('room-create-error')).textContent).toBe(
      'The workspace folder must be an absolute path.',
    )
    expect(gui.callsOf('createRoom')).toEqual([])
    fireEvent.change(screen.getByTestId('room-workspace'), { target: { value: '/home/ada/notes' } })
    fireEvent.click(screen.getByTestId('room-create'))
    await screen.findByTestId('room-view')
    expect(gui.callsOf('createRoom')).toEqual([
      [{ kind: 'direct', agentId: 'reader', workspace: '/home/ada/notes', title: 'Notes' }],
    ])
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Notes')
    // The event for the same room adds nothing.
    act(() => gui.emit('room.created', { room: gui.rooms[0] }))
    expect(screen.getAllByTestId('room-link')).toHaveLength(1)
  })

  it("offers the runtime's external agents by their agents.json name, and creates a room with one", async () => {
    const gui = new FakeGui()
    gui.agents = [
      ...gui.agents,
      { id: 'codex', name: 'Codex CLI', kind: 'external', protocol: 'codex-app-server' },
    ]
    renderWithI18n(<App gui={gui} newId={() => 'id-1'} />)
    const picker = screen.getByTestId('room-agent') as HTMLSelectElement
    await waitFor(() => expect(picker.options.length).toBe(4))
    expect([...picker.options].map((option) => [option.value, option.textContent])).toEqual([
      ['assistant', 'Assistant (every tool)'],
      ['reader', 'Reader (read-only)'],
      ['scoped', 'Scoped assistant (limited folders)'],
      ['codex', 'Codex CLI (external agent)'],
    ])
    fireEvent.change(picker, { target: { value: 'codex' } })
    fireEvent.change(screen.getByTestId('room-workspace'), { target: { value: '/home/ada/code' } })
    fireEvent.change(screen.getByTestId('room-title'), { target: { value: 'Code' } })
    fireEvent.click(screen.getByTestId('room-create'))
    await screen.findByTestId('room-view')
    expect(gui.callsOf('createRoom')).toEqual([
      [{ kind: 'direct', agentId: 'codex', workspace: '/home/ada/code', title: 'Code' }],
    ])
  })

  it('keeps offering the built-in agents when the runtime cannot list its agents', async () => {
    const gui = new FakeGui()
    let asked = 0
    gui.listAgents = async () => {
      asked += 1
      return { status: 500, body: {} }
    }
    renderWithI18n(<App gui={gui} newId={() => 'id-1'} />)
    const picker = screen.getByTestId('room-agent') as HTMLSelectElement
    await waitFor(() => expect(asked).toBe(1))
    // Let the refused answer settle before looking.
    await act(async () => {})
    expect([...picker.options].map((option) => option.value)).toEqual([
      'assistant',
      'reader',
      'scoped',
    ])
  })

  it('says why the runtime refused a room', async () => {
    const { gui } = setup()
    gui.createRoom = async () => ({
      status: 400,
      body: { error: 'workspace: must be an existing directory', code: 'invalid_workspace' },
    })
    fireEvent.change(screen.getByTestId('room-workspace'), { target: { value: '/nope' } })
    fireEvent.change(screen.getByTestId('room-title'), { target: { value: 'Notes' } })
    fireEvent.click(screen.getByTestId('room-create'))
    expect((await screen.findByTestId('room-create-error')).textContent).toBe(
      'The room was not created: the workspace folder does not exist, or cannot be one (the file-system root, your home folder itself or a system folder)',
    )
  })

  it('words an answer with a bare status in the page language, never as "HTTP 500"', async () => {
    localStorage.setItem(DISPLAY_STORAGE_KEY, JSON.stringify({ theme: 'system', lang: 'zh-CN' }))
    const { gui } = setup()
    gui.createRoom = async () => ({ status: 500, body: {} })
    fireEvent.change(screen.getByTestId('room-workspace'), { target: { value: '/nope' } })
    fireEvent.change(screen.getByTestId('room-title'), { target: { value: 'Notes' } })
    fireEvent.click(screen.getByTestId('room-create'))
    expect((await screen.findByTestId('room-create-error')).textContent).toBe(
      '房间未创建：运行时返回了状态 500',
    )
  })

  it('opens the room of a clicked notification and focuses its card (main’s approval.focus)', async () => {
    const { gui } = setup()
    const other = roomFixture({ id: 'room-0', title: 'Other' })
    const room = roomFixture()
    gui.rooms = [other, room]
    for (const known of gui.rooms) gui.permissionsOf.set(known.id, permissionsFixture())
    gui.timelines.set(room.id, {
      ...emptyTimeline(room.id),
      toolCalls: [toolCallFixture()],
      approvals: [approvalFixture()],
    })
    act(() => gui.emit('runtime.status', { state: 'up' }))
    fireEvent.click(await screen.findByText('Other'))
    await waitFor(() =>
      expect(screen.getByTestId('room-view').getAttribute('data-room-id')).toBe('room-0'),
    )
    act(() => gui.emit('approval.requested', { approval: approvalFixture() }))
    expect(screen.queryByTestId('approval-card')).toBeNull()

    act(() => gui.emit('approval.focus', { approvalId: 'ap-1' }))
    await waitFor(() =>
      expect(screen.getByTestId('room-view').getAttribute('data-room-id')).toBe('room-1'),
    )
    await waitFor(() =>
      expect(document.activeElement?.closest('[data-testid="approval-card"]')).not.toBeNull(),
    )
    const card = document.activeElement?.closest<HTMLElement>('[data-testid="approval-card"]')
    expect(card?.dataset.approvalId).toBe('ap-1')
    expect(card?.closest('[data-testid="open-requests"]')).not.toBeNull()
  })

  it('opens the room main names in approval.focus even without the approval event', async () => {
    const { gui } = setup()
    const room = roomFixture()
    gui.rooms = [room]
    gui.permissionsOf.set(room.id, permissionsFixture())
    gui.timelines.set(room.id, {
      ...emptyTimeline(room.id),
      toolCalls: [toolCallFixture()],
      approvals: [approvalFixture()],
    })
    act(() => gui.emit('runtime.status', { state: 'up' }))
    await screen.findByTestId('room-link')
    act(() => gui.emit('approval.focus', { approvalId: 'ap-1', roomId: 'room-1' }))
    await waitFor(() =>
      expect(
        document.activeElement?.closest<HTMLElement>('[data-testid="approval-card"]')?.dataset
          .approvalId,
      ).toBe('ap-1'),
    )
  })

  it('ignores approval.focus for an approval it never heard of', async () => {
    const { gui } = setup()
    const room = roomFixture()
    gui.rooms = [room]
    act(() => gui.emit('runtime.status', { state: 'up' }))
    await screen.findByTestId('room-link')
    act(() => gui.emit('approval.focus', { approvalId: 'ap-9' }))
    expect(screen.queryByTestId('room-view')).toBeNull()
    expect(screen.getByTestId('room-create')).toBeTruthy()
  })

  it('shows a row edited outside Assent as a notice, once per row, and the open room as untrusted', async () => {
    const { gui } = setup()
    const room = roomFixture()
    gui.rooms = [room]
    gui.permissionsOf.set(room.id, permissionsFixture())
    gui.timelines.set(room.id, emptyTimeline(room.id))
    act(() => gui.emit('room.created', { room }))
    fireEvent.click(await screen.findByTestId('room-link'))
    await screen.findByTestId('room-view')
    expect(screen.queryByTestId('integrity-room-banner')).toBeNull()
    // The runtime now reads the row as untrusted and reports it.
    gui.permissionsOf.set(room.id, permissionsFixture({ integrity: 'tampered' }))
    const report = { table: 'rooms', rowId: room.id, roomId: room.id, problem: 'mac_mismatch' }
    act(() => gui.emit('runtime.integrity', report))
    act(() => gui.emit('runtime.integrity', report))
    const notices = await screen.findByTestId('integrity-notices')
    expect(notices.querySelectorAll('li')).toHaveLength(1)
    expect(notices.textContent).toContain(`room “${room.title}” were changed on disk`)
    expect((await screen.findByTestId('integrity-room-banner')).textContent).toContain(
      'runs as Ask for approval with no grants',
    )
    fireEvent.click(screen.getByRole('button', { name: 'Dismiss' }))
    expect(screen.queryByTestId('integrity-notices')).toBeNull()
    // Dismissing the notice does not hide the room's own banner.
    expect(screen.getByTestId('integrity-room-banner')).toBeTruthy()
  })

  it('says the database was replaced by an older copy, and marks the open room rolled back until a mode is confirmed', async () => {
    const { gui } = setup()
    const room = roomFixture()
    gui.rooms = [room]
    gui.permissionsOf.set(room.id, permissionsFixture({ integrity: 'rolled-back' }))
    gui.timelines.set(room.id, emptyTimeline(room.id))
    act(() => gui.emit('room.created', { room }))
    fireEvent.click(await screen.findByTestId('room-link'))
    const banner = await screen.findByTestId('integrity-room-banner')
    expect(banner.dataset.integrity).toBe('rolled-back')
    expect(banner.textContent).toContain('come from an older copy of Assent’s database')
    expect(banner.textContent).not.toContain('changed outside Assent')

    const rollback = {
      table: 'database',
      rowId: 'rolled_back',
      roomId: null,
      problem: 'rolled_back',
    }
    const lagging = {
      table: 'database',
      rowId: 'anchor_lagging',
      roomId: null,
      problem: 'anchor_lagging',
    }
    act(() => gui.emit('runtime.integrity', rollback))
    act(() => gui.emit('runtime.integrity', lagging))
    const items = (await screen.findByTestId('integrity-notices')).querySelectorAll('li')
    expect([...items].map((item) => item.textContent)).toEqual([
      expect.stringContaining('was replaced by an older copy'),
      expect.stringContaining('could not update the record it keeps outside its database'),
    ])

    // Confirmed: the runtime reads the room as intact again, and the banner goes.
    gui.permissionsOf.set(room.id, permissionsFixture({ integrity: 'ok' }))
    act(() => gui.emit('room.updated', { roomId: room.id }))
    await waitFor(() => expect(screen.queryByTestId('integrity-room-banner')).toBeNull())
  })

  it('reopens the room the person was in after a restart', async () => {
    const rooms = [roomFixture({ id: 'room-0', title: 'Other' }), roomFixture()]
    const start = () => {
      const gui = new FakeGui()
      gui.rooms = rooms
      for (const known of rooms) gui.permissionsOf.set(known.id, permissionsFixture())
      for (const known of rooms) gui.timelines.set(known.id, emptyTimeline(known.id))
      renderWithI18n(<App gui={gui} newId={() => 'id-1'} />)
    }
    start()
    fireEvent.click(await screen.findByText('Other'))
    await waitFor(() =>
      expect(screen.getByTestId('room-view').getAttribute('data-room-id')).toBe('room-0'),
    )
    expect(localStorage.getItem(ROOM_STORAGE_KEY)).toBe('room-0')
    cleanup()

    start()
    // Never the new-room form in between: it would flash, then vanish.
    expect(screen.queryByTestId('room-create')).toBeNull()
    await waitFor(() =>
      expect(screen.getByTestId('room-view').getAttribute('data-room-id')).toBe('room-0'),
    )
  })

  it('opens the new-room form when the remembered room is gone', async () => {
    localStorage.setItem(ROOM_STORAGE_KEY, 'room-gone')
    const gui = new FakeGui()
    gui.rooms = [roomFixture()]
    renderWithI18n(<App gui={gui} newId={() => 'id-1'} />)
    // The form can show while the rooms load; the remembered room is
    // forgotten once the list says it is gone.
    await waitFor(() => expect(localStorage.getItem(ROOM_STORAGE_KEY)).toBeNull())
    expect(screen.getByTestId('room-create')).toBeTruthy()
    expect(screen.queryByTestId('room-view')).toBeNull()
  })
})

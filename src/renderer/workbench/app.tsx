import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { AssentGui } from '../../common/assent-gui.ts'
import type { Room } from '../../contracts/room.ts'
import { CreateRoomForm } from './components/create-room-form.tsx'
import { IntegrityNotices, integrityKey } from './components/integrity-banner.tsx'
import { KeyFileNotice } from './components/key-file-notice.tsx'
import { MenuIcon } from './components/icons.tsx'
import { RoomList } from './components/room-list.tsx'
import { RoomView, type FocusRequest } from './components/room-view.tsx'
import { SettingsControl } from './components/settings-control.tsx'
import { errorText } from './gui/error-text.ts'
import { workbenchApi } from './gui/workbench-api.ts'
import { readWorkbenchEvent, type IntegrityReport } from './gui/workbench-events.ts'
import { localStore, readLastRoom, useDisplayPreferences, writeLastRoom } from './preferences.ts'

const DRAWER_ID = 'assent-room-drawer'
/** Below this width the room list is a drawer (styles/layout.css). */
const NARROW_QUERY = '(max-width: 899px)'

export interface AppProps {
  gui: AssentGui
  newId?: () => string
}

/**
 * The workbench: rooms on the left (a drawer below 900 px), the open room or
 * the new-room form on the right, display settings at the top. It talks to
 * main only through `window.assentGui`, and shows the language and theme it
 * uses to main so the protected window matches.
 *
 * System notifications are main’s (WaitNotices): both hosts deny
 * the page the web Notification permission. The page only answers main's
 * `approval.focus` when one is clicked.
 */
export function App({ gui, newId = () => crypto.randomUUID() }: AppProps) {
  const { t, i18n } = useTranslation()
  const api = useMemo(() => workbenchApi(gui), [gui])
  const { choices, setChoices, effective } = useDisplayPreferences()
  const [rooms, setRooms] = useState<readonly Room[]>([])
  const [roomsError, setRoomsError] = useState<{ failure: unknown } | undefined>(undefined)
  // The room the person was in when the workbench last closed (a restart,
  // a reload) opens again, once the runtime lists it.
  const [selectedId, setSelectedId] = useState<string | undefined>(() => readLastRoom(localStore()))
  const [roomsLoaded, setRoomsLoaded] = useState(false)
  const [drawerOpen, setDrawerOpen] = useState(false)
  const [focusRequest, setFocusRequest] = useState<FocusRequest | undefined>(undefined)
  const [integrity, setIntegrity] = useState<readonly IntegrityReport[]>([])
  const [keyFile, setKeyFile] = useState(false)
  const drawerToggle = useRef<HTMLButtonElement>(null)
  const approvalRooms = useRef(new Map<string, string>())
  const focusCount = useRef(0)

  useEffect(() => {
    void i18n.changeLanguage(effective.lang)
    document.documentElement.lang = effective.lang
    document.documentElement.dataset.theme = effective.theme
    // Display only: main uses it for the protected window's language and
    // theme. An old main that lacks the channel refuses; nothing depends on it.
    void gui.setPreferences(effective).catch(() => undefined)
  }, [effective, gui, i18n])

  // Widening the window turns the drawer back into a sidebar: nothing may
  // stay inert behind a drawer that is no longer one.
  useEffect(() => {
    if (typeof matchMedia !== 'function') return
    const narrow = matchMedia(NARROW_QUERY)
    const changed = () => {
      if (!narrow.matches) setDrawerOpen(false)
    }
    narrow.addEventListener('change', changed)
    return () => narrow.removeEventListener('change', changed)
  }, [])

  useEffect(() => {
    document.title = t('workbench.appName')
  }, [t, effective.lang])

  const focusApproval = useCallback((approvalId: string, roomId?: string) => {
    const room = roomId ?? approvalRooms.current.get(approvalId)
    if (room) setSelectedId(room)
    setDrawerOpen(false)
    focusCount.current += 1
    setFocusRequest({ approvalId, nonce: focusCount.current })
  }, [])

  // The room list: loaded at start, kept in step with the runtime's events,
  // reloaded when the runtime comes back or lost events.
  useEffect(() => {
    let active = true
    const load = () =>
      api.listRooms().then(
        (listed) => {
          if (!active) return
          // Rooms are never deleted, so a room this list lacks was created
          // after it was asked for (its room.created event got here first).
          setRooms((current) => [
            ...listed,
            ...current.filter((room) => !listed.some((known) => known.id === room.id)),
          ])
          setRoomsError(undefined)
          setRoomsLoaded(true)
        },
        (failure: unknown) => {
          if (!active) return
          setRoomsError({ failure })
          setRoomsLoaded(true)
        },
      )
    void load()
    const stop = gui.onEvent((event) => {
      const signal = readWorkbenchEvent(event)
      if (signal?.type === 'room.created') {
        const created = signal.room
        setRooms((current) =>
          current.some((room) => room.id === created.id) ? current : [...current, created],
        )
      } else if (
        signal?.type === 'room.updated' ||
        signal?.type === 'runtime.reset' ||
        (signal?.type === 'runtime.status' && signal.state === 'up')
      ) {
        void load()
      }
    })
    return () => {
      active = false
      stop()
    }
  }, [api, gui])

  // Main's "focus this card" after its system notification was clicked;
  // the approval's room comes with it, or from the event that announced it.
  useEffect(() => {
    const stop = gui.onEvent((event) => {
      const signal = readWorkbenchEvent(event)
      if (signal?.type === 'approval.requested') {
        approvalRooms.current.set(signal.approval.id, signal.approval.roomId)
      } else if (signal?.type === 'approval.focus') {
        focusApproval(signal.approvalId, signal.roomId)
      } else if (signal?.type === 'runtime.status' && signal.state === 'up') {
        setKeyFile(signal.keyFile === true)
      } else if (signal?.type === 'runtime.integrity') {
        const report = signal.report
        setIntegrity((current) =>
          current.some((known) => integrityKey(known) === integrityKey(report))
            ? current
            : [...current, report],
        )
      }
    })
    return stop
  }, [gui, focusApproval])

  const selected = rooms.find((room) => room.id === selectedId)
  // Waiting for the list before the remembered room can open: the new-room
  // form would flash in its place.
  const awaitingRoom = selectedId !== undefined && !selected && !roomsLoaded

  useEffect(() => {
    if (roomsLoaded) writeLastRoom(localStore(), selected?.id)
  }, [roomsLoaded, selected?.id])

  const closeDrawer = () => {
    setDrawerOpen(false)
    drawerToggle.current?.focus()
  }

  return (
    <div className="app" data-drawer-open={drawerOpen}>
      <header className="topbar">
        <button
          type="button"
          ref={drawerToggle}
          className="button topbar__drawer"
          data-testid="rooms-drawer-toggle"
          aria-expanded={drawerOpen}
          aria-controls={DRAWER_ID}
          onClick={() => setDrawerOpen(!drawerOpen)}
        >
          <MenuIcon />
          <span>{t('workbench.rooms.openDrawer')}</span>
        </button>
        <p className="topbar__brand">{t('workbench.appName')}</p>
        <SettingsControl choices={choices} onChange={setChoices} />
      </header>
      <KeyFileNotice shown={keyFile} />
      <IntegrityNotices
        reports={integrity}
        rooms={rooms}
        onDismiss={(report) =>
          setIntegrity((current) =>
            current.filter((known) => integrityKey(known) !== integrityKey(report)),
          )
        }
      />
      <div className="app__body">
        <RoomList
          id={DRAWER_ID}
          rooms={rooms}
          selectedId={selected?.id}
          drawerOpen={drawerOpen}
          error={roomsError ? errorText(t, roomsError.failure) : undefined}
          onSelect={(roomId) => {
            setSelectedId(roomId)
            setDrawerOpen(false)
          }}
          onNewRoom={() => {
            setSelectedId(undefined)
            setDrawerOpen(false)
          }}
          onCloseDrawer={closeDrawer}
        />
        {drawerOpen ? (
          <div
            className="drawer-backdrop"
            aria-hidden="true"
            onClick={() => setDrawerOpen(false)}
          />
        ) : null}
        <main className="app__main" inert={drawerOpen}>
          {awaitingRoom ? null : selected ? (
            <RoomView
              key={selected.id}
              api={api}
              gui={gui}
              room={selected}
              newId={newId}
              focusRequest={focusRequest}
            />
          ) : (
            <div className="app__create">
              <CreateRoomForm
                api={api}
                onCreated={(room) => {
                  setRooms((current) =>
                    current.some((known) => known.id === room.id) ? current : [...current, room],
                  )
                  setSelectedId(room.id)
                }}
              />
            </div>
          )}
        </main>
      </div>
    </div>
  )
}

import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import type { Room } from '../../../contracts/room.ts'
import { AGENT_LABEL } from './create-room-form.tsx'

export interface RoomListProps {
  id: string
  rooms: readonly Room[]
  selectedId: string | undefined
  /** Below 900 px the list is a drawer; this says whether it is pulled out. */
  drawerOpen: boolean
  error: string | undefined
  onSelect: (roomId: string) => void
  onNewRoom: () => void
  onCloseDrawer: () => void
}

/** The sidebar: every room, and the way to make a new one. */
export function RoomList(props: RoomListProps) {
  const { t } = useTranslation()
  const { rooms, selectedId, drawerOpen } = props
  const close = useRef<HTMLButtonElement>(null)

  // A drawer just pulled out takes the focus, so the keyboard lands in it.
  useEffect(() => {
    if (drawerOpen) close.current?.focus()
  }, [drawerOpen])

  return (
    <nav
      id={props.id}
      className="sidebar"
      data-open={drawerOpen}
      data-testid="room-list"
      aria-label={t('workbench.rooms.heading')}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && drawerOpen) props.onCloseDrawer()
      }}
    >
      <div className="sidebar__head">
        <h2 className="sidebar__heading">{t('workbench.rooms.heading')}</h2>
        <button
          type="button"
          ref={close}
          className="button button--small sidebar__close"
          onClick={props.onCloseDrawer}
        >
          {t('workbench.rooms.closeDrawer')}
        </button>
      </div>
      <button
        type="button"
        className="button sidebar__new"
        data-testid="new-room"
        aria-pressed={selectedId === undefined}
        onClick={props.onNewRoom}
      >
        {t('workbench.rooms.newRoom')}
      </button>
      {props.error ? (
        <p className="sidebar__error" role="alert">
          {t('workbench.rooms.loadFailed', { reason: props.error })}
        </p>
      ) : null}
      {rooms.length === 0 ? <p className="sidebar__empty">{t('workbench.rooms.empty')}</p> : null}
      <ul className="rooms">
        {rooms.map((room) => (
          <li key={room.id}>
            <button
              type="button"
              className="rooms__link"
              data-testid="room-link"
              data-room-id={room.id}
              aria-current={room.id === selectedId ? 'page' : undefined}
              onClick={() => props.onSelect(room.id)}
            >
              <span className="rooms__title">{room.title}</span>
              <span className="rooms__meta">
                {t('workbench.rooms.meta', {
                  agent: agentName(t, room.agentId),
                  kind:
                    room.kind === 'group'
                      ? t('workbench.rooms.group')
                      : t('workbench.rooms.direct'),
                })}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  )
}

export function agentName(t: ReturnType<typeof useTranslation>['t'], agentId: string): string {
  return Object.hasOwn(AGENT_LABEL, agentId)
    ? t(AGENT_LABEL[agentId as keyof typeof AGENT_LABEL])
    : agentId
}

import { useCallback, useEffect, useId, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { AssentGui } from '../../../common/assent-gui.ts'
import type { PermissionMode } from '../../../runtime/contracts/policy-axes.ts'
import type { Room } from '../../../runtime/contracts/room.ts'
import { messageOf, summaryOf, type WorkbenchApi } from '../gui/workbench-api.ts'
import { cardKey, openCards, type CardState } from '../state/approval-cards.ts'
import { timelineItems } from '../state/timeline-items.ts'
import { useRoom } from '../state/use-room.ts'
import { Composer } from './composer.tsx'
import { GrantsPanel } from './grants-panel.tsx'
import { PendingApprovals, type CardActivity } from './pending-approvals.tsx'
import { PermissionPicker } from './permission-picker.tsx'
import { agentName } from './room-list.tsx'
import { TimelineView } from './timeline-view.tsx'

export interface FocusRequest {
  approvalId: string
  /** A new number for every request, so asking twice focuses twice. */
  nonce: number
}

export interface RoomViewProps {
  api: WorkbenchApi
  gui: Pick<AssentGui, 'onEvent'>
  room: Room
  newId: () => string
  focusRequest?: FocusRequest | undefined
}

/**
 * One open room: its conversation, the open cards above the composer, the
 * status line, the composer with the permission picker (direct rooms only)
 * and the room's grants. Mounted afresh for each room it shows, so reopening
 * a room reloads it and reconciles its cards with the runtime.
 */
export function RoomView({ api, gui, room, newId, focusRequest }: RoomViewProps) {
  const { t } = useTranslation()
  const titleId = useId()
  const { state, dispatch, refreshTimeline, refreshPermissions, refreshGrants } = useRoom(
    api,
    gui,
    room,
  )
  const [activity, setActivity] = useState<ReadonlyMap<string, CardActivity>>(new Map())
  const [retryErrors, setRetryErrors] = useState<ReadonlyMap<string, string>>(new Map())
  const unsent = useRef<{ text: string; clientRequestId: string } | undefined>(undefined)
  const element = useRef<HTMLElement>(null)
  const focused = useRef(0)

  const open = openCards(state.cards)
  const items = timelineItems(state.timeline, state.cards)

  const noteActivity = useCallback((key: string, next: CardActivity | undefined) => {
    setActivity((current) => {
      const copy = new Map(current)
      if (next) copy.set(key, next)
      else copy.delete(key)
      return copy
    })
  }, [])

  const review = useCallback(
    async (card: CardState) => {
      const key = cardKey(card.approval)
      noteActivity(key, { reviewing: true })
      try {
        const outcome = await api.reviewApproval(card.approval.id)
        if (outcome.status === 'decided') {
          dispatch({ type: 'approval', approval: summaryOf(outcome.approval) })
          noteActivity(key, undefined)
        } else if (outcome.status === 'failed') {
          noteActivity(key, {
            reviewing: false,
            error: t('workbench.card.reviewFailed', { reason: outcome.error }),
          })
        } else if (outcome.status === 'closed') {
          noteActivity(key, {
            reviewing: false,
            error: t('workbench.card.reviewClosed', { reason: outcome.reason }),
          })
        } else {
          noteActivity(key, undefined)
        }
      } catch (failure) {
        noteActivity(key, {
          reviewing: false,
          error: t('workbench.card.reviewFailed', { reason: messageOf(failure) }),
        })
      }
      refreshTimeline()
    },
    [api, dispatch, noteActivity, refreshTimeline, t],
  )

  const showCard = useCallback((approvalId: string) => {
    const card = element.current?.querySelector<HTMLElement>(
      `[data-approval-id="${CSS.escape(approvalId)}"]`,
    )
    if (!card) return false
    card.scrollIntoView?.({ block: 'nearest' })
    card.focus()
    return true
  }, [])

  useEffect(() => {
    if (!focusRequest || focusRequest.nonce === focused.current) return
    if (showCard(focusRequest.approvalId)) focused.current = focusRequest.nonce
  }, [focusRequest, showCard, state.cards])

  const send = async (text: string) => {
    // A resend of the same text after a failure reuses its id, so the
    // runtime treats it as the same message if the first one did arrive.
    const clientRequestId = unsent.current?.text === text ? unsent.current.clientRequestId : newId()
    unsent.current = { text, clientRequestId }
    await api.sendMessage(room.id, { clientRequestId, text })
    unsent.current = undefined
    refreshTimeline()
  }

  const retry = async (turnId: string) => {
    setRetryErrors((current) => withoutKey(current, turnId))
    try {
      await api.retryTurn(turnId)
      refreshTimeline()
    } catch (failure) {
      setRetryErrors((current) => new Map(current).set(turnId, messageOf(failure)))
    }
  }

  const chooseMode = async (mode: PermissionMode) => {
    try {
      const outcome = await api.requestModeChange(room.id, mode)
      if (outcome.status === 'failed') throw new Error(outcome.error)
      if (outcome.status === 'closed') throw new Error(outcome.reason)
    } finally {
      refreshPermissions()
    }
  }

  const revokeGrant = async (grantId: string) => {
    await api.revokeGrant(room.id, grantId)
    refreshGrants()
  }
  const revokeServerGrants = async (serverId: string) => {
    await api.revokeServerGrants(room.id, serverId)
    refreshGrants()
  }

  const working = state.timeline?.turns.some(
    (turn) => turn.status === 'running' || turn.status === 'waiting',
  )
  const waitingTools = [...new Set(open.map((card) => card.approval.toolName))].join(', ')
  const status = state.runtimeDown
    ? t('workbench.status.runtimeDown')
    : waitingTools
      ? t('workbench.status.waiting', { tool: waitingTools })
      : working
        ? t('workbench.status.working')
        : t('workbench.status.ready')

  return (
    <section
      className="room"
      ref={element}
      aria-labelledby={titleId}
      data-testid="room-view"
      data-room-id={room.id}
    >
      <header className="room__header">
        <div className="room__heading">
          <h1 className="room__title" id={titleId}>
            {room.title}
          </h1>
          <p className="room__meta">
            <span>{t('workbench.room.agent', { agent: agentName(t, room.agentId) })}</span>
            <span>
              {t('workbench.room.workspace')} <span className="mono">{room.workspace}</span>
            </span>
          </p>
        </div>
        <GrantsPanel
          grants={state.grants}
          onRevoke={revokeGrant}
          onRevokeServer={revokeServerGrants}
        />
      </header>
      {state.loadError ? (
        <p className="room__error" role="alert">
          {t('workbench.room.loadFailed', { reason: state.loadError })}
        </p>
      ) : null}
      <TimelineView
        items={items}
        timeline={state.timeline}
        activity={activity}
        retryErrors={retryErrors}
        onReview={(card) => void review(card)}
        onShowCard={showCard}
        onRetry={(turnId) => void retry(turnId)}
      />
      <PendingApprovals
        cards={open}
        timeline={state.timeline}
        activity={activity}
        onReview={(card) => void review(card)}
      />
      <p
        className={`status-line${waitingTools ? ' status-line--waiting' : ''}`}
        role="status"
        data-testid="status-line"
      >
        {status}
      </p>
      <Composer
        onSend={send}
        picker={
          room.kind === 'direct' ? (
            <PermissionPicker permissions={state.permissions} onChoose={chooseMode} />
          ) : undefined
        }
      />
    </section>
  )
}

function withoutKey<V>(map: ReadonlyMap<string, V>, key: string): ReadonlyMap<string, V> {
  if (!map.has(key)) return map
  const copy = new Map(map)
  copy.delete(key)
  return copy
}

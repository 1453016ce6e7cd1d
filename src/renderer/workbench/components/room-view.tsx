import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { AssentGui } from '../../../common/assent-gui.ts'
import type { Room } from '../../../contracts/room.ts'
import type { InputResponse } from '../../../contracts/input-request.ts'
import { approvalGone, errorText, inputGone } from '../gui/error-text.ts'
import { summaryOf, type WorkbenchApi } from '../gui/workbench-api.ts'
import { cardKey, openCards, type CardState } from '../state/approval-cards.ts'
import { inputKey, openInputs, type InputCard } from '../state/input-cards.ts'
import { answerAsMessage, createMessageRouter } from '../state/message-routing.ts'
import { useInputRequests } from '../state/use-input-requests.ts'
import { timelineItems } from '../state/timeline-items.ts'
import { approvalRequestKey, expandedRequest, openRequests } from '../state/open-requests.ts'
import { useRoom } from '../state/use-room.ts'
import { Composer } from './composer.tsx'
import { RoomIntegrityBanner } from './integrity-banner.tsx'
import { OpenRequests, type CardActivity } from './open-requests.tsx'
import type { QuestionDrafts } from './question-card.tsx'
import { PermissionPicker } from './permission-picker.tsx'
import { RoomHeader } from './room-header.tsx'
import { RoomStatusLine } from './room-status-line.tsx'
import { StopTurn } from './stop-turn.tsx'
import { TimelineView } from './timeline-view.tsx'
import { useModeChange } from './use-mode-change.ts'

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
  const { modeRequest, settledModes, chooseMode } = useModeChange(
    api,
    room.id,
    state.permissions,
    refreshPermissions,
  )
  // Which open request shows its details: chosen by the person (null: none),
  // or by default the oldest (expandedRequest).
  const [chosen, setChosen] = useState<string | null | undefined>(undefined)
  const inputs = useInputRequests(api, gui, room.id)
  const drafts = useRef(new Map<string, QuestionDrafts>())
  const latest = useRef<{ open: CardState[]; inputs: InputCard[] }>({ open: [], inputs: [] })
  const element = useRef<HTMLElement>(null)
  const focused = useRef(0)

  const open = openCards(state.cards)
  const openInputCards = openInputs(inputs.cards)
  const requests = openRequests(open, openInputCards, modeRequest)
  const expanded = expandedRequest(requests, chosen)
  // Kept while nothing it is made of changes: the timeline's words and rows
  // are worked out again only then (a 500-card room has thousands of entries).
  const items = useMemo(
    () => timelineItems(state.timeline, state.cards, inputs.cards, settledModes),
    [state.timeline, state.cards, inputs.cards, settledModes],
  )
  // With nothing open, the next request starts with the default again.
  useEffect(() => {
    if (requests.length === 0 && chosen !== undefined) setChosen(undefined)
  }, [requests.length, chosen])
  useEffect(() => {
    latest.current = { open, inputs: openInputCards }
  })

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
      // The runtime no longer waits on it: the card turns stale at once (no
      // buttons to press again), and the refresh below brings its decision.
      const gone = () => {
        dispatch({ type: 'approval-gone', approval: card.approval })
        noteActivity(key, undefined)
      }
      noteActivity(key, { reviewing: true })
      try {
        const outcome = await api.reviewApproval(card.approval.id)
        if (outcome.status === 'decided') {
          dispatch({ type: 'approval', approval: summaryOf(outcome.approval) })
          noteActivity(key, undefined)
        } else if (outcome.status === 'failed') {
          if (approvalGone(outcome.error)) gone()
          else
            noteActivity(key, {
              reviewing: false,
              error: t('workbench.card.reviewFailed', { reason: errorText(t, outcome.error) }),
            })
        } else if (outcome.status === 'closed') {
          noteActivity(key, {
            reviewing: false,
            error: t('workbench.card.reviewClosed', { reason: errorText(t, outcome.reason) }),
          })
        } else {
          noteActivity(key, undefined)
        }
      } catch (failure) {
        if (approvalGone(failure)) gone()
        else
          noteActivity(key, {
            reviewing: false,
            error: t('workbench.card.reviewFailed', { reason: errorText(t, failure) }),
          })
      }
      refreshTimeline()
    },
    [api, dispatch, noteActivity, refreshTimeline, t],
  )

  const focusCard = useCallback((approvalId: string) => {
    const card = element.current?.querySelector<HTMLElement>(
      `[data-approval-id="${CSS.escape(approvalId)}"]`,
    )
    if (!card) return false
    card.scrollIntoView?.({ block: 'nearest' })
    card.focus()
    return true
  }, [])

  // Showing an open card expands it first, then focuses it once drawn.
  const [toFocus, setToFocus] = useState<string | undefined>(undefined)
  const showCard = useCallback(
    (approvalId: string) => {
      const card = [...state.cards.values()].find(
        (candidate) => candidate.approval.id === approvalId,
      )
      if (card) setChosen(approvalRequestKey(card))
      setToFocus(approvalId)
    },
    [state.cards],
  )
  useEffect(() => {
    if (toFocus !== undefined && focusCard(toFocus)) setToFocus(undefined)
  }, [toFocus, focusCard, expanded, state.cards])

  // Main's "focus this card" (a clicked notification): once the card is here.
  useEffect(() => {
    if (!focusRequest || focusRequest.nonce === focused.current) return
    const known = [...state.cards.values()].some(
      (card) => card.approval.id === focusRequest.approvalId,
    )
    if (!known) return
    focused.current = focusRequest.nonce
    showCard(focusRequest.approvalId)
  }, [focusRequest, showCard, state.cards])

  const { update: updateInput, markStale: markInputStale } = inputs
  const router = useMemo(
    () =>
      createMessageRouter({
        api,
        roomId: room.id,
        newId,
        openQuestion: () => latest.current.inputs.find((card) => card.request.kind === 'questions'),
        draftsOf: (key) => drafts.current.get(key),
        openApprovals: () => latest.current.open.map((card) => card.approval),
        onInputAnswered: updateInput,
        onInputStale: markInputStale,
        onApprovalRejected: () => refreshTimeline(),
        afterMessage: refreshTimeline,
      }),
    [api, room.id, newId, updateInput, markInputStale, refreshTimeline],
  )

  const openProtectedForm = async (card: InputCard) => {
    try {
      const outcome = await api.openSensitiveForm(card.request.id)
      if (outcome.status === 'submitted') updateInput(outcome.request)
    } finally {
      inputs.reload()
    }
  }

  const respond = async (card: InputCard, response: InputResponse) => {
    try {
      updateInput(await api.respondToInput(card.request.id, response))
    } catch (failure) {
      if (inputGone(failure)) {
        markInputStale(inputKey(card.request))
        const text =
          response.action === 'answer' ? answerAsMessage(card.request, response.answers) : undefined
        if (text) await router.sendMessage(text)
        return
      }
      throw failure
    }
  }

  /** The runtime keeps the question's timer: it answers with the new
   *  deadline, which the card counts down to. */
  const keepWaiting = async (card: InputCard) => {
    try {
      updateInput(await api.keepWaiting(card.request.id))
    } catch (failure) {
      if (inputGone(failure)) markInputStale(inputKey(card.request))
    }
  }

  const retry = useCallback(
    async (turnId: string) => {
      setRetryErrors((current) => withoutKey(current, turnId))
      try {
        await api.retryTurn(turnId)
        refreshTimeline()
      } catch (failure) {
        setRetryErrors((current) => new Map(current).set(turnId, errorText(t, failure)))
      }
    },
    [api, refreshTimeline, t],
  )
  // Stable, so the timeline's memoized entries are drawn again only when
  // their own record changes.
  const reviewCard = useCallback((card: CardState) => void review(card), [review])
  const retryTurn = useCallback((turnId: string) => void retry(turnId), [retry])

  // The question the composer's text will answer (the router's choice).
  const answered = openInputCards.find((card) => card.request.kind === 'questions')
  const [firstQuestion, ...moreQuestions] = answered?.request.questions ?? []
  const answeringTitle = firstQuestion
    ? moreQuestions.length === 0
      ? firstQuestion.title
      : t('workbench.question.titleAndMore', {
          title: firstQuestion.title,
          count: moreQuestions.length,
        })
    : undefined

  const runningTurn = state.timeline?.turns.find(
    (turn) => turn.status === 'running' || turn.status === 'waiting',
  )
  const working = runningTurn !== undefined
  const waitingTools = [...new Set(open.map((card) => card.approval.toolName))].join(', ')
  // The open block says what waits and for how long; the status line then
  // says it only to assistive technology, so the page says it once.
  const statusShown = requests.length === 0 || state.runtimeDown

  return (
    <section
      className="room"
      ref={element}
      aria-labelledby={titleId}
      data-testid="room-view"
      data-room-id={room.id}
    >
      <RoomHeader
        api={api}
        room={room}
        titleId={titleId}
        grants={state.grants}
        onGrantsChanged={refreshGrants}
      />
      {state.permissions ? <RoomIntegrityBanner integrity={state.permissions.integrity} /> : null}
      {state.loadError ? (
        <p className="room__error" role="alert">
          {t('workbench.room.loadFailed', { reason: errorText(t, state.loadError.failure) })}
        </p>
      ) : null}
      <TimelineView
        items={items}
        timeline={state.timeline}
        activity={activity}
        retryErrors={retryErrors}
        onReview={reviewCard}
        onShowCard={showCard}
        onRetry={retryTurn}
      />
      <OpenRequests
        requests={requests}
        expanded={expanded}
        onToggle={(key) => setChosen(key === expanded ? null : key)}
        timeline={state.timeline}
        activity={activity}
        onReview={(card) => void review(card)}
        onRespond={respond}
        onKeepWaiting={keepWaiting}
        onDraft={(card, next) => drafts.current.set(inputKey(card.request), next)}
        onOpenProtected={(card) => void openProtectedForm(card)}
      />
      <RoomStatusLine
        runtimeDown={state.runtimeDown}
        waitingTools={waitingTools}
        questionOpen={openInputCards.length > 0}
        working={working}
        shown={statusShown}
      />
      <StopTurn api={api} room={room} turn={runningTurn} onStopped={refreshTimeline} />
      <Composer
        onSend={router.route}
        answering={answeringTitle}
        onSendAsMessage={router.routeAsMessage}
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

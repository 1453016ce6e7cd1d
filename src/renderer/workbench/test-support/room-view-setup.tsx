import type { Room, Timeline } from '../../../contracts/room.ts'
import type { Language } from '../../../common/consent-view.ts'
import { screen } from '@testing-library/react'
import { workbenchApi } from '../gui/workbench-api.ts'
import { RoomView } from '../components/room-view.tsx'
import {
  FakeGui,
  approvalFixture,
  emptyTimeline,
  permissionsFixture,
  roomFixture,
  toolCallFixture,
} from './fake-gui.ts'
import { renderWithI18n } from './render.tsx'

/** A RoomView on a fake bridge holding one room and its timeline. */
export function setupRoomView(
  room: Room = roomFixture(),
  timeline: Timeline = emptyTimeline(room.id),
  lang: Language = 'en',
) {
  const gui = new FakeGui()
  gui.rooms = [room]
  gui.timelines.set(room.id, timeline)
  if (room.kind === 'direct')
    gui.permissionsOf.set(room.id, permissionsFixture({ roomId: room.id }))
  let ids = 0
  const api = workbenchApi(gui)
  const view = () => <RoomView api={api} gui={gui} room={room} newId={() => `request-${++ids}`} />
  const rendered = renderWithI18n(view(), lang)
  return { gui, rendered, view }
}

/** The approval ids of the cards inside the element with this test id. */
export const cardsIn = (testId: string) =>
  [
    ...screen.getByTestId(testId).querySelectorAll<HTMLElement>('[data-testid="approval-card"]'),
  ].map((card) => card.dataset.approvalId)

/** room-1's timeline with one pending write and its approval. */
export const withPending = (): Timeline => ({
  ...emptyTimeline('room-1'),
  toolCalls: [toolCallFixture()],
  approvals: [approvalFixture()],
})

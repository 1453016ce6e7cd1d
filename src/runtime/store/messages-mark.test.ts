import { afterEach, beforeEach, expect, it } from 'vitest'
import type { Message } from '../../contracts/room.ts'
import {
  ROOM_ID,
  createRoom,
  openTempDatabase,
  sqliteStores,
  type SqliteStores,
} from '../test-support/sqlite-stores.ts'
import { IntegrityMac } from './integrity-mac.ts'

// A turn reads the room's history as it was when the turn started, at every
// step: what was stored after its mark is left out, whatever its time.

let close: () => void
let stores: SqliteStores

beforeEach(() => {
  const opened = openTempDatabase('assent-mark-')
  close = opened.close
  stores = sqliteStores(opened.db, { mac: new IntegrityMac(Buffer.alloc(32, 3)) })
  createRoom(stores)
  stores.conversations.startTurn(
    {
      id: 'turn-1',
      roomId: ROOM_ID,
      clientRequestId: 'request-1',
      text: 'hello',
      attempt: 1,
      retryOf: null,
      workspace: '/ws',
      policy: stores.rooms.get(ROOM_ID)!.policy,
      status: 'running',
      createdAt: 100,
    },
    null,
  )
})
afterEach(() => close())

function say(id: string, createdAt: number): void {
  const message: Message = {
    id,
    roomId: ROOM_ID,
    turnId: 'turn-1',
    role: 'agent',
    text: id,
    createdAt,
  }
  stores.conversations.insertMessage(message)
}

const ids = (messages: ReadonlyArray<Pick<Message, 'id'>>) => messages.map((message) => message.id)

it('leaves out what was stored after the mark: later, at the same time, or with an older clock', () => {
  say('first', 100)
  say('second', 200)
  const mark = stores.conversations.messagesMark(ROOM_ID)
  say('same-time-later', 200)
  say('later', 300)
  say('clock-went-back', 50)
  expect(ids(stores.conversations.listRecentMessages(ROOM_ID, 10, [], mark))).toEqual([
    'first',
    'second',
  ])
  expect(ids(stores.conversations.listRecentMessages(ROOM_ID, 10))).toEqual([
    'clock-went-back',
    'first',
    'second',
    'same-time-later',
    'later',
  ])
})

it('keeps the last messages under the mark when there are more than the limit', () => {
  for (let at = 1; at <= 6; at += 1) say(`m${at}`, at * 10)
  const mark = stores.conversations.messagesMark(ROOM_ID)
  for (let at = 7; at <= 9; at += 1) say(`m${at}`, at * 10)
  expect(ids(stores.conversations.listRecentMessages(ROOM_ID, 3, [], mark))).toEqual([
    'm4',
    'm5',
    'm6',
  ])
})

it('reads nothing for a room that had no message at its mark', () => {
  const mark = stores.conversations.messagesMark(ROOM_ID)
  expect(mark.newest).toBe(-1)
  say('after', 0)
  expect(stores.conversations.listRecentMessages(ROOM_ID, 10, [], mark)).toEqual([])
})

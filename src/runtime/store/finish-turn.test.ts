import { afterEach, beforeEach, expect, it } from 'vitest'
import type { Message } from '../../contracts/room.ts'
import {
  ROOM_ID,
  createRoom,
  openTempDatabase,
  sqliteStores,
  startTurn,
  turnFixture,
  type SqliteStores,
} from '../test-support/sqlite-stores.ts'
import { IntegrityMac } from './integrity-mac.ts'

// A turn ends in one commit: its reply, Assent's note and its status are
// all written, or none is, so the timeline never shows a finished turn
// without its reply, nor a reply under a turn still running.

let close: () => void
let stores: SqliteStores

beforeEach(() => {
  const opened = openTempDatabase('assent-finish-')
  close = opened.close
  stores = sqliteStores(opened.db, { mac: new IntegrityMac(Buffer.alloc(32, 3)) })
  createRoom(stores)
  startTurn(stores, turnFixture({ status: 'running' }))
})
afterEach(() => close())

const said = (id: string, role: Message['role']): Message => ({
  id,
  roomId: ROOM_ID,
  turnId: 'turn-1',
  role,
  text: id,
  createdAt: 200,
})

const messageIds = () => stores.conversations.listMessages(ROOM_ID).map((message) => message.id)

it('writes the reply, the note and the status together', () => {
  stores.conversations.finishTurn('turn-1', 'done', [
    said('reply', 'agent'),
    said('note', 'system'),
  ])
  expect(stores.conversations.getTurn('turn-1')?.status).toBe('done')
  expect(messageIds()).toEqual(['message-turn-1', 'reply', 'note'])
})

it('writes none of it when one part cannot be written', () => {
  // The second message reuses the person's message id: its insert fails.
  expect(() =>
    stores.conversations.finishTurn('turn-1', 'failed', [
      said('reply', 'agent'),
      said('message-turn-1', 'system'),
    ]),
  ).toThrow()
  expect(stores.conversations.getTurn('turn-1')?.status).toBe('running')
  expect(messageIds()).toEqual(['message-turn-1'])
})

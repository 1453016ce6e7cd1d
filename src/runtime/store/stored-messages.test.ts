import type { DatabaseSync } from 'node:sqlite'
import { actionDigest, canonicalAction } from '../domain/approval.ts'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  approvalFixture,
  createRoom,
  openTempDatabase,
  sqliteStores,
  startTurn,
  toolCallFixture,
  turnFixture,
  type SqliteStores,
} from '../test-support/sqlite-stores.ts'
import { IntegrityMac } from './integrity-mac.ts'

// What the runtime said as codes (contracts/runtime-message.ts) is kept
// beside its English in a real SQLite file, and read back exactly; a code
// the store can no longer parse is dropped, never the row it belongs to.

const MAC = new IntegrityMac(Buffer.alloc(32, 5))
let db: DatabaseSync
let close: () => void
let stores: SqliteStores

beforeEach(() => {
  ;({ db, close } = openTempDatabase('assent-messages-'))
  stores = sqliteStores(db, { mac: MAC })
  createRoom(stores)
  startTurn(stores, turnFixture())
  stores.conversations.insertToolCall(toolCallFixture())
})
afterEach(() => close())

const summary = { code: 'summary.write', params: { bytes: 7, path: 'a.txt' } }
const reviewed = { code: 'review.writeInside' }
const escalated = { code: 'review.commands' }

describe('message codes in the store', () => {
  it("keeps an approval's summary, its reason and the reviewer's escalation reason as codes", () => {
    const approval = approvalFixture({ summaryMessage: summary })
    stores.approvals.open(approval)
    stores.approvals.escalate(approval, 'commands are decided by a person', 6_000, escalated)
    expect(stores.approvals.get(approval.id)).toMatchObject({
      summaryMessage: summary,
      escalationReason: 'commands are decided by a person',
      escalationMessage: escalated,
    })
    const decided = {
      ...approval,
      status: 'allowed' as const,
      decision: 'allow-once' as const,
      decidedBy: 'agent-review' as const,
      reason: 'a non-destructive write inside the workspace',
      reasonMessage: reviewed,
      decidedAt: 7_000,
    }
    stores.approvals.resolve(
      decided,
      {
        decision: 'allow-once',
        decidedBy: 'agent-review',
        reason: decided.reason,
        actionDigest: actionDigest(canonicalAction(decided)),
      },
      7_000,
    )
    expect(stores.approvals.get(approval.id)).toMatchObject({ reasonMessage: reviewed })
    expect(stores.approvals.listByRoom('room-1')[0]?.summaryMessage).toEqual(summary)
  })

  it('keeps no code where none was given', () => {
    stores.approvals.open(approvalFixture())
    const read = stores.approvals.get(approvalFixture().id)
    expect(read).not.toHaveProperty('summaryMessage')
    expect(read).not.toHaveProperty('reasonMessage')
    expect(read).not.toHaveProperty('escalationMessage')
  })

  it("keeps a message's code beside its text", () => {
    const said = {
      code: 'offline.report',
      params: { lines: [{ code: 'offline.done', params: { what: 'x' } }] },
    }
    stores.conversations.insertMessage({
      id: 'm-1',
      roomId: 'room-1',
      turnId: turnFixture().id,
      role: 'agent',
      text: 'What happened:\nx: done.',
      message: said,
      createdAt: 9_000,
    })
    const [, reply] = stores.conversations.listMessages('room-1')
    expect(reply).toMatchObject({ text: 'What happened:\nx: done.', message: said })
  })

  it('drops a stored code that no longer parses, and keeps the row and its English', () => {
    stores.approvals.open(approvalFixture({ summaryMessage: summary }))
    db.prepare('UPDATE approvals SET summary_message_json = ?').run('{"code":"Not A Code"}')
    const read = stores.approvals.get(approvalFixture().id)
    expect(read?.summary).toBe(approvalFixture().summary)
    expect(read).not.toHaveProperty('summaryMessage')
    db.prepare('UPDATE approvals SET summary_message_json = ?').run('{not json')
    expect(stores.approvals.get(approvalFixture().id)).not.toHaveProperty('summaryMessage')
  })
})

import type { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Question, QuestionsOutcome } from '../../contracts/input-request.ts'
import { Refusal } from '../domain/refusal.ts'
import { EventBus } from '../events/event-bus.ts'
import { SqliteAuditLog } from '../store/audit-log.ts'
import { IntegrityMac } from '../store/integrity-mac.ts'
import {
  createRoom,
  openTempDatabase,
  sqliteStores,
  startTurn,
  turnFixture,
  type SqliteStores,
} from '../test-support/sqlite-stores.ts'
import { InputRequestService, type InputTimers } from './input-request-service.ts'

const MAC = new IntegrityMac(Buffer.alloc(32, 9))
const PHASE_MS = 60_000
const QUESTION: Question = { id: 'q1', title: 'Which?', text: '', options: [], secret: false }

/** Timers the test fires itself, on a clock it moves itself. */
class ManualTimers implements InputTimers {
  now = 10_000
  private next = 0
  readonly armed = new Map<number, { at: number; fn: () => void }>()

  set(fn: () => void, ms: number): unknown {
    this.next += 1
    this.armed.set(this.next, { at: this.now + ms, fn })
    return this.next
  }

  clear(handle: unknown): void {
    this.armed.delete(handle as number)
  }

  /** Moves the clock to `at` and fires every timer due by then. */
  advanceTo(at: number): void {
    this.now = at
    for (const [handle, timer] of [...this.armed]) {
      if (timer.at > at) continue
      this.armed.delete(handle)
      timer.fn()
    }
  }
}

let db: DatabaseSync
let close: () => void
let audit: SqliteAuditLog
let stores: SqliteStores
let timers: ManualTimers
let service: InputRequestService
let errors: unknown[]

beforeEach(() => {
  ;({ db, close } = openTempDatabase('assent-inputs-'))
  audit = new SqliteAuditLog(db, { mac: MAC })
  stores = sqliteStores(db, { mac: MAC, audit })
  createRoom(stores)
  startTurn(stores, turnFixture())
  timers = new ManualTimers()
  errors = []
  let ids = 0
  service = new InputRequestService({
    requests: stores.inputs,
    events: new EventBus(),
    now: () => timers.now,
    roomExists: () => true,
    questionPhaseMs: PHASE_MS,
    timers,
    onError: (error) => errors.push(error),
    newId: () => `input-${(ids += 1)}`,
  })
})

afterEach(() => close())

function ask(blocking = false) {
  return service.askQuestions({
    roomId: 'room-1',
    turnId: 'turn-1',
    questions: [QUESTION],
    blocking,
  })
}

/** Whether the outcome has settled yet, without waiting for it. */
async function settledYet(outcome: Promise<QuestionsOutcome>): Promise<QuestionsOutcome | 'open'> {
  return Promise.race([
    outcome,
    new Promise<'open'>((resolve) => setImmediate(() => resolve('open'))),
  ])
}

const resolvedEvents = () => audit.list().filter((event) => event.type === 'input_resolved')

describe('InputRequestService: the runtime keeps the question timer', () => {
  it('stores the deadline: two phases after the question was asked', () => {
    const { request } = ask()
    expect(request.autoResolveAt).toBe(10_000 + 2 * PHASE_MS)
    expect(stores.inputs.get(request.id)?.autoResolveAt).toBe(10_000 + 2 * PHASE_MS)
  })

  it('answers an ordinary question with an empty answer at its deadline, audited as closed by the runtime', async () => {
    const { request, outcome } = ask()
    timers.advanceTo(request.autoResolveAt! - 1)
    expect(await settledYet(outcome)).toBe('open')
    timers.advanceTo(request.autoResolveAt!)
    await expect(outcome).resolves.toEqual({ status: 'auto-resolved' })
    expect(stores.inputs.get(request.id)).toMatchObject({
      status: 'auto-resolved',
      resolvedAt: request.autoResolveAt,
    })
    expect(resolvedEvents().map((event) => event.payload)).toEqual([
      expect.objectContaining({ action: 'auto-resolve', status: 'auto-resolved', by: 'runtime' }),
    ])
    expect(errors).toEqual([])
  })

  it('never arms a timer for a blocking question', async () => {
    const { request, outcome } = ask(true)
    expect(request.autoResolveAt).toBeNull()
    expect(timers.armed.size).toBe(0)
    timers.advanceTo(10_000 + 100 * PHASE_MS)
    expect(await settledYet(outcome)).toBe('open')
    expect(() => service.keepWaiting(request.id)).toThrow(
      expect.objectContaining({ code: 'blocking' }),
    )
  })

  it('starts the whole wait again when asked to keep waiting, stored and audited', async () => {
    const { request, outcome } = ask()
    timers.advanceTo(10_000 + PHASE_MS + 30_000)
    const moved = service.keepWaiting(request.id)
    expect(moved.autoResolveAt).toBe(timers.now + 2 * PHASE_MS)
    expect(stores.inputs.get(request.id)?.autoResolveAt).toBe(moved.autoResolveAt)
    const extended = audit.list().filter((event) => event.type === 'input_deadline_extended')
    expect(extended.map((event) => event.payload)).toEqual([
      expect.objectContaining({ autoResolveAt: moved.autoResolveAt }),
    ])
    timers.advanceTo(request.autoResolveAt!)
    expect(await settledYet(outcome)).toBe('open')
    expect(timers.armed.size).toBe(1)
    timers.advanceTo(moved.autoResolveAt!)
    await expect(outcome).resolves.toEqual({ status: 'auto-resolved' })
  })

  it('disarms the timer when someone answers first, so the answer stands alone', async () => {
    const { request, outcome } = ask()
    service.respond(request.id, { action: 'dismiss' }, 'workbench')
    await expect(outcome).resolves.toEqual({ status: 'dismissed' })
    expect(timers.armed.size).toBe(0)
    timers.advanceTo(request.autoResolveAt! + 1)
    expect(stores.inputs.get(request.id)?.status).toBe('dismissed')
    expect(resolvedEvents().map((event) => event.payload.by)).toEqual(['workbench'])
    expect(() => service.keepWaiting(request.id)).toThrow(
      expect.objectContaining({ code: 'not_pending' }),
    )
  })

  it('still takes an auto-resolve from the API before the deadline, and then stops its own timer', async () => {
    const { request, outcome } = ask()
    service.respond(request.id, { action: 'auto-resolve' }, 'workbench')
    await expect(outcome).resolves.toEqual({ status: 'auto-resolved' })
    expect(timers.armed.size).toBe(0)
    expect(resolvedEvents().map((event) => event.payload.by)).toEqual(['workbench'])
  })

  it('disarms every timer when the runtime closes', async () => {
    const { outcome } = ask()
    ask()
    service.abandonAll()
    expect(timers.armed.size).toBe(0)
    await expect(outcome).resolves.toEqual({ status: 'stale' })
  })

  it('refuses to move the deadline of a form, which waits for its server', () => {
    void service.requestForm('room-1', { message: 'Name?' }, { turnId: 'turn-1' })
    const [form] = service.list('room-1')
    expect(form?.autoResolveAt).toBeNull()
    expect(timers.armed.size).toBe(0)
    let refused: unknown
    try {
      service.keepWaiting(form?.id ?? '')
    } catch (error) {
      refused = error
    }
    expect(refused).toBeInstanceOf(Refusal)
    expect(refused).toMatchObject({ code: 'wrong_action' })
  })
})

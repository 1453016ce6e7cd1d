import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ConsentSessionPool, type SessionLease } from './consent-session-pool.ts'

/** A session as the pool sees it: an identity and what was left in it. */
interface TestSession {
  id: number
  /** 'dirty' from release until a clear finished. */
  state: 'new' | 'in-use' | 'dirty' | 'clean'
}

interface PendingClear {
  session: TestSession
  finish: (ok: boolean) => void
}

function harness(maxSessions: number, autoClear = false) {
  const sessions: TestSession[] = []
  const pending: PendingClear[] = []
  const diagnostics: string[] = []
  const pool = new ConsentSessionPool<TestSession>({
    maxSessions,
    create: () => {
      const session: TestSession = { id: sessions.length, state: 'new' }
      sessions.push(session)
      return session
    },
    clear: (session) => {
      session.state = 'dirty'
      if (autoClear) {
        session.state = 'clean'
        return Promise.resolve()
      }
      return new Promise<void>((resolve, reject) => {
        pending.push({
          session,
          finish: (ok) => {
            if (ok) {
              session.state = 'clean'
              resolve()
            } else reject(new Error('clearing failed'))
          },
        })
      })
    },
    onDiagnostic: (message) => diagnostics.push(message),
  })
  return { pool, sessions, pending, diagnostics }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('ConsentSessionPool', () => {
  it('does not grow with the number of prompts: one after another they share one session', async () => {
    const { pool, sessions } = harness(8, true)
    for (let prompt = 0; prompt < 1_000; prompt += 1) {
      const lease = await pool.lease()
      lease.release()
      await settle()
    }
    expect(sessions).toHaveLength(1)
    expect(pool.stats()).toEqual({ created: 1, idle: 1, leased: 0, clearing: 0, retired: 0 })
  })

  it('never hands one session to two live windows', async () => {
    const { pool } = harness(8, true)
    const leases = await Promise.all(Array.from({ length: 8 }, () => pool.lease()))
    expect(new Set(leases.map((lease) => lease.session)).size).toBe(8)
  })

  it('clears a session before leasing it again, and waits for the clearing when full', async () => {
    const { pool, pending } = harness(1)
    const first = await pool.lease()
    first.release()
    expect(first.session.state).toBe('dirty')
    let second: SessionLease<TestSession> | undefined
    const waiting = pool.lease().then((lease) => (second = lease))
    await settle()
    expect(second).toBeUndefined()
    pending[0]!.finish(true)
    await waiting
    expect(second?.session).toBe(first.session)
    expect(second?.session.state).toBe('clean')
  })

  it('refuses a lease when every session is held by a live window', async () => {
    const { pool } = harness(2, true)
    await pool.lease()
    await pool.lease()
    await expect(pool.lease()).rejects.toThrow(/no consent session is free/)
  })

  it('never leases again a session whose clearing failed', async () => {
    const { pool, pending, diagnostics } = harness(1)
    const first = await pool.lease()
    first.release()
    pending[0]!.finish(false)
    await settle()
    expect(pool.stats()).toMatchObject({ created: 1, idle: 0, retired: 1 })
    expect(diagnostics).toHaveLength(1)
    await expect(pool.lease()).rejects.toThrow(/no consent session is free/)
  })

  it('returns a session once however often its lease is released', async () => {
    const { pool } = harness(2, true)
    const lease = await pool.lease()
    lease.release()
    lease.release()
    await settle()
    expect(pool.stats()).toMatchObject({ idle: 1, leased: 0 })
    const [a, b] = await Promise.all([pool.lease(), pool.lease()])
    expect(a.session).not.toBe(b.session)
  })

  it('keeps its invariants over any interleaving of leases, releases and clearings', async () => {
    type Step =
      | { kind: 'lease' }
      | { kind: 'release'; pick: number }
      | { kind: 'clear'; pick: number; ok: boolean }
    // Clearing mostly succeeds, as it does in Electron; a failure retires
    // a session for good, so a run with many would only ever refuse.
    const clearSucceeds = fc.oneof(
      { weight: 5, arbitrary: fc.constant(true) },
      { weight: 1, arbitrary: fc.constant(false) },
    )
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.constant({ kind: 'lease' as const }),
      fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('clear' as const), pick: fc.nat(), ok: clearSucceeds }),
    )
    // Counted so the property cannot pass on runs that never reused a
    // session or never filled the pool.
    let reused = 0
    let refused = 0
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(step, { minLength: 10, maxLength: 60 }),
        async (max, steps) => {
          const { pool, sessions, pending } = harness(max)
          const live: Array<SessionLease<TestSession>> = []
          const retired = new Set<TestSession>()
          const violations: string[] = []
          // A lease may wait for a clearing; it is checked when it arrives.
          const onLeased = (lease: SessionLease<TestSession>) => {
            const { session } = lease
            if (!['new', 'clean'].includes(session.state)) {
              violations.push(`session ${session.id} leased while ${session.state}`)
            }
            if (retired.has(session)) violations.push(`retired session ${session.id} leased`)
            if (live.some((other) => other.session === session)) {
              violations.push(`session ${session.id} leased twice`)
            }
            if (session.state === 'clean') reused += 1
            session.state = 'in-use'
            live.push(lease)
          }
          const onRefused = () => {
            refused += 1
            const stats = pool.stats()
            if (stats.created !== max || stats.idle + stats.clearing !== 0) {
              violations.push(`refused with ${JSON.stringify(stats)}`)
            }
          }
          for (const current of steps) {
            if (current.kind === 'lease') {
              void pool.lease().then(onLeased, onRefused)
            } else if (current.kind === 'release' && live.length > 0) {
              live.splice(current.pick % live.length, 1)[0]!.release()
            } else if (current.kind === 'clear' && pending.length > 0) {
              const [clear] = pending.splice(current.pick % pending.length, 1)
              if (!current.ok) retired.add(clear!.session)
              clear!.finish(current.ok)
            }
            await settle()
            expect(violations).toEqual([])
            expect(sessions.length).toBeLessThanOrEqual(max)
            expect(pool.stats().leased).toBe(live.length)
          }
        },
      ),
      { numRuns: 300 },
    )
    expect({ reused: reused > 200, refused: refused > 20 }).toEqual({ reused: true, refused: true })
  })
})

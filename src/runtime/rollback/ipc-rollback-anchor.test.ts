import { describe, expect, it, vi } from 'vitest'
import { IpcRollbackAnchor } from './ipc-rollback-anchor.ts'

// The channel here is a list the test reads and answers from; the real
// channel (a forked runtime and main's keeper) is in tests/rollback-anchor.test.ts.
function channel(timeoutMs = 60_000) {
  const sent: Array<{ type: string; requestId: number; counter: number }> = []
  const anchor = new IpcRollbackAnchor({
    send: (message) => sent.push(message as (typeof sent)[number]),
    timeoutMs,
  })
  return { anchor, sent }
}

const outcome = (promise: Promise<void>) =>
  promise.then(
    () => 'advanced',
    (error: Error) => error.message,
  )

describe('IpcRollbackAnchor', () => {
  it('asks main with a strict request and resolves on the answer for that request', async () => {
    const { anchor, sent } = channel()
    const first = outcome(anchor.advance(3))
    const second = outcome(anchor.advance(4))
    expect(sent).toEqual([
      { type: 'anchor-advance', requestId: 1, counter: 3 },
      { type: 'anchor-advance', requestId: 2, counter: 4 },
    ])
    expect(anchor.receive({ type: 'anchor-advanced', requestId: 2, counter: 4 })).toBe(true)
    expect(anchor.receive({ type: 'anchor-refused', requestId: 1, error: 'keychain locked' })).toBe(
      true,
    )
    expect(await second).toBe('advanced')
    expect(await first).toBe('main could not advance the rollback anchor: keychain locked')
  })

  it('takes nothing for an answer that names another counter, another request, or is malformed', async () => {
    const { anchor } = channel(200)
    const waiting = outcome(anchor.advance(7))
    expect(anchor.receive({ type: 'anchor-advanced', requestId: 1, counter: 6 })).toBe(true)
    expect(anchor.receive({ type: 'anchor-advanced', requestId: 2, counter: 7 })).toBe(true)
    for (const malformed of [
      { type: 'anchor-advanced', requestId: 1, counter: 7, extra: 1 },
      { type: 'anchor-advanced', requestId: '1', counter: 7 },
      { type: 'anchor-refused', requestId: 1 },
      { type: 'ready', port: 1, instanceId: 'x' },
      null,
    ]) {
      expect(anchor.receive(malformed)).toBe(false)
    }
    expect(await waiting).toBe('main did not confirm the rollback anchor 7 in time')
  })

  it('gives up after the wait it was given, not the default one', async () => {
    // A fake clock: the wait is measured on it, never on the machine's.
    vi.useFakeTimers()
    try {
      const { anchor } = channel(50)
      const waiting = outcome(anchor.advance(1))
      await vi.advanceTimersByTimeAsync(50)
      expect(await Promise.race([waiting, Promise.resolve('still waiting')])).toBe(
        'main did not confirm the rollback anchor 1 in time',
      )
    } finally {
      vi.useRealTimers()
    }
  })

  it('fails at once when the channel to main is closed, and fails what was waiting when it closes', async () => {
    const closed = new IpcRollbackAnchor({
      send: () => {
        throw new Error('disconnected')
      },
    })
    expect(await outcome(closed.advance(1))).toBe('the channel to main is closed: disconnected')
    const { anchor } = channel()
    const waiting = outcome(anchor.advance(2))
    anchor.closeAll('the channel to main closed')
    expect(await waiting).toBe('the channel to main closed')
  })
})

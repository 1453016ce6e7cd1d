import { describe, expect, it } from 'vitest'
import { KeyedMutex } from './keyed-mutex.ts'

/** A promise the test settles by hand, so interleavings are decided here and
 *  not by timers. */
function deferred<T = void>() {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** Lets every already-queued continuation run. */
async function settle(): Promise<void> {
  for (let round = 0; round < 10; round += 1) await Promise.resolve()
}

describe('KeyedMutex', () => {
  it('runs work for one key strictly one after another, in call order, even across awaits', async () => {
    const mutex = new KeyedMutex()
    const log: string[] = []
    const firstGate = deferred()
    const first = mutex.run('room-a', async () => {
      log.push('first:start')
      await firstGate.promise
      log.push('first:end')
      return 1
    })
    const second = mutex.run('room-a', async () => {
      log.push('second:start')
      await settle()
      log.push('second:end')
      return 2
    })
    const third = mutex.run('room-a', () => {
      log.push('third')
      return 3
    })
    await settle()
    expect(log).toEqual(['first:start'])
    firstGate.resolve()
    expect(await Promise.all([first, second, third])).toEqual([1, 2, 3])
    expect(log).toEqual(['first:start', 'first:end', 'second:start', 'second:end', 'third'])
  })

  it('lets work for another key run while one key is held', async () => {
    const mutex = new KeyedMutex()
    const log: string[] = []
    const heldGate = deferred()
    const held = mutex.run('room-a', async () => {
      log.push('a:start')
      await heldGate.promise
      log.push('a:end')
    })
    const other = mutex.run('room-b', async () => {
      log.push('b:start')
      await settle()
      log.push('b:end')
      return 'b'
    })
    // room-b finishes while room-a is still waiting for its gate (were b
    // queued behind a, this would wait until the test's ceiling and fail).
    expect(await other).toBe('b')
    expect(log).toEqual(['a:start', 'b:start', 'b:end'])
    heldGate.resolve()
    await held
    expect(log.at(-1)).toBe('a:end')
  })

  it('hands a failure to its own caller and still runs the next work for that key', async () => {
    const mutex = new KeyedMutex()
    const failing = mutex.run('room-a', async () => {
      await settle()
      throw new Error('stale revision')
    })
    const next = mutex.run('room-a', () => 'ran')
    await expect(failing).rejects.toThrow('stale revision')
    expect(await next).toBe('ran')
  })

  it('does not start queued work for a key before the failing work before it has settled', async () => {
    const mutex = new KeyedMutex()
    const log: string[] = []
    const gate = deferred()
    const failing = mutex.run('room-a', async () => {
      log.push('failing:start')
      await gate.promise
      log.push('failing:throw')
      throw new Error('refused')
    })
    const next = mutex.run('room-a', () => log.push('next'))
    await settle()
    expect(log).toEqual(['failing:start'])
    gate.resolve()
    await expect(failing).rejects.toThrow('refused')
    await next
    expect(log).toEqual(['failing:start', 'failing:throw', 'next'])
  })
})

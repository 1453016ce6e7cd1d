import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  FIRST_SPARE_LATEST_MS,
  SPARE_PREPARE_DELAY_MS,
  SparePool,
  type WindowSize,
} from './spare-window.ts'

class FakeWindow {
  alive = true
  discarded = false
  readonly size: WindowSize
  constructor(size: WindowSize) {
    this.size = size
  }
  isAlive() {
    return this.alive && !this.discarded
  }
  discard() {
    this.discarded = true
  }
}

const SIZE = { width: 560, height: 680 }

function pool(mayPrepare?: () => boolean) {
  const prepared: FakeWindow[] = []
  const errors: unknown[] = []
  let fail = false
  const spares = new SparePool<FakeWindow>(
    async (size) => {
      if (fail) throw new Error('no browser')
      const window = new FakeWindow(size)
      prepared.push(window)
      return window
    },
    (error) => errors.push(error),
    mayPrepare ? { mayPrepare } : {},
  )
  return { spares, prepared, errors, failNext: (value: boolean) => (fail = value) }
}

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('SparePool', () => {
  it('hands out the prepared spare, then prepares the next one after a pause', async () => {
    const { spares, prepared } = pool()
    spares.warm(SIZE)
    expect(prepared).toHaveLength(1)
    const first = await spares.take(SIZE)
    expect(first).toBe(prepared[0])
    expect(prepared).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(SPARE_PREPARE_DELAY_MS)
    expect(prepared).toHaveLength(2)
    expect(await spares.take(SIZE)).toBe(prepared[1])
  })

  it('says when the next spare is ready', async () => {
    const { spares, prepared } = pool()
    spares.warm(SIZE)
    await spares.take(SIZE)
    const ready = spares.spareReady()
    await vi.advanceTimersByTimeAsync(SPARE_PREPARE_DELAY_MS * 2)
    await ready
    expect(prepared).toHaveLength(2)
  })

  it('never hands out a window twice, even to requests at the same moment', async () => {
    const { spares } = pool()
    spares.warm(SIZE)
    const [a, b] = await Promise.all([spares.take(SIZE), spares.take(SIZE)])
    expect(a).not.toBe(b)
  })

  it('closes a spare that crashed, rather than leave it hidden, and prepares a fresh window', async () => {
    const { spares, prepared } = pool()
    spares.warm(SIZE)
    prepared[0]!.alive = false
    const window = await spares.take(SIZE)
    expect(window).toBe(prepared[1])
    expect(window.isAlive()).toBe(true)
    // A hidden window left open keeps its session leased and the app alive.
    expect(prepared[0]!.discarded).toBe(true)
  })

  it('discards a spare of another size', async () => {
    const { spares, prepared } = pool()
    spares.warm({ width: 100, height: 100 })
    const window = await spares.take(SIZE)
    expect(window.size).toEqual(SIZE)
    await vi.advanceTimersByTimeAsync(0)
    expect(prepared[0]!.discarded).toBe(true)
  })

  it('reports a spare that failed to prepare, and prepares when asked', async () => {
    const { spares, prepared, errors, failNext } = pool()
    failNext(true)
    spares.warm(SIZE)
    await vi.advanceTimersByTimeAsync(0)
    expect(errors).toHaveLength(1)
    failNext(false)
    expect(await spares.take(SIZE)).toBe(prepared[0])
  })

  it('discards the spare on request, and after close prepares nothing and opens nothing', async () => {
    const { spares, prepared } = pool()
    spares.warm(SIZE)
    spares.discardSpare()
    await vi.advanceTimersByTimeAsync(0)
    expect(prepared[0]!.discarded).toBe(true)
    await spares.take(SIZE)
    spares.close()
    await vi.advanceTimersByTimeAsync(SPARE_PREPARE_DELAY_MS * 2)
    expect(prepared).toHaveLength(2)
    await expect(spares.take(SIZE)).rejects.toThrow(/closing/)
  })

  it('prepares no spare after discardSpare, not even behind a prompt, until warmed again', async () => {
    const { spares, prepared } = pool()
    spares.warm(SIZE)
    await spares.take(SIZE)
    spares.discardSpare()
    await vi.advanceTimersByTimeAsync(SPARE_PREPARE_DELAY_MS * 2)
    expect(prepared).toHaveLength(1)
    // A prompt after the workbench closed still gets its window, alone.
    await spares.take(SIZE)
    spares.idle()
    await vi.advanceTimersByTimeAsync(SPARE_PREPARE_DELAY_MS * 2)
    expect(prepared).toHaveLength(2)
    expect(spares.holdsSpare).toBe(false)
    spares.warm(SIZE)
    expect(prepared).toHaveLength(3)
  })
})

describe('SparePool while a window is being decided in', () => {
  it('holds the next spare back until the host says it may prepare, then prepares it', async () => {
    let deciding = false
    const { spares, prepared } = pool(() => !deciding)
    spares.warm(SIZE)
    await spares.take(SIZE)
    deciding = true
    await vi.advanceTimersByTimeAsync(SPARE_PREPARE_DELAY_MS * 4)
    expect(prepared).toHaveLength(1)
    spares.idle()
    expect(prepared).toHaveLength(1)

    deciding = false
    spares.idle()
    expect(prepared).toHaveLength(2)
    spares.idle()
    expect(prepared).toHaveLength(2)
  })

  it('still opens a window at once for a prompt that finds no spare', async () => {
    const { spares, prepared } = pool(() => false)
    const window = await spares.take(SIZE)
    expect(prepared).toEqual([window])
  })
})

describe('SparePool: the first spare, once the workbench is quiet', () => {
  it('prepares it only after a quiet pause, and each workbench call starts the pause again', async () => {
    const { spares, prepared } = pool()
    spares.warmWhenQuiet(SIZE)
    expect(spares.holdsSpare).toBe(false)
    await vi.advanceTimersByTimeAsync(SPARE_PREPARE_DELAY_MS - 1)
    spares.busy()
    await vi.advanceTimersByTimeAsync(SPARE_PREPARE_DELAY_MS - 1)
    expect(prepared).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(prepared).toHaveLength(1)
    expect(await spares.take(SIZE)).toBe(prepared[0])
  })

  it('waits while the workbench window opens, and a pause after it', async () => {
    const { spares, prepared } = pool()
    spares.warmWhenQuiet(SIZE)
    let opened: (value: string) => void = () => undefined
    const opening = spares.busyWhile(new Promise<string>((resolve) => (opened = resolve)))
    await vi.advanceTimersByTimeAsync(SPARE_PREPARE_DELAY_MS * 3)
    expect(prepared).toHaveLength(0)
    opened('workbench')
    await expect(opening).resolves.toBe('workbench')
    await vi.advanceTimersByTimeAsync(SPARE_PREPARE_DELAY_MS - 1)
    expect(prepared).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(prepared).toHaveLength(1)
  })

  it('counts a window that failed to open as settled, and passes its error on', async () => {
    const { spares, prepared } = pool()
    spares.warmWhenQuiet(SIZE)
    await expect(spares.busyWhile(Promise.reject(new Error('no page')))).rejects.toThrow('no page')
    await vi.advanceTimersByTimeAsync(SPARE_PREPARE_DELAY_MS)
    expect(prepared).toHaveLength(1)
  })

  it.each([
    [
      'calls that never pause',
      (spares: SparePool<FakeWindow>) => setInterval(() => spares.busy(), 100),
    ],
    [
      'a window that never opens',
      (spares: SparePool<FakeWindow>) => void spares.busyWhile(new Promise(() => undefined)),
    ],
  ])(
    'prepares it at the latest FIRST_SPARE_LATEST_MS after it was asked, through %s',
    async (_, keepBusy) => {
      const { spares, prepared } = pool()
      spares.warmWhenQuiet(SIZE)
      const timer = keepBusy(spares)
      await vi.advanceTimersByTimeAsync(FIRST_SPARE_LATEST_MS - 100)
      expect(prepared).toHaveLength(0)
      await vi.advanceTimersByTimeAsync(SPARE_PREPARE_DELAY_MS)
      expect(prepared).toHaveLength(1)
      if (timer) clearInterval(timer)
    },
  )

  it('lets spareReady wait for it', async () => {
    const { spares, prepared } = pool()
    spares.warmWhenQuiet(SIZE)
    let ready = false
    void spares.spareReady().then(() => (ready = true))
    await vi.advanceTimersByTimeAsync(SPARE_PREPARE_DELAY_MS * 3)
    expect(prepared).toHaveLength(1)
    expect(ready).toBe(true)
  })

  it('opens its own window for a prompt that comes first, and only one spare behind it', async () => {
    const { spares, prepared } = pool()
    spares.warmWhenQuiet(SIZE)
    const window = await spares.take(SIZE)
    expect(prepared).toEqual([window])
    await vi.advanceTimersByTimeAsync(FIRST_SPARE_LATEST_MS * 2)
    expect(prepared).toHaveLength(2)
    expect(spares.holdsSpare).toBe(true)
  })

  it('prepares at once when warmed meanwhile, and nothing once discarded or closed', async () => {
    const warmed = pool()
    warmed.spares.warmWhenQuiet(SIZE)
    warmed.spares.warm(SIZE)
    expect(warmed.prepared).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(FIRST_SPARE_LATEST_MS * 2)
    expect(warmed.prepared).toHaveLength(1)

    for (const end of ['discardSpare', 'close'] as const) {
      const { spares, prepared } = pool()
      spares.warmWhenQuiet(SIZE)
      spares[end]()
      spares.busy()
      await vi.advanceTimersByTimeAsync(FIRST_SPARE_LATEST_MS * 2)
      expect(prepared).toHaveLength(0)
    }
  })

  it('holds it back while a window is being decided in, until the host says it may prepare', async () => {
    let deciding = true
    const { spares, prepared } = pool(() => !deciding)
    spares.warmWhenQuiet(SIZE)
    await vi.advanceTimersByTimeAsync(FIRST_SPARE_LATEST_MS * 2)
    expect(prepared).toHaveLength(0)
    deciding = false
    spares.idle()
    expect(prepared).toHaveLength(1)
  })
})

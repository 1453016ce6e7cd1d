export interface WindowSize {
  width: number
  height: number
}

/** A protected window prepared for no prompt yet: hidden, unfocused, its
 *  own session with the consent page and preload loaded. */
export interface SpareCandidate {
  /** False once it closed or its page went away: never hand it out then. */
  isAlive(): boolean
  /** Closes a window nobody claimed. */
  discard(): void
}

/** How long after a window is handed out the next one starts preparing, so
 *  the two do not compete for the CPU while the person's window renders. */
export const SPARE_PREPARE_DELAY_MS = 500

/** `warmWhenQuiet` prepares its spare this long after it was asked at the
 *  latest, however busy the workbench stays. */
export const FIRST_SPARE_LATEST_MS = 5_000

/** When the first spare is prepared (SparePool.warmWhenQuiet): what a
 *  host's factory hands its host. */
export interface SpareTiming {
  warmWhenQuiet(size: WindowSize): void
  busy(): void
  busyWhile<T>(work: Promise<T>): Promise<T>
}

/**
 * Keeps one protected window prepared ahead, so a consent request only
 * binds it to its prompt and delivers the view: the cost of a new browser
 * process, session and page is paid before anyone waits for it.
 *
 * What makes this safe: a prepared window has shown nothing and holds no
 * prompt, so nothing can be decided in it (the host refuses decisions from
 * an unclaimed window); each one is handed out once and never comes back;
 * a spare that closed or crashed is closed, never shown.
 */
export class SparePool<W extends SpareCandidate> implements SpareTiming {
  private readonly prepare: (size: WindowSize) => Promise<W>
  private readonly onError: (error: unknown) => void
  private readonly mayPrepare: () => boolean
  private spare: { key: string; window: Promise<W> } | undefined
  private timer: ReturnType<typeof setTimeout> | undefined
  /** The size of a spare held back by `mayPrepare`, prepared on `idle()`. */
  private deferred: WindowSize | undefined
  private closed = false
  /** Set by `discardSpare`: no spare is prepared behind a `take` or on
   *  `idle()` until the host asks for one again with `warm`. */
  private dormant = false
  /** While `warmWhenQuiet` waits: its size, and when it prepares at the
   *  latest. */
  private quiet: { size: WindowSize; latestAt: number } | undefined
  /** Work under way that `busyWhile` was given. */
  private busyWork = 0

  /** `mayPrepare` says whether a spare may be prepared now; when it says no
   *  (a window the person is deciding in is open, and preparing another
   *  could show or take focus), the next spare waits for `idle()`. */
  constructor(
    prepare: (size: WindowSize) => Promise<W>,
    onError: (error: unknown) => void,
    options: { mayPrepare?: () => boolean } = {},
  ) {
    this.prepare = prepare
    this.onError = onError
    this.mayPrepare = options.mayPrepare ?? (() => true)
  }

  /** Whether a spare is prepared or being prepared. */
  get holdsSpare(): boolean {
    return this.spare !== undefined
  }

  /** The spare, prepared or on its way, if there is one. */
  spareWindow(): Promise<W> | undefined {
    return this.spare?.window
  }

  /** Prepares a spare held back until now, if the host may prepare one. */
  idle(): void {
    const size = this.deferred
    if (size === undefined || this.closed || this.dormant || !this.mayPrepare()) return
    this.deferred = undefined
    this.warm(size)
  }

  /** The spare when it is ready, alive and of this size; otherwise a window
   *  prepared now. Either way the next spare is prepared behind it. */
  async take(size: WindowSize): Promise<W> {
    if (this.closed) throw new Error('no protected window can open: the host is closing')
    const key = sizeKey(size)
    const spare = this.spare
    this.spare = undefined
    let window: W | undefined
    if (spare?.key === key) {
      // A spare that failed to prepare was reported when it failed.
      window = await spare.window.catch(() => undefined)
      if (window && !window.isAlive()) {
        // Closed for good, not merely dropped: a crashed spare left hidden
        // would keep its session leased and the app from quitting.
        window.discard()
        window = undefined
      }
    } else if (spare) {
      void spare.window.then(
        (stale) => stale.discard(),
        () => undefined,
      )
    }
    window ??= await this.prepare(size)
    this.warmLater(size)
    return window
  }

  /** Prepares a spare of `size` now, unless there is one; after
   *  `discardSpare`, spares are prepared again from here on. */
  warm(size: WindowSize): void {
    if (this.closed) return
    this.dormant = false
    this.cancelQuiet()
    if (this.spare) return
    const window = this.prepare(size)
    const entry = { key: sizeKey(size), window }
    this.spare = entry
    window.catch((error: unknown) => {
      if (this.spare === entry) this.spare = undefined
      // A spare cut short by the host closing is no news.
      if (!this.closed) this.onError(error)
    })
  }

  /**
   * Prepares a spare once the host has been quiet (no `busy()`) for
   * SPARE_PREPARE_DELAY_MS, and FIRST_SPARE_LATEST_MS after this call at
   * the latest. For the first spare at the host's start: preparing it is a
   * browser process, a session and a page, which would otherwise compete
   * for the CPU with the workbench's own window, page and first view
   * (docs/benchmarks-history.md, "2026-12-02 night: the first room"). A
   * prompt that comes sooner prepares its own window, as without a spare.
   */
  warmWhenQuiet(size: WindowSize): void {
    if (this.closed || this.spare) return
    this.dormant = false
    this.quiet = { size, latestAt: Date.now() + FIRST_SPARE_LATEST_MS }
    this.armQuietTimer()
  }

  /** The workbench asked main for something: a spare `warmWhenQuiet`
   *  waits for waits longer. */
  busy(): void {
    if (this.quiet !== undefined) this.armQuietTimer()
  }

  /** `work` (the workbench's window opening) counts as busy until it
   *  settles, and the quiet wait starts again from then. */
  async busyWhile<T>(work: Promise<T>): Promise<T> {
    this.busyWork += 1
    try {
      return await work
    } finally {
      this.busyWork -= 1
      this.busy()
    }
  }

  private armQuietTimer(): void {
    const quiet = this.quiet
    if (quiet === undefined) return
    if (this.timer) clearTimeout(this.timer)
    const delay = Math.min(SPARE_PREPARE_DELAY_MS, Math.max(0, quiet.latestAt - Date.now()))
    this.timer = setTimeout(() => {
      this.timer = undefined
      if (this.busyWork > 0 && Date.now() < quiet.latestAt) {
        this.armQuietTimer()
        return
      }
      this.quiet = undefined
      if (this.dormant || this.closed) return
      if (this.mayPrepare()) this.warm(quiet.size)
      else this.deferred = quiet.size
    }, delay)
    this.timer.unref?.()
  }

  /** Resolves when the spare (the one there, or the one planned after a
   *  `take`) is prepared, or failed; at once when there is none to wait for. */
  async spareReady(): Promise<void> {
    if (this.timer) {
      await new Promise((resolve) => setTimeout(resolve, SPARE_PREPARE_DELAY_MS))
      return this.spareReady()
    }
    await this.spare?.window.catch(() => undefined)
  }

  /** Discards the spare and any planned one, and prepares no other until
   *  the next `warm`: the next `take` prepares its own window, and none
   *  behind it. */
  discardSpare(): void {
    this.dormant = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    this.quiet = undefined
    this.deferred = undefined
    const spare = this.spare
    this.spare = undefined
    void spare?.window.then(
      (window) => window.discard(),
      () => undefined,
    )
  }

  /** Discards the spare and prepares no other, for good. */
  close(): void {
    this.closed = true
    this.discardSpare()
  }

  /** A quiet wait is over: `warm` prepares now, or `take` prepares one
   *  behind the window it hands out. */
  private cancelQuiet(): void {
    if (this.quiet === undefined) return
    this.quiet = undefined
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
  }

  private warmLater(size: WindowSize): void {
    if (this.dormant) return
    this.quiet = undefined
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.timer = undefined
      if (this.mayPrepare()) this.warm(size)
      else this.deferred = size
    }, SPARE_PREPARE_DELAY_MS)
    this.timer.unref?.()
  }
}

function sizeKey(size: WindowSize): string {
  return `${size.width}x${size.height}`
}

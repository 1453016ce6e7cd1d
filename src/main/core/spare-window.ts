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

/**
 * Keeps one protected window prepared ahead, so a consent request only
 * binds it to its prompt and delivers the view: the cost of a new browser
 * process, session and page is paid before anyone waits for it.
 *
 * What makes this safe: a prepared window has shown nothing and holds no
 * prompt, so nothing can be decided in it (the host refuses decisions from
 * an unclaimed window); each one is handed out once and never comes back;
 * a spare that closed or crashed is dropped, never shown.
 */
export class SparePool<W extends SpareCandidate> {
  private readonly prepare: (size: WindowSize) => Promise<W>
  private readonly onError: (error: unknown) => void
  private spare: { key: string; window: Promise<W> } | undefined
  private timer: ReturnType<typeof setTimeout> | undefined
  private closed = false

  constructor(prepare: (size: WindowSize) => Promise<W>, onError: (error: unknown) => void) {
    this.prepare = prepare
    this.onError = onError
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
      if (window && !window.isAlive()) window = undefined
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

  /** Prepares a spare of `size` now, unless there is one. */
  warm(size: WindowSize): void {
    if (this.closed || this.spare) return
    const window = this.prepare(size)
    const entry = { key: sizeKey(size), window }
    this.spare = entry
    window.catch((error: unknown) => {
      if (this.spare === entry) this.spare = undefined
      // A spare cut short by the host closing is no news.
      if (!this.closed) this.onError(error)
    })
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

  /** Discards the spare and any planned one; the next `take` prepares
   *  afresh. */
  discardSpare(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
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

  private warmLater(size: WindowSize): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.warm(size)
    }, SPARE_PREPARE_DELAY_MS)
    this.timer.unref?.()
  }
}

function sizeKey(size: WindowSize): string {
  return `${size.width}x${size.height}`
}

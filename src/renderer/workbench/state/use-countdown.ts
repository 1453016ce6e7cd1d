import { useEffect, useState } from 'react'

export interface Countdown {
  /** Milliseconds left while the countdown shows (0 once the deadline has
   *  passed and the runtime's answer is on its way), `undefined` while
   *  silent or when there is no deadline. */
  visibleRemainingMs: number | undefined
}

/**
 * The countdown of an ordinary question's card, to the runtime's own
 * deadline (`autoResolveAt`): the runtime keeps the timer and closes the
 * question itself, so the card only shows the last `countdownMs` of the
 * wait, ticking each second, and never answers on its own. Off (`deadline:
 * null`) for blocking questions, which never time out, and for forms.
 */
export function useCountdown(options: { deadline: number | null; countdownMs: number }): Countdown {
  const { deadline, countdownMs } = options
  const [now, setNow] = useState(() => Date.now())

  useEffect(() => {
    if (deadline === null) return
    const tick = setInterval(() => {
      const at = Date.now()
      setNow(at)
      if (at >= deadline) clearInterval(tick)
    }, 1_000)
    return () => clearInterval(tick)
  }, [deadline])

  if (deadline === null) return { visibleRemainingMs: undefined }
  const remaining = deadline - now
  return { visibleRemainingMs: remaining <= countdownMs ? Math.max(0, remaining) : undefined }
}

/** `1m 05s`: minutes and zero-padded seconds, rounded up so the display
 *  reaches `0m 00s` only when time is really up. */
export function formatCountdown(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1_000))
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`
}

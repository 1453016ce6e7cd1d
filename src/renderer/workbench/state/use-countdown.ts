import { useCallback, useEffect, useRef, useState } from 'react'

/** An ordinary question waits this long silently… */
export const QUESTION_SILENT_MS = 60_000
/** …then this long with a visible countdown, then resolves with an empty answer. */
export const QUESTION_COUNTDOWN_MS = 60_000

export interface QuestionTiming {
  silentMs: number
  countdownMs: number
}

export const DEFAULT_QUESTION_TIMING: QuestionTiming = {
  silentMs: QUESTION_SILENT_MS,
  countdownMs: QUESTION_COUNTDOWN_MS,
}

export interface Countdown {
  /** Milliseconds left while the countdown shows, `undefined` while silent
   *  (or when the countdown is off). */
  visibleRemainingMs: number | undefined
  /** Any interaction with the card starts the whole wait again. */
  restart: () => void
}

/**
 * The lifetime of an ordinary question's card: silent, then a countdown
 * ticking each second, then `onExpire` once. Off (`enabled: false`) for
 * blocking questions, which never time out, and for closed cards.
 */
export function useCountdown(options: {
  enabled: boolean
  timing: QuestionTiming
  onExpire: () => void
}): Countdown {
  const { enabled, timing } = options
  const total = timing.silentMs + timing.countdownMs
  const [deadline, setDeadline] = useState(() => Date.now() + total)
  const [now, setNow] = useState(() => Date.now())
  const [expired, setExpired] = useState(false)
  const deadlineRef = useRef(deadline)
  const onExpire = useRef(options.onExpire)
  useEffect(() => {
    onExpire.current = options.onExpire
  })

  useEffect(() => {
    if (!enabled || expired) return
    const tick = setInterval(() => {
      const at = Date.now()
      setNow(at)
      if (at < deadlineRef.current) return
      clearInterval(tick)
      setExpired(true)
      onExpire.current()
    }, 1_000)
    return () => clearInterval(tick)
  }, [enabled, expired])

  const restart = useCallback(() => {
    const at = Date.now()
    deadlineRef.current = at + total
    setDeadline(at + total)
    setNow(at)
  }, [total])

  const remaining = deadline - now
  const visible = enabled && !expired && remaining <= timing.countdownMs
  return { visibleRemainingMs: visible ? Math.max(0, remaining) : undefined, restart }
}

/** `1m 05s`: minutes and zero-padded seconds, rounded up so the display
 *  reaches `0m 00s` only when time is really up. */
export function formatCountdown(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1_000))
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`
}

import { useEffect, useState } from 'react'

/** Below this, the time left is shown as urgent. */
export const EXPIRY_WARNING_MS = 60_000

/**
 * Milliseconds until `deadline` (the runtime's `expiresAt`), ticking each
 * second while the card is on screen; 0 once it has passed. The runtime
 * decides expiry, never this clock: at 0 the card waits for its event.
 */
export function useTimeLeft(deadline: number, now: () => number = Date.now): number {
  const [at, setAt] = useState(now)
  useEffect(() => {
    const tick = setInterval(() => setAt(now()), 1_000)
    return () => clearInterval(tick)
  }, [now])
  return Math.max(0, deadline - at)
}

/** `4:05`, `1:02:09`: minutes (and hours) and padded seconds, rounded up
 *  so it reads `0:00` only when the time is really up. */
export function formatTimeLeft(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1_000))
  const hours = Math.floor(total / 3_600)
  const minutes = Math.floor((total % 3_600) / 60)
  const seconds = String(total % 60).padStart(2, '0')
  return hours > 0
    ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}`
    : `${minutes}:${seconds}`
}

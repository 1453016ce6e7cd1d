/**
 * How long the tests and the smoke scenario wait, in one place.
 *
 * Every figure here is a ceiling, never an expected duration: a wait ends as
 * soon as the event it waits for happens (the runtime's `ready` message, a
 * selector, a file), and the ceiling only decides how long a hang takes to
 * be reported. They are generous because the machines that run the suite
 * are small and shared (two cores at a load average of 15–30 is normal);
 * a ceiling that is too short turns a slow machine into a red build.
 *
 * One setting scales them all: `ASSENT_TIME_SCALE` (a number from 1 to 20,
 * default 1), e.g. `ASSENT_TIME_SCALE=3 npm test` on a machine that also
 * runs other suites. Nothing else in the tests hard-codes a ceiling that a
 * busy machine could reach.
 */

export const TIME_SCALE_VARIABLE = 'ASSENT_TIME_SCALE'
const MAX_TIME_SCALE = 20

/** Reads the factor strictly: anything but a plain number in [1, 20] is an
 *  error naming the variable, so a typo cannot silently shorten a ceiling. */
export function parseTimeScale(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 1
  const factor = Number(value)
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || factor < 1 || factor > MAX_TIME_SCALE) {
    throw new Error(
      `${TIME_SCALE_VARIABLE} must be a number from 1 to ${MAX_TIME_SCALE}, not ${JSON.stringify(value)}`,
    )
  }
  return factor
}

export const TIME_SCALE = parseTimeScale(process.env[TIME_SCALE_VARIABLE])

/** A ceiling in milliseconds, scaled by ASSENT_TIME_SCALE. */
export function scaledMs(ms: number): number {
  return Math.round(ms * TIME_SCALE)
}

/** A spawned runtime's `ready` message (it loads its TypeScript sources,
 *  opens SQLite and binds a port; at load 30 that has taken over 15 s). */
export const RUNTIME_READY_TIMEOUT_MS = scaledMs(90_000)

/** `waitFor` and browser waits for state reached asynchronously (a card, a
 *  file, a decision) when the caller names no ceiling of its own. */
export const WAIT_TIMEOUT_MS = scaledMs(30_000)

/** One vitest test: must hold a runtime start plus the test's own work. */
export const TEST_TIMEOUT_MS = scaledMs(120_000)

/** One vitest hook (`beforeAll` often starts a runtime or a browser). */
export const HOOK_TIMEOUT_MS = scaledMs(180_000)

/** One smoke case (Playwright Test's per-test timeout). */
export const SMOKE_CASE_TIMEOUT_MS = scaledMs(180_000)

/** Starting a smoke host (Chromium or Electron, and the runtime) and its
 *  closing checks (audit export, cleanup, `assent audit verify`). */
export const SMOKE_HOST_TIMEOUT_MS = scaledMs(300_000)

/** A whole smoke run driven from a vitest test (build, host, every case). */
export const SMOKE_RUN_TIMEOUT_MS = scaledMs(900_000)

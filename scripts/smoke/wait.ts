import { WAIT_TIMEOUT_MS } from '../test-timing.ts'

/** Polls until `check` returns a value, for state reached asynchronously.
 *  The ceiling only bounds a hang (scripts/test-timing.ts). */
export async function waitFor<T>(
  check: () => Promise<T | undefined> | T | undefined,
  what: string,
  timeoutMs = WAIT_TIMEOUT_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${timeoutMs} ms)`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

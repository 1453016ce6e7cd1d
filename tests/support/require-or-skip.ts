import { SKIP_REASON_PREFIX } from '../../scripts/skip-report.ts'

/**
 * Whether a test that needs a part of the machine (a browser, a keyring) may
 * run. With ASSENT_REQUIRE_ALL=1, as in CI, a missing part fails the test
 * file with a message naming the fix; otherwise the caller skips and the
 * reason is printed, so a skip is never silent.
 *
 * @param missing why the part is unavailable, or undefined when it is there
 * @param fix what to do about it, e.g. "install it with `apt-get install chromium`"
 */
export function requireOrSkip(part: string, missing: string | undefined, fix: string): boolean {
  if (missing === undefined) return true
  const message = `${part} is not available (${missing}); ${fix}`
  if (process.env.ASSENT_REQUIRE_ALL === '1') {
    throw new Error(`${message}. ASSENT_REQUIRE_ALL=1 forbids skipping this test.`)
  }
  // The skip report names this reason beside each test of the file.
  console.warn(`${SKIP_REASON_PREFIX}${message}`)
  return false
}

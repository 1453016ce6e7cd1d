import { probeSandbox } from '../../src/runtime/sandbox/sandbox-probe.ts'
import { requireOrSkip } from './require-or-skip.ts'

/** Whether bubblewrap can contain a command here, for the tests that need
 *  the real sandbox; a test file skips without it (and says why), and
 *  fails under ASSENT_REQUIRE_ALL=1. */
export async function bubblewrapRequired(): Promise<boolean> {
  const probe = await probeSandbox()
  return requireOrSkip(
    'bubblewrap',
    probe.available ? undefined : probe.missing,
    'install it with `apt-get install bubblewrap`',
  )
}

import { WAIT_TIMEOUT_MS } from '../../scripts/test-timing.ts'

/**
 * Vitest setup (every file): in the DOM tests, Testing Library's `waitFor`
 * and `findBy*` give up after 1 s by default, which a busy machine reaches
 * while nothing is wrong. They wait for the event as before; only the
 * ceiling that reports a hang is the shared one (scripts/test-timing.ts).
 * Node-environment files skip the import.
 */
if (typeof document !== 'undefined') {
  const { configure } = await import('@testing-library/dom')
  configure({ asyncUtilTimeout: WAIT_TIMEOUT_MS })
}

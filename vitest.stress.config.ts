import { defineConfig } from 'vitest/config'
import base from './vitest.config.ts'

/**
 * `npm run test:stress`: the full-count runs of the crash, load and fuzz
 * tests, and the memory soak, which has no short form (a few thousand
 * decisions cannot tell bounded caches filling from a leak), so it lives
 * outside `npm test`'s files instead of being skipped there.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // Replaces the base list (merging would add to it).
    include: [
      'tests/crash-consistency.test.ts',
      'tests/load.test.ts',
      'tests/fuzz-http.test.ts',
      'tests/memory-soak.stress.ts',
    ],
  },
})

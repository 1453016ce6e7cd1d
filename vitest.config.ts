import { defineConfig } from 'vitest/config'
import { HOOK_TIMEOUT_MS, TEST_TIMEOUT_MS } from './scripts/test-timing.ts'

export default defineConfig({
  test: {
    include: ['src/**/*.test.{ts,tsx}', 'scripts/**/*.test.ts', 'tests/**/*.test.ts'],
    environment: 'node',
    // Ceilings, not expectations: generous for shared, busy machines and
    // scaled by ASSENT_TIME_SCALE, like every wait in the tests.
    testTimeout: TEST_TIMEOUT_MS,
    hookTimeout: HOOK_TIMEOUT_MS,
    teardownTimeout: HOOK_TIMEOUT_MS,
    // Cross-process tests spawn runtimes and browsers; two cores cannot carry
    // many of them at once without turning timeouts into flakes.
    maxWorkers: 2,
    // Browser tests load the built consent page and preloads; this builds them
    // once per run when out/ is missing or older than its sources.
    globalSetup: ['tests/support/build-once.ts'],
    setupFiles: ['tests/support/dom-wait-ceiling.ts'],
    // Names every test that did not run, just before vitest's summary, and
    // fails the run for one under ASSENT_REQUIRE_ALL=1 (scripts/skip-report.ts).
    reporters: ['./scripts/skip-report.ts', 'default'],
  },
})

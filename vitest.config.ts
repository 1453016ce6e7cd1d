import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.{ts,tsx}', 'scripts/**/*.test.ts', 'tests/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Cross-process tests spawn runtimes and browsers; two cores cannot carry
    // many of them at once without turning timeouts into flakes.
    maxWorkers: 2,
    // Browser tests load the built consent page and preloads; this builds them
    // once per run when out/ is missing or older than its sources.
    globalSetup: ['tests/support/build-once.ts'],
  },
})

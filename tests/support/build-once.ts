import { ensureBuilt } from '../../scripts/build-freshness.ts'

/**
 * Vitest global setup: builds the pages and preloads the browser tests load
 * once per run, when they are missing or older than their sources. Tests
 * themselves never build.
 */
export default function setup(): void {
  ensureBuilt((line) => console.log(`build-once: ${line}`))
}

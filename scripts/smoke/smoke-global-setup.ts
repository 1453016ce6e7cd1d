import { mkdirSync } from 'node:fs'
import { ensureBuilt } from '../build-freshness.ts'
import { EVIDENCE_VARIABLE } from './smoke-settings.ts'

/**
 * Playwright Test's global setup for the smoke scenario, once per run before
 * any host starts: makes the evidence folder (checked when the config was
 * loaded, smoke-settings.ts), then builds the app when its build is missing
 * or older than its sources (the hosts load the built pages and preloads).
 */
export default function globalSetup(): void {
  const evidence = process.env[EVIDENCE_VARIABLE]
  if (!evidence) throw new Error(`${EVIDENCE_VARIABLE} is not set (playwright.config.ts sets it)`)
  mkdirSync(evidence, { recursive: true })
  ensureBuilt((line) => console.log(`smoke: ${line}`))
}

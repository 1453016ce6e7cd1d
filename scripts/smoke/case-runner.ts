import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { SmokeDriver } from './drivers/smoke-driver.ts'
import { pngSize } from './png.ts'
import type { ReportWriter } from './report-writer.ts'
import type { Screenshot, SmokeCase } from './report-schema.ts'

/** A failed assertion: stops its case, which is recorded as failed. */
export class AssertionFailed extends Error {}

export interface CaseContext {
  driver: SmokeDriver
  /** Shared between cases, e.g. the room the first case created. */
  state: Record<string, unknown>
  /** Records an assertion a reviewer can read; a false one ends the case. */
  check(name: string, ok: boolean, detail?: string): void
  screenshot(page: Page, file: string, caption: string): Promise<void>
}

export interface CaseDefinition {
  id: string
  title: string
  run(context: CaseContext): Promise<void>
}

export interface CaseResult {
  entry: SmokeCase
  line: string
}

/** Runs one case, recording its assertions and screenshots even when it
 *  throws, so a failure still leaves evidence. */
export async function runCase(
  definition: CaseDefinition,
  index: number,
  driver: SmokeDriver,
  state: Record<string, unknown>,
  evidence: string,
  now: () => number = Date.now,
): Promise<CaseResult> {
  const assertions: SmokeCase['assertions'] = []
  const screenshots: Screenshot[] = []
  const started = now()
  const context: CaseContext = {
    driver,
    state,
    check(name, ok, detail = '') {
      assertions.push({ name, ok, detail })
      if (!ok) throw new AssertionFailed(`${name}${detail ? `: ${detail}` : ''}`)
    },
    async screenshot(page, file, caption) {
      const path = join(evidence, file)
      await page.screenshot({ path })
      const size = pngSize(path)
      if (!size) throw new Error(`${file} is not a PNG`)
      screenshots.push({ file, ...size, caption })
    },
  }
  let error: string | undefined
  try {
    await definition.run(context)
    if (assertions.length === 0) error = 'the case made no assertion'
  } catch (caught) {
    error = (caught as Error).message
  }
  const ok = error === undefined && assertions.every((assertion) => assertion.ok)
  const durationMs = Math.max(0, Math.round(now() - started))
  const entry: SmokeCase = {
    id: definition.id,
    title: definition.title,
    ok,
    durationMs,
    assertions,
    screenshots,
    ...(error === undefined ? {} : { error }),
  }
  const number = String(index + 1).padStart(2, '0')
  const line = `${ok ? 'PASS' : 'FAIL'} ${number} ${definition.id} (${(durationMs / 1000).toFixed(1)} s)${error ? ` — ${error}` : ''}`
  return { entry, line }
}

/** Runs every case in order, writing the report after each. */
export async function runCases(
  cases: readonly CaseDefinition[],
  driver: SmokeDriver,
  writer: ReportWriter,
  evidence: string,
  log: (line: string) => void,
): Promise<{ failedAt?: string }> {
  const state: Record<string, unknown> = {}
  let failedAt: string | undefined
  for (const [index, definition] of cases.entries()) {
    const { entry, line } = await runCase(definition, index, driver, state, evidence)
    writer.addCase(entry)
    log(line)
    if (!entry.ok) failedAt ??= entry.id
  }
  return failedAt ? { failedAt } : {}
}

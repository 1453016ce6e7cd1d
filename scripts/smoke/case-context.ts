import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { SmokeDriver } from './drivers/smoke-driver.ts'
import { pngSize } from './png.ts'
import type { Screenshot, SmokeCase } from './report-schema.ts'

/** A failed assertion: stops its case, which is recorded as failed. */
export class AssertionFailed extends Error {}

export interface CaseContext {
  driver: SmokeDriver
  /** Shared between the cases of one run, e.g. the scenario's room. */
  state: Record<string, unknown>
  /** Records an assertion a reviewer can read; a false one ends the case. */
  check(name: string, ok: boolean, detail?: string): void
  screenshot(page: Page, file: string, caption: string): Promise<void>
}

export interface CaseDefinition {
  id: string
  title: string
  /** Screenshots the case must leave in the evidence folder; `smoke:verify`
   *  requires each (a case may take more, for readers). */
  screenshots?: readonly string[]
  /** The case creates the scenario's room itself; every other case gets one
   *  made for it when it runs first (`--grep` runs one case alone). */
  createsRoom?: true
  /** The case runs the pinned real agents: the smoke installs them first,
   *  and when they cannot be had the case is not run (reported, and a
   *  failure under ASSENT_REQUIRE_ALL=1) while the others run. */
  needs?: 'real-agents'
  run(context: CaseContext): Promise<void>
}

export interface CaseHooks {
  /** Called for every assertion before a false one stops the case (the
   *  Playwright fixture turns it into a named `expect` step). */
  onCheck?: (name: string, ok: boolean, detail: string) => void
  /** Called with every screenshot written into the evidence folder. */
  onScreenshot?: (path: string, shot: Screenshot) => Promise<void>
}

/**
 * What one case did, kept while it runs: its assertions and screenshots are
 * recorded as they happen, so a case that throws or is stopped by its
 * timeout still leaves what it saw in the report.
 */
export class CaseRecorder {
  readonly assertions: SmokeCase['assertions'] = []
  readonly screenshots: Screenshot[] = []
  private readonly definition: CaseDefinition
  private readonly evidence: string
  private readonly hooks: CaseHooks

  constructor(definition: CaseDefinition, evidence: string, hooks: CaseHooks = {}) {
    this.definition = definition
    this.evidence = evidence
    this.hooks = hooks
  }

  context(driver: SmokeDriver, state: Record<string, unknown>): CaseContext {
    return {
      driver,
      state,
      check: (name, ok, detail = '') => {
        this.assertions.push({ name, ok, detail })
        this.hooks.onCheck?.(name, ok, detail)
        if (!ok) throw new AssertionFailed(`${name}${detail ? `: ${detail}` : ''}`)
      },
      screenshot: async (page, file, caption) => {
        const path = join(this.evidence, file)
        await page.screenshot({ path })
        const size = pngSize(path)
        if (!size) throw new Error(`${file} is not a PNG`)
        const shot = { file, ...size, caption }
        this.screenshots.push(shot)
        await this.hooks.onScreenshot?.(path, shot)
      },
    }
  }

  /** The report entry: failed when an assertion failed (its name and
   *  detail are the error), when the case threw or was stopped (`error`),
   *  or when it asserted nothing at all. */
  entry(outcome: { durationMs: number; error?: string }): SmokeCase {
    const failed = this.assertions.find((assertion) => !assertion.ok)
    const error = failed
      ? `${failed.name}${failed.detail ? `: ${failed.detail}` : ''}`
      : (outcome.error ?? (this.assertions.length === 0 ? 'the case made no assertion' : undefined))
    const ok = error === undefined && this.assertions.every((assertion) => assertion.ok)
    return {
      id: this.definition.id,
      title: this.definition.title,
      ok,
      durationMs: Math.max(0, Math.round(outcome.durationMs)),
      assertions: [...this.assertions],
      screenshots: [...this.screenshots],
      ...(error === undefined ? {} : { error }),
    }
  }
}

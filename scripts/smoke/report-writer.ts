import { renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ReportSchema, type SmokeCase, type SmokeReport } from './report-schema.ts'

export const REPORT_FILE = 'report.json'

/**
 * Keeps `report.json` current: rewritten (atomically, via rename) after
 * every case and at the end, and validated against the schema each time,
 * so what a reviewer opens is always a complete, valid report.
 */
export class ReportWriter {
  private readonly folder: string
  private report: SmokeReport

  constructor(folder: string, initial: Omit<SmokeReport, 'cases' | 'ok'>) {
    this.folder = folder
    this.report = { ...initial, ok: false, cases: [] }
    this.write()
  }

  get current(): SmokeReport {
    return this.report
  }

  addCase(entry: SmokeCase): void {
    this.report = { ...this.report, cases: [...this.report.cases, entry] }
    this.write()
  }

  setAudit(audit: NonNullable<SmokeReport['audit']>): void {
    this.report = { ...this.report, audit }
    this.write()
  }

  finish(result: { finishedAt: string; failedAt?: string; error?: string }): SmokeReport {
    const ok =
      result.error === undefined &&
      this.report.cases.length > 0 &&
      this.report.cases.every((entry) => entry.ok) &&
      (this.report.audit?.verified ?? false)
    this.report = { ...this.report, ...result, ok }
    this.write()
    return this.report
  }

  private write(): void {
    const valid = ReportSchema.parse(this.report)
    const target = join(this.folder, REPORT_FILE)
    const temporary = `${target}.tmp`
    writeFileSync(temporary, `${JSON.stringify(valid, null, 2)}\n`)
    renameSync(temporary, target)
  }
}

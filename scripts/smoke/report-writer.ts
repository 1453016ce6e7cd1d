import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  ReportSchema,
  reportChecksPassed,
  type SmokeCase,
  type SmokeReport,
} from './report-schema.ts'

export const REPORT_FILE = 'report.json'

type Extra = 'audit' | 'auditCli' | 'cleanup' | 'versions' | 'environment'

/**
 * Keeps `report.json` current: rewritten (atomically, via rename) after
 * every case, after each closing check and at the end, and validated
 * against the schema each time, so what a reviewer opens is always a
 * complete, valid report. It says `ok: true` only from `finish`, and only
 * when every case and every closing check passed.
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
    this.report = { ...this.report, ok: false, cases: [...this.report.cases, entry] }
    this.write()
  }

  /** Records one closing fact (the audit verdicts, the cleanup, the host's
   *  versions, the environment); the report is not ok until `finish`. */
  set<K extends Extra>(key: K, value: SmokeReport[K]): void {
    this.report = { ...this.report, ok: false, [key]: value }
    this.write()
  }

  setAudit(audit: NonNullable<SmokeReport['audit']>): void {
    this.set('audit', audit)
  }

  finish(result: { finishedAt: string; failedAt?: string; error?: string }): SmokeReport {
    const { failedAt: _failed, error: _error, ...rest } = this.report
    const merged = { ...rest, ...result }
    const ok =
      result.error === undefined &&
      merged.cases.length > 0 &&
      merged.cases.every((entry) => entry.ok) &&
      reportChecksPassed(merged)
    this.report = { ...merged, ok }
    this.write()
    return this.report
  }

  private write(): void {
    writeReport(this.folder, this.report)
  }
}

function writeReport(folder: string, report: SmokeReport): void {
  const valid = ReportSchema.parse(report)
  const target = join(folder, REPORT_FILE)
  const temporary = `${target}.tmp`
  writeFileSync(temporary, `${JSON.stringify(valid, null, 2)}\n`)
  renameSync(temporary, target)
}

/**
 * Marks a finished report as failed with `error`: what Playwright's runner
 * knows and a host's worker may not (the run was interrupted, possibly
 * between two cases, where no case saw it). Returns false when the folder
 * holds no report.
 */
export function markReportFailed(folder: string, error: string): boolean {
  const file = join(folder, REPORT_FILE)
  if (!existsSync(file)) return false
  const report = ReportSchema.parse(JSON.parse(readFileSync(file, 'utf8')))
  writeReport(folder, { ...report, ok: false, error: report.error ?? error })
  return true
}

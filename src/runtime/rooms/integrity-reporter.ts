import type { DatabaseSync } from 'node:sqlite'
import type { EventBus } from '../events/event-bus.ts'
import type { AuditAppender } from '../store/audit-log.ts'
import { inTransaction } from '../store/database.ts'
import type { IntegrityProblem } from '../store/integrity-mac.ts'

export interface IntegrityReporterOptions {
  db: DatabaseSync
  audit: AuditAppender
  events: EventBus
  now: () => number
  onError: (error: unknown) => void
}

/**
 * Tells the person and the audit trail about a row whose MAC did not verify:
 * an `integrity_error` audit event and a `runtime.integrity` event the
 * workbench shows as a banner. Each distinct edit is reported once per
 * runtime instance (a tampered room is read on every request; one report is
 * the news, a thousand are noise). The row is treated as untrusted whether or
 * not the report could be written: reporting never decides anything.
 */
export class IntegrityReporter {
  private readonly options: IntegrityReporterOptions
  private readonly reported = new Set<string>()

  constructor(options: IntegrityReporterOptions) {
    this.options = options
  }

  readonly report = (problem: IntegrityProblem): void => {
    const fingerprint = `${problem.table}\u0000${problem.rowId}\u0000${problem.foundMac ?? ''}`
    if (this.reported.has(fingerprint)) return
    const payload = {
      table: problem.table,
      rowId: problem.rowId,
      roomId: problem.roomId,
      problem: problem.problem,
    }
    const append = () =>
      this.options.audit.append({
        type: 'integrity_error',
        subjectId: problem.rowId,
        payload,
        at: this.options.now(),
      })
    try {
      // A read inside a writer's transaction reports in it; otherwise the
      // report is its own transaction.
      if (this.options.db.isTransaction) append()
      else inTransaction(this.options.db, append)
    } catch (error) {
      this.options.onError(error)
      return
    }
    this.reported.add(fingerprint)
    this.options.events.emit('runtime.integrity', payload)
  }
}

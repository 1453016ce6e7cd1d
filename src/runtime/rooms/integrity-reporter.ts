import type { EventBus } from '../events/event-bus.ts'
import type { AuditTrail, IntegrityProblem } from '../ports/audit-trail.ts'

export interface IntegrityReporterOptions {
  audit: Pick<AuditTrail, 'recordIntegrityError'>
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
    try {
      this.options.audit.recordIntegrityError(problem, this.options.now())
    } catch (error) {
      this.options.onError(error)
      return
    }
    this.reported.add(fingerprint)
    this.options.events.emit('runtime.integrity', payload)
  }
}

import { join } from 'node:path'
import type { FullResult, Reporter, Suite, TestCase, TestResult } from '@playwright/test/reporter'
import { requestedProjects, skippedProjectFailure } from './project-request.ts'
import { markReportFailed } from './report-writer.ts'
import { EVIDENCE_VARIABLE, HTML_REPORT_FOLDER, TEST_RESULTS_FOLDER } from './smoke-settings.ts'
import { SMOKE_HOSTS, hostEvidenceFolder } from './verify-evidence.ts'

/**
 * Prints what Playwright's list reporter leaves out of a smoke run: why a
 * project was skipped (once, with what to install), and where the evidence,
 * the HTML report and the traces of failed cases are. Fails the run when a
 * project was skipped under ASSENT_REQUIRE_ALL=1 (project-request.ts). After an interrupted run it marks every host's
 * report failed: the run ended before all its cases, wherever the signal
 * fell.
 */
export default class SmokeReporter implements Reporter {
  private readonly skipped = new Map<string, Set<string>>()
  private readonly failed: string[] = []

  printsToStdio(): boolean {
    return false
  }

  onBegin(_config: unknown, _suite: Suite): void {
    this.skipped.clear()
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const project = test.parent.project()?.name ?? '(no project)'
    if (result.status === 'skipped') {
      // Skipped for a reason (the electron project without a binary); the
      // cases left after a failure carry none and Playwright counts them.
      for (const annotation of test.annotations) {
        if (annotation.type !== 'skip' || !annotation.description) continue
        const reasons = this.skipped.get(project) ?? new Set<string>()
        this.skipped.set(project, reasons.add(annotation.description))
      }
    } else if (result.status !== 'passed') {
      this.failed.push(`[${project}] ${test.title}`)
    }
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] } | undefined> {
    const evidence = process.env[EVIDENCE_VARIABLE]
    const requested = requestedProjects(process.argv)
    const requireAll = process.env.ASSENT_REQUIRE_ALL === '1'
    let status = result.status
    for (const [project, reasons] of this.skipped) {
      console.log(`smoke: ${project} project skipped: ${[...reasons].join('; ')}`)
      const failure = skippedProjectFailure({ project, requested, requireAll })
      if (failure !== undefined) {
        console.error(`smoke: ${failure}`)
        status = 'failed'
      }
    }
    if (evidence && result.status === 'interrupted') {
      for (const host of SMOKE_HOSTS)
        if (markReportFailed(hostEvidenceFolder(evidence, host), 'interrupted'))
          console.error(`smoke: the ${host} run was interrupted; its report says so`)
    }
    if (evidence) {
      console.log(`smoke: evidence (report.json and screenshots per host) in ${evidence}`)
      console.log(
        `smoke: HTML report: npx playwright show-report ${join(evidence, HTML_REPORT_FOLDER)}`,
      )
      if (this.failed.length > 0)
        console.log(
          `smoke: traces of the failed cases in ${join(evidence, TEST_RESULTS_FOLDER)} (npx playwright show-trace <trace.zip>)`,
        )
    }
    return status === result.status ? undefined : { status }
  }
}

/**
 * `npm run smoke -- --approvals --evidence /abs/dir [--host electron|cdp] [--keep] [--force]`
 *
 * The approvals smoke scenario: every security claim of the consent flow,
 * proved end to end with assertions a reviewer can read, screenshots and a
 * `report.json` in the evidence folder. Exit code 0 only if every case
 * passed and the audit chain verified.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PROJECT_ROOT } from './hosts/cdp/built-assets.ts'
import { APPROVAL_CASES } from './cases/approval-cases.ts'
import { runCases } from './case-runner.ts'
import { SMOKE_USAGE, UsageError, parseSmokeArgs } from './cli-args.ts'
import { CdpSmokeDriver } from './drivers/cdp-driver.ts'
import { ElectronSmokeDriver } from './drivers/electron-driver.ts'
import type { SmokeDriver } from './drivers/smoke-driver.ts'
import { checkEvidencePath } from './evidence-path.ts'
import { exportAndVerifyAudit } from './audit-evidence.ts'
import { chooseHost, findElectronBinary } from './host-choice.ts'
import { ReportWriter } from './report-writer.ts'
import { leftovers } from './process-cleanup.ts'

async function main(): Promise<number> {
  let args
  let evidence: string
  try {
    args = parseSmokeArgs(process.argv.slice(2), process.env)
    evidence = checkEvidencePath(args.evidence, PROJECT_ROOT, args.force)
  } catch (error) {
    console.error(`smoke: ${(error as Error).message}`)
    if (error instanceof UsageError) console.error(SMOKE_USAGE)
    return 2
  }
  const choice = chooseHost(args.host, findElectronBinary(PROJECT_ROOT, process.env))
  console.log(`smoke: host ${choice.host} (${choice.reason})`)
  mkdirSync(evidence, { recursive: true })

  const scratch = mkdtempSync(join(tmpdir(), 'assent-smoke-'))
  const dirs = {
    dataDir: join(scratch, 'data'),
    home: join(scratch, 'home'),
    workspace: join(scratch, 'workspace'),
    outsideDir: join(scratch, 'outside'),
  }
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true })
  const preferences = { lang: 'en' as 'en' | 'zh-CN', theme: 'light' as 'light' | 'dark' }
  let driver: SmokeDriver | undefined
  let writer: ReportWriter | undefined
  let code: number
  try {
    driver =
      choice.host === 'electron'
        ? await ElectronSmokeDriver.start(dirs, choice.electronBinary!)
        : await CdpSmokeDriver.start(dirs, () => preferences)
    writer = new ReportWriter(evidence, {
      schemaVersion: 1,
      host: choice.host,
      hostReason: choice.reason,
      versions: driver.versions,
      platform: `${process.platform}-${process.arch}`,
      startedAt: new Date().toISOString(),
    })
    const { failedAt } = await runCases(APPROVAL_CASES, driver, writer, evidence, (line) =>
      console.log(line),
    )
    const audit = await exportAndVerifyAudit(driver, evidence)
    writer.setAudit(audit)
    console.log(`${audit.verified ? 'PASS' : 'FAIL'} audit chain: ${audit.detail}`)
    const report = writer.finish({
      finishedAt: new Date().toISOString(),
      ...(failedAt ? { failedAt } : {}),
    })
    console.log(
      `smoke: ${report.ok ? 'all cases passed' : `FAILED${failedAt ? ` (first at ${failedAt})` : ''}`}; evidence in ${evidence}`,
    )
    code = report.ok ? 0 : 1
  } catch (error) {
    const message = (error as Error).stack ?? String(error)
    console.error(`smoke: stopped: ${message}`)
    if (writer)
      writer.finish({ finishedAt: new Date().toISOString(), error: (error as Error).message })
    else writeFileSync(join(evidence, 'error.txt'), `${message}\n`)
    code = 1
  } finally {
    await driver
      ?.close()
      .catch((error: unknown) => console.error(`smoke: closing the host failed: ${error}`))
    const left = driver ? await leftovers(driver.owned()) : []
    if (left.length > 0) {
      console.error(`smoke: still running after cleanup: ${left.join(', ')}`)
      code = 1
    } else if (driver) {
      const { pids, ports } = driver.owned()
      console.log(`smoke: cleaned up ${pids.length} processes and ${ports.length} ports`)
    }
    if (args.keep) console.log(`smoke: kept the scratch folder ${scratch}`)
    else rmSync(scratch, { recursive: true, force: true })
  }
  return code
}

process.exitCode = await main()

/**
 * `npm run smoke -- --approvals --evidence /abs/dir [--host electron|cdp] [--keep] [--force]`
 *
 * The approvals smoke scenario: every security claim of the consent flow,
 * proved end to end with assertions a reviewer can read, screenshots and a
 * `report.json` in the evidence folder. Exit code 0 only if every case
 * passed, the audit log verified (in-process and with `assent audit
 * verify`) and nothing the run started is left running.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { KEY_FILE_NAME } from '../../src/main/core/file-secret-store.ts'
import { PROJECT_ROOT } from '../../src/main/cdp/built-assets.ts'
import { APPROVAL_CASES } from './cases/approval-cases.ts'
import { runCases } from './case-runner.ts'
import { SMOKE_USAGE, UsageError, parseSmokeArgs, type SmokeArgs } from './cli-args.ts'
import { CdpSmokeDriver } from './drivers/cdp-driver.ts'
import { ElectronSmokeDriver } from './drivers/electron-driver.ts'
import type { SmokeDriver } from './drivers/smoke-driver.ts'
import { checkEvidencePath } from './evidence-path.ts'
import { exportAndVerifyAudit } from './audit-evidence.ts'
import { runAuditVerifyCli } from './audit-cli.ts'
import { chooseHost, provideElectronBinary, type HostChoice } from './host-choice.ts'
import { REPORT_SCHEMA_VERSION } from './report-schema.ts'
import { ReportWriter } from './report-writer.ts'
import { leftovers } from './process-cleanup.ts'
import { throwawayEnvironment } from './throwaway-env.ts'

const EXIT_USAGE = 2

/** Everything checked before anything is built or started. */
function prepare(): { args: SmokeArgs; evidence: string; choice: HostChoice } | number {
  try {
    const args = parseSmokeArgs(process.argv.slice(2), process.env)
    const evidence = checkEvidencePath(args.evidence, PROJECT_ROOT, args.force)
    const choice = chooseHost(
      args.host,
      provideElectronBinary(args.host, PROJECT_ROOT, process.env),
    )
    return { args, evidence, choice }
  } catch (error) {
    console.error(`smoke: ${(error as Error).message}`)
    if (error instanceof UsageError) console.error(SMOKE_USAGE)
    // A bad argument, evidence folder or host: nothing was started.
    return EXIT_USAGE
  }
}

/** SIGINT/SIGTERM: a rejection the run races against, so the signal takes
 *  the same `finally` path as a failure (stop everything, then report). */
function interruptions() {
  let signal: NodeJS.Signals | undefined
  const promise = new Promise<never>((_resolve, reject) => {
    const on = (received: NodeJS.Signals) => {
      // A second signal while cleaning up: give up at once.
      if (signal) process.exit(received === 'SIGINT' ? 130 : 143)
      signal = received
      console.error(`smoke: ${received}: stopping everything`)
      reject(new Error(`interrupted by ${received}`))
    }
    process.on('SIGINT', on)
    process.on('SIGTERM', on)
  })
  promise.catch(() => undefined)
  return { promise, signal: () => signal }
}

async function main(): Promise<number> {
  const prepared = prepare()
  if (typeof prepared === 'number') return prepared
  const { args, evidence, choice } = prepared
  console.log(`smoke: host ${choice.host} (${choice.reason})`)
  if (args.build) {
    const build = spawnSync('npm', ['run', 'build'], { cwd: PROJECT_ROOT, stdio: 'inherit' })
    if (build.status !== 0) {
      console.error(`smoke: the build failed (exit ${build.status ?? build.signal})`)
      return 1
    }
  }
  mkdirSync(evidence, { recursive: true })

  const scratch = mkdtempSync(join(tmpdir(), 'assent-smoke-'))
  const dirs = {
    dataDir: join(scratch, 'data'),
    home: join(scratch, 'home'),
    workspace: join(scratch, 'workspace'),
    outsideDir: join(scratch, 'outside'),
  }
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true })
  // From here on this process, the runtime it starts, Chromium and the CLI
  // all see the throwaway home and the file key store.
  Object.assign(process.env, throwawayEnvironment(dirs.home))
  const app = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    version: string
  }
  // Before the host starts, so a host that cannot start still leaves a report.
  const writer = new ReportWriter(evidence, {
    schemaVersion: REPORT_SCHEMA_VERSION,
    host: choice.host,
    hostReason: choice.reason,
    versions: { node: process.version, app: app.version },
    platform: `${process.platform}-${process.arch}`,
    startedAt: new Date().toISOString(),
    environment: { home: dirs.home, secretStore: 'file' },
  })
  const preferences = { lang: 'en' as 'en' | 'zh-CN', theme: 'light' as 'light' | 'dark' }
  const interrupted = interruptions()
  let starting: Promise<SmokeDriver> | undefined
  let driver: SmokeDriver | undefined
  let failedAt: string | undefined
  let error: string | undefined
  let code: number
  try {
    const work = (async () => {
      starting =
        choice.host === 'electron'
          ? ElectronSmokeDriver.start(dirs, choice.electronBinary!)
          : CdpSmokeDriver.start(dirs, () => preferences)
      const started = await starting
      driver = started
      writer.set('versions', started.versions)
      ;({ failedAt } = await runCases(APPROVAL_CASES, started, writer, evidence, (line) =>
        console.log(line),
      ))
      const audit = await exportAndVerifyAudit(started, evidence)
      writer.setAudit(audit)
      console.log(`${audit.verified ? 'PASS' : 'FAIL'} audit chain: ${audit.detail}`)
    })()
    // After an interruption the cases still running fail against a closed
    // host; that is expected, not an unhandled rejection.
    work.catch(() => undefined)
    await Promise.race([interrupted.promise, work])
  } catch (caught) {
    error = (caught as Error).message
    console.error(`smoke: stopped: ${(caught as Error).stack ?? String(caught)}`)
  } finally {
    // Interrupted while the host was starting: wait for it, to stop it too.
    driver ??= await starting?.catch(() => undefined)
    await closeAndCheck(driver, writer)
    if (driver) {
      const cli = await runAuditVerifyCli(PROJECT_ROOT, dirs.dataDir, process.env)
      writer.set('auditCli', cli)
      console.log(`${cli.ok ? 'PASS' : 'FAIL'} ${cli.command}: exit ${cli.exitCode}; ${cli.output}`)
    }
    writer.set('environment', {
      ...writer.current.environment,
      keyFileInDataDir: existsSync(join(dirs.dataDir, KEY_FILE_NAME)),
    })
    const report = writer.finish({
      finishedAt: new Date().toISOString(),
      ...(failedAt ? { failedAt } : {}),
      ...(error === undefined ? {} : { error }),
    })
    console.log(
      `smoke: ${report.ok ? 'all cases and checks passed' : `FAILED${failedAt ? ` (first at ${failedAt})` : ''}`}; evidence in ${evidence}`,
    )
    if (args.keep) console.log(`smoke: kept the scratch folder ${scratch}`)
    else rmSync(scratch, { recursive: true, force: true })
    code = report.ok ? 0 : 1
  }
  const signal = interrupted.signal()
  // The cases may still be awaiting a page that is gone: exit now.
  if (signal) process.exit(signal === 'SIGINT' ? 130 : 143)
  return code
}

/** Stops the host, then checks that every process and port it owned is gone,
 *  and records what it found. */
async function closeAndCheck(driver: SmokeDriver | undefined, writer: ReportWriter) {
  if (!driver) return
  await driver
    .close()
    .catch((error: unknown) => console.error(`smoke: closing the host failed: ${error}`))
  const owned = driver.owned()
  const left = await leftovers(owned)
  writer.set('cleanup', {
    ok: left.length === 0,
    processes: owned.pids,
    ports: owned.ports,
    leftovers: left,
  })
  if (left.length > 0) console.error(`smoke: still running after cleanup: ${left.join(', ')}`)
  else
    console.log(`smoke: cleaned up ${owned.pids.length} processes and ${owned.ports.length} ports`)
}

process.exitCode = await main()

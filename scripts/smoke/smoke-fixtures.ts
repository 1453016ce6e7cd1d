import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test as base, expect, type TestInfo } from '@playwright/test'
import { PROJECT_ROOT } from '../../src/main/cdp/built-assets.ts'
import { findChromium } from '../../src/main/cdp/chromium.ts'
import { KEY_FILE_NAME } from '../../src/main/core/file-secret-store.ts'
import { SMOKE_HOST_TIMEOUT_MS } from '../test-timing.ts'
import { runAuditVerifyCli } from './audit-cli.ts'
import { AUDIT_EXPORT_FILE, exportAndVerifyAudit } from './audit-evidence.ts'
import { CaseRecorder, type CaseDefinition } from './case-context.ts'
import { ensureScenarioRoom } from './cases/manual-cases.ts'
import { CdpSmokeDriver } from './drivers/cdp-driver.ts'
import { ElectronSmokeDriver } from './drivers/electron-driver.ts'
import type { SmokeDriver } from './drivers/smoke-driver.ts'
import { findElectronBinary, hostReason } from './host-choice.ts'
import { leftovers } from './process-cleanup.ts'
import { SMOKE_AGENTS_STATE, startSmokeAgents, type SmokeAgents } from './smoke-agents.ts'
import { REPORT_SCHEMA_VERSION, reportChecksPassed } from './report-schema.ts'
import { ReportWriter } from './report-writer.ts'
import { EVIDENCE_VARIABLE, FAIL_CASE_VARIABLE, KEEP_VARIABLE } from './smoke-settings.ts'
import { throwawayEnvironment } from './throwaway-env.ts'
import { sourceCommit } from './source-commit.ts'
import { hostEvidenceFolder, type SmokeHost } from './verify-evidence.ts'

/** One host's run: started once per Playwright worker, shared by its cases
 *  in order (the scenario is one session of the app). */
export interface SmokeRun {
  driver: SmokeDriver
  writer: ReportWriter
  state: Record<string, unknown>
  /** This host's evidence folder (`<evidence>/<host>`). */
  evidence: string
  /** The real agents of the external-agent cases, and their model. */
  agents: SmokeAgents
  failedAt: string | undefined
  /** The cases not run because a part they need could not be had. */
  notRun: string[]
}

export interface SmokeCaseRunner {
  run(definition: CaseDefinition): Promise<void>
}

interface ScratchDirs {
  root: string
  dataDir: string
  home: string
  workspace: string
  outsideDir: string
}

function log(line: string): void {
  console.log(`smoke: ${line}`)
}

/** The electron project's skip condition: no binary to run. */
export function electronUnavailable(host: SmokeHost): boolean {
  return host === 'electron' && findElectronBinary(PROJECT_ROOT, process.env) === undefined
}

function makeScratch(): ScratchDirs {
  const root = mkdtempSync(join(tmpdir(), 'assent-smoke-'))
  const dirs = {
    root,
    dataDir: join(root, 'data'),
    home: join(root, 'home'),
    workspace: join(root, 'workspace'),
    outsideDir: join(root, 'outside'),
  }
  for (const dir of [dirs.dataDir, dirs.home, dirs.workspace, dirs.outsideDir])
    mkdirSync(dir, { recursive: true })
  return dirs
}

function startHost(host: SmokeHost, dirs: ScratchDirs): Promise<SmokeDriver> {
  if (host === 'electron') {
    const binary = findElectronBinary(PROJECT_ROOT, process.env)
    if (!binary) throw new Error('no Electron binary (the electron project should have skipped)')
    return ElectronSmokeDriver.start(dirs, binary)
  }
  // The workbench reports its own language and theme once it runs.
  return CdpSmokeDriver.start(dirs, () => ({ lang: 'en', theme: 'light' }))
}

/** Stops the host, then checks that every process and port it owned is gone,
 *  and records what it found. */
async function closeAndCheck(driver: SmokeDriver, writer: ReportWriter): Promise<void> {
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
  else log(`cleaned up ${owned.pids.length} processes and ${owned.ports.length} ports`)
}

/**
 * The closing checks, after the last case (or the failure, or the
 * interruption): export and verify the audit chain while the runtime runs,
 * stop everything and check nothing is left, run the real `assent audit
 * verify` on the stopped runtime's data folder, then write the final report.
 * Throws when a closing check failed, so the run fails even if every case
 * passed.
 */
async function finishRun(run: SmokeRun, dirs: ScratchDirs): Promise<void> {
  const { driver, writer, evidence } = run
  let error: string | undefined
  try {
    const audit = await exportAndVerifyAudit(driver, evidence)
    writer.setAudit(audit)
    log(`${audit.verified ? 'PASS' : 'FAIL'} audit chain: ${audit.detail}`)
  } catch (caught) {
    error ??= `the audit export failed: ${(caught as Error).message}`
    writer.setAudit({ file: AUDIT_EXPORT_FILE, events: 0, verified: false, detail: error })
  }
  await closeAndCheck(driver, writer)
  const cli = await runAuditVerifyCli(PROJECT_ROOT, dirs.dataDir, process.env)
  writer.set('auditCli', cli)
  log(`${cli.ok ? 'PASS' : 'FAIL'} ${cli.command}: exit ${cli.exitCode}; ${cli.output}`)
  writer.set('environment', {
    ...writer.current.environment,
    keyFileInDataDir: existsSync(join(dirs.dataDir, KEY_FILE_NAME)),
  })
  if (run.notRun.length > 0) {
    log(`not run, for want of the real agents: ${run.notRun.join(', ')}`)
    // Under ASSENT_REQUIRE_ALL=1 such a case has failed already; the run
    // says so here too, so its report cannot read as passed.
    if (process.env.ASSENT_REQUIRE_ALL === '1') {
      error ??= `ASSENT_REQUIRE_ALL=1 and ${run.notRun.join(', ')} could not run`
    }
  }
  const report = writer.finish({
    finishedAt: new Date().toISOString(),
    ...(run.failedAt ? { failedAt: run.failedAt } : {}),
    ...(error === undefined ? {} : { error }),
  })
  log(
    `${report.ok ? `${report.cases.length} case${report.cases.length === 1 ? '' : 's'} and every closing check passed` : `FAILED${run.failedAt ? ` (first at ${run.failedAt})` : ''}`}; report in ${join(evidence, 'report.json')}`,
  )
  if (!reportChecksPassed(report)) {
    throw new Error(
      `the closing checks failed (audit chain, \`assent audit verify\`, key file or cleanup): see ${join(evidence, 'report.json')}`,
    )
  }
  if (error !== undefined) throw new Error(`${error}: see ${join(evidence, 'report.json')}`)
}

function removeScratch(dirs: ScratchDirs): void {
  if (process.env[KEEP_VARIABLE] === '1') log(`kept the scratch folder ${dirs.root}`)
  else rmSync(dirs.root, { recursive: true, force: true })
}

/** The first line of what stopped a case, for the report. */
function stoppedBy(testInfo: TestInfo): string | undefined {
  if (testInfo.status === 'passed') return undefined
  const first = testInfo.errors[0]?.message ?? `the case ended ${testInfo.status}`
  // eslint-disable-next-line no-control-regex
  return first.replace(/\u001b\[[0-9;]*m/g, '').split('\n')[0]
}

export const test = base.extend<
  { smokeCase: SmokeCaseRunner },
  { hostKind: SmokeHost; smokeRun: SmokeRun }
>({
  hostKind: ['cdp', { scope: 'worker', option: true }],

  smokeRun: [
    async ({ hostKind }, use) => {
      const evidenceRoot = process.env[EVIDENCE_VARIABLE]
      if (!evidenceRoot)
        throw new Error(`${EVIDENCE_VARIABLE} is not set (playwright.config.ts sets it)`)
      const evidence = hostEvidenceFolder(evidenceRoot, hostKind)
      mkdirSync(evidence, { recursive: true })
      const dirs = makeScratch()
      // From here on this worker, the runtime it starts, the browser and the
      // CLI all see the throwaway home and the file key store.
      Object.assign(process.env, throwawayEnvironment(dirs.home))
      const app = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
        version: string
      }
      const detail =
        hostKind === 'electron'
          ? (findElectronBinary(PROJECT_ROOT, process.env) ?? 'no binary')
          : (findChromium() ?? 'no Chromium')
      const reason = hostReason(hostKind, detail)
      log(`host ${hostKind} (${reason})`)
      // Before the host starts, so a host that cannot start still leaves a report.
      const writer = new ReportWriter(evidence, {
        schemaVersion: REPORT_SCHEMA_VERSION,
        host: hostKind,
        hostReason: reason,
        versions: { node: process.version, app: app.version },
        platform: `${process.platform}-${process.arch}`,
        ...sourceCommit(PROJECT_ROOT),
        startedAt: new Date().toISOString(),
        environment: { home: dirs.home, secretStore: 'file' },
      })
      let driver: SmokeDriver
      const state: Record<string, unknown> = {}
      // agents.json must be in the data folder before the runtime starts.
      const agents = await startSmokeAgents(dirs)
      state[SMOKE_AGENTS_STATE] = agents
      try {
        driver = await startHost(hostKind, dirs)
        writer.set('versions', driver.versions)
        const { client } = await driver.runtime()
        state.globalSettingsBefore = JSON.stringify(
          (await client.raw('GET', '/v1/settings/global')).body,
        )
      } catch (caught) {
        writer.finish({ finishedAt: new Date().toISOString(), error: (caught as Error).message })
        await agents.close()
        removeScratch(dirs)
        throw caught
      }
      const run: SmokeRun = {
        driver,
        writer,
        state,
        evidence,
        agents,
        failedAt: undefined,
        notRun: [],
      }
      await use(run)
      try {
        await finishRun(run, dirs)
      } finally {
        await agents.close()
        removeScratch(dirs)
      }
    },
    { scope: 'worker', timeout: SMOKE_HOST_TIMEOUT_MS },
  ],

  smokeCase: async ({ smokeRun }, use, testInfo) => {
    let recorder: CaseRecorder | undefined
    const started = Date.now()
    await use({
      async run(definition) {
        const agents = smokeRun.agents
        if (definition.needs === 'real-agents' && !agents.ready) {
          // The case never starts and is reported as not run, with what
          // to install. Without ASSENT_REQUIRE_ALL=1 it is skipped, not a
          // failure of the session, so the cases after it run as usual.
          smokeRun.notRun.push(definition.id)
          smokeRun.failedAt ??= definition.id
          smokeRun.writer.addCase({
            id: definition.id,
            title: definition.title,
            ok: false,
            durationMs: 0,
            assertions: [],
            screenshots: [],
            error: `not run: ${agents.missing}`,
          })
          const why = `the pinned real agents are not available: ${agents.missing}`
          // Under ASSENT_REQUIRE_ALL=1 nothing may be skipped: the case
          // fails, saying what to install (in this serial session the cases
          // after it are then not run; the run has failed anyway).
          if (process.env.ASSENT_REQUIRE_ALL === '1') {
            throw new Error(`ASSENT_REQUIRE_ALL=1 forbids skipping ${definition.id}: ${why}`)
          }
          testInfo.skip(true, why)
          return
        }
        recorder = new CaseRecorder(definition, smokeRun.evidence, {
          onCheck: (name, ok, detail) =>
            expect(ok, detail ? `${name}: ${detail}` : name).toBe(true),
          onScreenshot: (path, shot) =>
            testInfo.attach(shot.file, { path, contentType: 'image/png' }),
        })
        if (!definition.createsRoom) await ensureScenarioRoom(smokeRun.driver, smokeRun.state)
        const context = recorder.context(smokeRun.driver, smokeRun.state)
        await definition.run(context)
        if (process.env[FAIL_CASE_VARIABLE] === definition.id) {
          context.check(`${FAIL_CASE_VARIABLE} names this case`, false, 'a deliberate failure')
        }
        if (recorder.assertions.length === 0) throw new Error('the case made no assertion')
      },
    })
    if (!recorder) return
    const unsettled = await smokeRun.driver.settle?.().then(
      () => undefined,
      (caught: unknown) => `the host did not settle after the case: ${(caught as Error).message}`,
    )
    const error = stoppedBy(testInfo) ?? unsettled
    const entry = recorder.entry({
      durationMs: Date.now() - started,
      ...(error === undefined ? {} : { error }),
    })
    smokeRun.writer.addCase(entry)
    if (!entry.ok) smokeRun.failedAt ??= entry.id
    if (unsettled) throw new Error(unsettled)
  },
})

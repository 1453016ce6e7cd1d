/**
 * The approvals smoke scenario, run as a person runs it (`npm run smoke`,
 * which runs Playwright Test): the whole scenario on the CDP host, and the
 * ways a run must fail or stop. Each run writes into its own evidence folder
 * under one temp folder, removed at the end (ASSENT_KEEP_EVIDENCE=1 keeps
 * it).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SMOKE_CASES } from '../scripts/smoke/cases/approval-cases.ts'
import { sourceCommit } from '../scripts/smoke/source-commit.ts'
import { verifyEvidenceFolder } from '../scripts/smoke/verify-evidence.ts'
import { SMOKE_RUN_TIMEOUT_MS } from '../scripts/test-timing.ts'
import { chromiumAvailable } from './support/cdp-host-harness.ts'

const ROOT = resolve(import.meta.dirname, '..')
const run = chromiumAvailable()
const folder = mkdtempSync(join(tmpdir(), 'assent-evidence-'))

afterAll(() => {
  if (process.env.ASSENT_KEEP_EVIDENCE !== '1') rmSync(folder, { recursive: true, force: true })
})

/** `npm run smoke -- <args>`, with the environment the test names and
 *  nothing inherited that would change the run (an evidence folder, a
 *  deliberate failure, ASSENT_REQUIRE_ALL). */
function smoke(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; signalAfter?: RegExp } = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['scripts/smoke/run.ts', ...args], {
      cwd: ROOT,
      env: {
        ...process.env,
        ASSENT_APPROVAL_EVIDENCE: '',
        ASSENT_SMOKE_FAIL_CASE: '',
        ASSENT_REQUIRE_ALL: '',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    const read = (chunk: Buffer) => {
      output += chunk.toString()
      if (options.signalAfter?.test(output) && child.exitCode === null) {
        options.signalAfter = undefined
        child.kill('SIGTERM')
      }
    }
    child.stdout.on('data', read)
    child.stderr.on('data', read)
    child.on('error', reject)
    child.on('close', (code) => resolvePromise({ code, output }))
  })
}

const reportIn = (dir: string) => JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'))

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
}

describe('the approvals smoke scenario', () => {
  it('refuses an evidence folder inside the checkout before starting anything', async () => {
    const result = await smoke(['--evidence', join(ROOT, 'evidence', 'run'), '--host', 'cdp'])
    expect(result.code, result.output).toBe(2)
    expect(result.output).toMatch(/outside the git worktree/)
  })

  /** A smoke run under ASSENT_REQUIRE_ALL=1 on a machine with no Electron
   *  binary, whatever this one has (the override names a folder without
   *  an `electron` file): it fails, saying what to install. */
  async function withoutElectron(name: string, args: string[]) {
    const target = join(folder, name)
    const result = await smoke(['--evidence', target, ...args], {
      env: { ELECTRON_OVERRIDE_DIST_PATH: target, ASSENT_REQUIRE_ALL: '1' },
    })
    expect(result.code, result.output).toBe(1)
    expect(result.output).toMatch(/electron project skipped: no Electron binary.*npm install/s)
    return { target, output: result.output }
  }

  it(
    'skips the electron project without a binary, saying what to install, and under ASSENT_REQUIRE_ALL fails when it was asked for',
    async () => {
      const { target, output } = await withoutElectron('skipped-electron', ['--host', 'electron'])
      expect(output).toMatch(/requested by name and ASSENT_REQUIRE_ALL=1/)
      expect(output).toMatch(new RegExp(`${SMOKE_CASES.length} skipped`))
      expect(existsSync(join(target, 'electron', 'report.json'))).toBe(false)
    },
    SMOKE_RUN_TIMEOUT_MS,
  )

  it.runIf(run)(
    'under ASSENT_REQUIRE_ALL fails a run that took every project and had to skip the electron one, having run the rest',
    async () => {
      const { target, output } = await withoutElectron('every-project', ['--grep', 'manual-deny'])
      expect(output).toMatch(
        /ASSENT_REQUIRE_ALL=1 forbids skipping the electron project; name the projects to run/,
      )
      expect(output).toMatch(/1 skipped/)
      // The skip says why at run time: what to install, and what runs instead.
      expect(output).toContain('no Electron binary on this machine')
      expect(output).toMatch(/1 passed/)
      expect(reportIn(join(target, 'cdp'))).toMatchObject({ ok: true })
    },
    SMOKE_RUN_TIMEOUT_MS,
  )

  it(
    'leaves a failed report.json when the host cannot start',
    async () => {
      const target = join(folder, 'no-chromium')
      const result = await smoke(['--evidence', target, '--host', 'cdp'], {
        env: { ASSENT_CHROMIUM_PATH: join(folder, 'no-such-chromium') },
      })
      expect(result.code, result.output).toBe(1)
      expect(reportIn(join(target, 'cdp'))).toMatchObject({
        ok: false,
        cases: [],
        error: expect.stringMatching(/Chromium was not found/),
      })
    },
    SMOKE_RUN_TIMEOUT_MS,
  )

  it.runIf(run)(
    'on SIGTERM stops everything it started, reports it and exits non-zero',
    async () => {
      const target = join(folder, 'interrupted')
      const result = await smoke(['--evidence', target, '--host', 'cdp'], {
        signalAfter: /✓\s+1 \[cdp\]/,
      })
      expect(result.code, result.output).toBe(143)
      const report = reportIn(join(target, 'cdp'))
      expect(report).toMatchObject({ ok: false, error: 'interrupted' })
      expect(report.cases.length).toBeLessThan(SMOKE_CASES.length)
      expect(report.cleanup).toMatchObject({ ok: true, leftovers: [] })
      expect(report.cleanup.processes.length).toBeGreaterThan(0)
    },
    SMOKE_RUN_TIMEOUT_MS,
  )

  it.runIf(run)(
    'runs one case alone with --grep, and a failed case leaves its trace, a failed report and a clean machine',
    async () => {
      const target = join(folder, 'failed-case')
      const result = await smoke(['--evidence', target, '--host', 'cdp', '--grep', 'manual-deny'], {
        env: { ASSENT_SMOKE_FAIL_CASE: 'manual-deny' },
      })
      expect(result.code, result.output).toBe(1)
      const report = reportIn(join(target, 'cdp'))
      // Only the case asked for ran, on a room made for it.
      expect(report.cases.map((entry: { id: string }) => entry.id)).toEqual(['manual-deny'])
      expect(report).toMatchObject({ ok: false, failedAt: 'manual-deny' })
      expect(report.cases[0].error).toMatch(/ASSENT_SMOKE_FAIL_CASE names this case/)
      // Everything the case proved before the deliberate failure held.
      expect(report.cases[0].assertions.filter((a: { ok: boolean }) => !a.ok)).toHaveLength(1)
      expect(report.cleanup).toMatchObject({ ok: true, leftovers: [] })
      const traces = filesUnder(join(target, 'test-results')).filter((file) =>
        file.endsWith('trace.zip'),
      )
      expect(traces).toEqual([expect.stringMatching(/manual-deny.*\/trace\.zip$/)])
      expect(existsSync(join(target, 'playwright-report', 'index.html'))).toBe(true)
    },
    SMOKE_RUN_TIMEOUT_MS,
  )

  it.runIf(run)(
    'passes end to end on the CDP host and leaves evidence that verifies, with an HTML report and no trace',
    async () => {
      const evidence = join(folder, 'run')
      const result = await smoke(['--approvals', '--evidence', evidence, '--host', 'cdp'])
      // The per-case lines are the scenario's own progress report.
      console.log(result.output)
      expect(result.code, result.output).toBe(0)
      const verdict = verifyEvidenceFolder(evidence, {
        requireAll: true,
        hosts: ['cdp'],
        commit: sourceCommit(ROOT).commit,
      })
      expect(verdict.problems).toEqual([])
      expect(verdict.hosts.map((host) => host.host)).toEqual(['cdp'])
      const report = reportIn(join(evidence, 'cdp'))
      expect(report.cases).toHaveLength(SMOKE_CASES.length)
      expect(report.environment.secretStore).toBe('file')
      expect(report.auditCli.exitCode).toBe(0)
      expect(existsSync(join(evidence, 'playwright-report', 'index.html'))).toBe(true)
      expect(filesUnder(join(evidence, 'test-results')).filter((f) => f.endsWith('.zip'))).toEqual(
        [],
      )
    },
    SMOKE_RUN_TIMEOUT_MS,
  )
})

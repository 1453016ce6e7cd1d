import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { verifyEvidence } from '../scripts/smoke/verify-evidence.ts'
import { chromiumAvailable } from './support/cdp-host-harness.ts'

const ROOT = resolve(import.meta.dirname, '..')
const run = chromiumAvailable()
const folder = mkdtempSync(join(tmpdir(), 'assent-evidence-'))
const evidence = join(folder, 'run')

afterAll(() => {
  if (process.env.ASSENT_KEEP_EVIDENCE !== '1') rmSync(folder, { recursive: true, force: true })
})

function smoke(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; signalAfter?: RegExp } = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['scripts/smoke/run.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, ASSENT_APPROVAL_EVIDENCE: '', ...options.env },
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

describe('the approvals smoke scenario', () => {
  it('refuses an evidence folder inside the checkout before starting anything', async () => {
    const result = await smoke([
      '--approvals',
      '--evidence',
      join(ROOT, 'evidence', 'run'),
      '--host',
      'cdp',
    ])
    expect(result.code).toBe(2)
    expect(result.output).toMatch(/outside the git worktree/)
  })

  it('refuses --host electron without an Electron binary, naming what to install', async () => {
    const target = join(folder, 'electron')
    const result = await smoke(['--approvals', '--evidence', target, '--host', 'electron'], {
      // An empty folder: no binary, whatever this machine has.
      env: { ELECTRON_OVERRIDE_DIST_PATH: folder },
    })
    expect(result.code, result.output).toBe(2)
    expect(result.output).toMatch(/no Electron binary.*npm install.*--host cdp/s)
    expect(existsSync(target)).toBe(false)
  })

  it('leaves a failed report.json when the host cannot start', async () => {
    const target = join(folder, 'no-chromium')
    const result = await smoke(['--approvals', '--evidence', target, '--host', 'cdp'], {
      env: { ASSENT_CHROMIUM_PATH: join(folder, 'no-such-chromium') },
    })
    expect(result.code, result.output).toBe(1)
    expect(reportIn(target)).toMatchObject({
      ok: false,
      cases: [],
      error: expect.stringMatching(/Chromium was not found/),
    })
  })

  it.runIf(run)(
    'on SIGTERM stops everything it started, reports it and exits non-zero',
    async () => {
      const target = join(folder, 'interrupted')
      const result = await smoke(['--approvals', '--evidence', target, '--host', 'cdp'], {
        signalAfter: /PASS 01 /,
      })
      expect(result.code, result.output).toBe(143)
      const report = reportIn(target)
      expect(report).toMatchObject({ ok: false, error: 'interrupted by SIGTERM' })
      expect(report.cleanup).toMatchObject({ ok: true, leftovers: [] })
      expect(report.cleanup.processes.length).toBeGreaterThan(0)
    },
    180_000,
  )

  it.runIf(run)(
    'passes end to end on the CDP host and leaves evidence that verifies',
    async () => {
      const result = await smoke(['--approvals', '--evidence', evidence, '--host', 'cdp'])
      // The per-case lines are the scenario's own progress report.
      console.log(result.output)
      expect(result.code, result.output).toBe(0)
      const verdict = verifyEvidence(evidence, { requireAll: true })
      expect(verdict.ok ? [] : verdict.problems).toEqual([])
      expect(verdict.ok && verdict.report.host).toBe('cdp')
      expect(verdict.ok && verdict.report.environment.secretStore).toBe('file')
      expect(verdict.ok && verdict.report.auditCli?.exitCode).toBe(0)
    },
    600_000,
  )
})

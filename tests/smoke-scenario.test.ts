import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { verifyEvidence } from '../scripts/smoke/verify-evidence.ts'
import { chromiumAvailable } from './support/cdp-host-harness.ts'

const ROOT = resolve(import.meta.dirname, '..')
const run = chromiumAvailable()
const evidence = join(mkdtempSync(join(tmpdir(), 'assent-evidence-')), 'run')

afterAll(() => {
  if (process.env.ASSENT_KEEP_EVIDENCE !== '1')
    rmSync(join(evidence, '..'), { recursive: true, force: true })
})

function smoke(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, ['scripts/smoke/run.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, ASSENT_APPROVAL_EVIDENCE: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.on('error', reject)
    child.on('exit', (code) => resolvePromise({ code, output }))
  })
}

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
    },
    600_000,
  )
})

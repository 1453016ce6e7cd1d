import { describe, expect, it } from 'vitest'
import {
  evaluateAudit,
  formatVerdict,
  parseBaseline,
  readElectronegativityResult,
  type BaselineEntry,
  type Finding,
} from '../scripts/audit-electron-findings.ts'

// The pure half of scripts/audit-electron.ts. It lives here rather than
// beside the script because vitest collects src/ and tests/ only.

const paths = { repoRoot: '/repo', scannedDir: '/repo/src' }

/** An issue as electronegativity's `run()` returns it (extra keys kept). */
function rawIssue(overrides: Record<string, unknown> = {}) {
  return {
    id: 'PRELOAD_JS_CHECK',
    file: 'main/electron/protected-window.ts',
    location: { line: 69, column: 8 },
    severity: { value: 2, name: 'MEDIUM', format: () => 'MEDIUM' },
    confidence: { value: 1, name: 'FIRM', format: () => 'FIRM' },
    description: 'Review the use of preload scripts',
    shortenedURL: 'https://git.io/JeuMu',
    manualReview: true,
    visibility: { inlineDisabled: false },
    ...overrides,
  }
}

function finding(overrides: Partial<Finding> = {}): Finding {
  return {
    check: 'PRELOAD_JS_CHECK',
    severity: 'MEDIUM',
    confidence: 'FIRM',
    file: 'src/main/electron/protected-window.ts',
    line: 69,
    column: 8,
    description: 'Review the use of preload scripts',
    manualReview: true,
    ...overrides,
  }
}

const entry = (overrides: Partial<BaselineEntry> = {}): BaselineEntry => ({
  check: 'PRELOAD_JS_CHECK',
  file: 'src/main/electron/protected-window.ts',
  why: 'the protected preload exposes nothing to the main world',
  ...overrides,
})

describe('readElectronegativityResult', () => {
  it('reads findings with repository-relative paths', () => {
    const { findings, failures } = readElectronegativityResult(
      {
        issues: [rawIssue(), rawIssue({ id: 'CSP_GLOBAL_CHECK', file: 'N/A' })],
        errors: [],
        globalChecks: 5,
      },
      paths,
    )
    expect(failures).toEqual([])
    expect(findings).toEqual([finding(), finding({ check: 'CSP_GLOBAL_CHECK', file: 'N/A' })])
  })

  it('reads parse failures, which the tool reports with absolute paths', () => {
    const { failures } = readElectronegativityResult(
      {
        issues: [],
        errors: [
          {
            file: '/repo/src/renderer/broken.ts',
            message: 'Unexpected token (1:13)',
            tolerable: false,
          },
          { file: '/repo/src/legacy.js', message: 'Unexpected token', tolerable: true },
        ],
      },
      paths,
    )
    expect(failures).toEqual([
      { file: 'src/renderer/broken.ts', message: 'Unexpected token (1:13)', tolerable: false },
      { file: 'src/legacy.js', message: 'Unexpected token', tolerable: true },
    ])
  })

  it('refuses a result of another shape rather than reading it as "no findings"', () => {
    expect(() => readElectronegativityResult(undefined, paths)).toThrow(/unexpected result/)
    expect(() => readElectronegativityResult({ issues: [] }, paths)).toThrow(/unexpected result/)
    expect(() =>
      readElectronegativityResult(
        { issues: [rawIssue({ severity: { name: 'CRITICAL' } })], errors: [] },
        paths,
      ),
    ).toThrow(/unexpected result/)
  })
})

describe('evaluateAudit', () => {
  it('passes when every MEDIUM-or-above finding is baselined', () => {
    const verdict = evaluateAudit({ findings: [finding()], failures: [], baseline: [entry()] })
    expect(verdict.ok).toBe(true)
    expect(verdict.baselined).toEqual([{ finding: finding(), entry: entry() }])
  })

  it('fails on a MEDIUM or HIGH finding that the baseline does not name', () => {
    for (const severity of ['MEDIUM', 'HIGH'] as const) {
      const verdict = evaluateAudit({
        findings: [finding({ severity, check: 'SANDBOX_JS_CHECK' })],
        failures: [],
        baseline: [],
      })
      expect(verdict.ok, severity).toBe(false)
      expect(verdict.blocking.map((item) => item.check)).toEqual(['SANDBOX_JS_CHECK'])
    }
  })

  it('matches the baseline by check and file, not by check alone', () => {
    const verdict = evaluateAudit({
      findings: [finding(), finding({ file: 'src/main/electron/workbench-window.ts' })],
      failures: [],
      baseline: [entry()],
    })
    expect(verdict.ok).toBe(false)
    expect(verdict.blocking.map((item) => item.file)).toEqual([
      'src/main/electron/workbench-window.ts',
    ])
  })

  it('ignores LOW and INFORMATIONAL findings', () => {
    const verdict = evaluateAudit({
      findings: [finding({ severity: 'LOW' }), finding({ severity: 'INFORMATIONAL' })],
      failures: [],
      baseline: [],
    })
    expect(verdict).toMatchObject({ ok: true, blocking: [] })
  })

  it('fails on a baseline entry that no longer matches a finding', () => {
    const verdict = evaluateAudit({
      findings: [finding({ severity: 'LOW' })],
      failures: [],
      baseline: [entry()],
    })
    expect(verdict.ok).toBe(false)
    expect(verdict.stale).toEqual([entry()])
  })

  it('fails on any file the tool could not parse, even with no findings', () => {
    for (const tolerable of [false, true]) {
      const verdict = evaluateAudit({
        findings: [],
        failures: [{ file: 'src/x.ts', message: 'Unexpected token', tolerable }],
        baseline: [],
      })
      expect(verdict.ok, `tolerable: ${tolerable}`).toBe(false)
    }
  })

  it('uses the threshold it is given', () => {
    const verdict = evaluateAudit({
      findings: [finding({ severity: 'LOW' })],
      failures: [],
      baseline: [],
      blockingSeverity: 'LOW',
    })
    expect(verdict.ok).toBe(false)
  })
})

describe('parseBaseline', () => {
  it('reads entries of check, file and why', () => {
    const text = JSON.stringify({ about: 'x', entries: [entry()] })
    expect(parseBaseline(text)).toEqual([entry()])
  })

  it('refuses an entry without a real reason, with unknown keys, or listed twice', () => {
    expect(() => parseBaseline(JSON.stringify({ entries: [entry({ why: 'ok' })] }))).toThrow()
    expect(() => parseBaseline(JSON.stringify({ entries: [{ ...entry(), line: 3 }] }))).toThrow()
    expect(() => parseBaseline(JSON.stringify({ entries: [entry(), entry()] }))).toThrow(
      'baseline lists PRELOAD_JS_CHECK src/main/electron/protected-window.ts twice',
    )
  })
})

describe('formatVerdict', () => {
  it('names each failing finding, parse failure and stale entry', () => {
    const text = formatVerdict(
      evaluateAudit({
        findings: [finding({ check: 'SANDBOX_JS_CHECK', line: 3, column: 4 })],
        failures: [{ file: 'src/x.ts', message: 'Unexpected token', tolerable: false }],
        baseline: [entry()],
      }),
    )
    expect(text).toContain(
      'FAIL MEDIUM SANDBOX_JS_CHECK at src/main/electron/protected-window.ts:3:4',
    )
    expect(text).toContain('FAIL src/x.ts could not be parsed: Unexpected token')
    expect(text).toContain('FAIL stale baseline entry PRELOAD_JS_CHECK')
    expect(text).toMatch(/FAILED \(1 findings, 1 parse failures, 1 stale baseline entries\)$/)
  })
})

describe('the baseline’s reasons', () => {
  it('name as many workbench channels as the workbench preload exposes', async () => {
    const { readFileSync } = await import('node:fs')
    const { WORKBENCH_CHANNELS } = await import('../src/common/ipc-channels.ts')
    const baseline = parseBaseline(
      readFileSync(new URL('../electronegativity-baseline.json', import.meta.url), 'utf8'),
    )
    const workbench = baseline.find((entry) => entry.file.endsWith('workbench-window.ts'))
    const words = ['', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine']
    expect(workbench?.why).toContain(
      `${words[Object.keys(WORKBENCH_CHANNELS).length]} invoke channels`,
    )
  })
})

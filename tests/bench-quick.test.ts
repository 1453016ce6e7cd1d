import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { othersLoadMeasurable } from '../scripts/bench/others-load.ts'
import { BenchResultsSchema, SECTIONS, type BenchResults } from '../scripts/bench/results-schema.ts'
import { chromiumAvailable } from './support/cdp-host-harness.ts'
import { scaledMs } from '../scripts/test-timing.ts'

// `npm run bench -- --quick` as a person runs it, in a child process. This
// checks what it writes, never how fast anything was: the figures depend on
// the machine and its load.

const ROOT = resolve(import.meta.dirname, '..')
const browser = chromiumAvailable()
let folder: string
let run: { code: number | null; output: string; results: unknown }

function runQuickBench(json: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn('npm', ['run', 'bench', '--', '--quick', '--json', json], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    child.on('error', reject)
    child.on('close', (code) => resolveRun({ code, output }))
  })
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'assent-bench-test-'))
  const json = join(folder, 'results.json')
  const { code, output } = await runQuickBench(json)
  const results = code === 0 ? (JSON.parse(await readFile(json, 'utf8')) as unknown) : undefined
  run = { code, output, results }
}, scaledMs(600_000))

afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true })
})

describe('npm run bench -- --quick', () => {
  it('exits 0 and writes a results file that matches its schema', () => {
    expect(run.code, run.output).toBe(0)
    const parsed = BenchResultsSchema.safeParse(run.results)
    expect(parsed.success, parsed.success ? '' : parsed.error.message).toBe(true)
    expect((run.results as BenchResults).quick).toBe(true)
  })

  it('reports every figure as a finite positive number with its spread', () => {
    const results = BenchResultsSchema.parse(run.results)
    expect(results.figures.length).toBeGreaterThan(0)
    for (const figure of results.figures) {
      for (const value of [figure.median, figure.min, figure.max, figure.p95, ...figure.samples]) {
        expect(Number.isFinite(value) && value > 0, `${figure.id}: ${value}`).toBe(true)
      }
    }
  })

  it('states each goal next to its figure, with whether it was met', () => {
    const results = BenchResultsSchema.parse(run.results)
    const goals = Object.fromEntries(
      results.figures.filter((figure) => figure.goal).map((figure) => [figure.id, figure.goal]),
    )
    expect(goals['tokens.mint-verify-cost-in-hmacs']).toMatchObject({ target: 2.5 })
    expect(goals['tokens.cost-flatness']).toMatchObject({ target: 1.1 })
    expect(goals['tokens.verify-pause-max-ms']).toMatchObject({ target: 5 })
    expect(goals['memory.ledger-bytes-per-nonce']).toMatchObject({ target: 160 })
    expect(goals['decisions.per-decision-floor']).toMatchObject({
      comparison: 'at-least',
      target: 0.6,
    })
    expect(goals['decisions.memory-backed-per-sec.10-clients']).toMatchObject({ target: 1_000 })
    expect(goals['gateway.added-latency-ms']).toMatchObject({ target: 1 })
    expect(goals['gateway.added-latency-p99-ms']).toMatchObject({ target: 5 })
    expect(goals['gateway.granted-added-latency-ms']).toMatchObject({ target: 3 })
    for (const [id, comparison, target] of [
      ['memory.runtime-rss-idle-mib', 'at-most', 80],
      ['memory.per-pending-approval-kib', 'at-most', 4],
      ['memory.retained-after-decided-mib', 'at-most', 5],
      ['startup.runtime-ready-ms', 'at-most', 300],
    ] as const) {
      expect(goals[id], id).toMatchObject({ comparison, target })
    }
    for (const [id, target] of [
      ['consent.card-visible-ms', 100],
      ['consent.window-rendered-ms', 300],
      ['consent.click-to-tool-ms', 30],
    ] as const) {
      if (browser) expect(goals[id], id).toMatchObject({ comparison: 'at-most', target })
    }
    for (const figure of results.figures.filter((candidate) => candidate.goal)) {
      const { comparison, target, met } = figure.goal!
      const reached = comparison === 'at-most' ? figure.median <= target : figure.median >= target
      expect(met, figure.id).toBe(figure.unreliable ? null : reached)
    }
  })

  it('marks exactly the figures taken while other processes loaded more than the cores as unreliable', () => {
    const results = BenchResultsSchema.parse(run.results)
    const cores = results.machine.cores
    for (const figure of results.figures) {
      const { start, end, others } = figure.load
      // Where /proc can be read, the others' demand decides, and the load
      // average (the bench's own processes included) does not.
      if (othersLoadMeasurable()) expect(others, figure.id).not.toBeNull()
      const unreliable = others === null ? Math.max(start, end) > cores : others > cores
      expect(figure.unreliable, figure.id).toBe(unreliable)
    }
  })

  it('records the machine, its load at start and end, and the versions', () => {
    const results = BenchResultsSchema.parse(run.results)
    expect(results.machine.cores).toBeGreaterThan(0)
    expect(results.loadAverage.start).toHaveLength(3)
    expect(results.loadAverage.end).toHaveLength(3)
    expect(results.versions.node).toBe(process.version)
  })

  it('measures the runtime and token sections on every machine', () => {
    const results = BenchResultsSchema.parse(run.results)
    const sections = new Set(results.figures.map((figure) => figure.section))
    for (const section of ['tokens', 'decisions', 'memory'] as const) {
      expect(sections.has(section), section).toBe(true)
    }
    for (const section of SECTIONS) {
      expect(
        sections.has(section) || results.skipped.some((entry) => entry.section === section),
      ).toBe(true)
    }
  })

  // One test for both machines, so a full run (Chromium present) shows no
  // skipped test: with Chromium the browser figures are measured, without it
  // they are listed as skipped with the reason.
  it('measures consent latency in Chromium, or lists the browser sections as skipped without it', () => {
    const results = BenchResultsSchema.parse(run.results)
    if (!browser) {
      expect(results.versions.chromium).toBeNull()
      expect(results.skipped.map((entry) => entry.section)).toEqual(
        expect.arrayContaining(['consent-latency', 'workbench']),
      )
      return
    }
    expect(results.versions.chromium).toMatch(/^\d+\./)
    const ids = results.figures.map((figure) => figure.id)
    for (const id of [
      'consent.card-visible-ms',
      'consent.window-rendered-ms',
      'consent.click-to-tool-ms',
      'consent.bare-page-load-ms',
    ]) {
      expect(ids).toContain(id)
    }
    // The workbench part catches its own failure (so it cannot void the
    // rest): with Chromium here, its figures must be there, with their goals.
    // Its reason, when it was skipped, is the failure to read.
    expect(results.skipped.filter((entry) => entry.section === 'workbench')).toEqual([])
    const goals = Object.fromEntries(
      results.figures.map((figure) => [figure.id, figure.goal?.target]),
    )
    expect(goals['workbench.room-render-ms']).toBe(200)
    expect(goals['workbench.scroll-longest-frame-ms']).toBe(50)
  })
})

import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { unrunReport } from './skip-report.ts'

const VITEST = fileURLToPath(new URL('../node_modules/.bin/vitest', import.meta.url))
const REPORTER = fileURLToPath(new URL('./skip-report.ts', import.meta.url))

// Every way a test can go unexecuted, beside one that runs.
const FIXTURE = `
it('runs', () => { expect(1).toBe(1) })
it.skip('is skipped', () => {})
describe.skipIf(true)('a block', () => { it('inner', () => {}) })
it.todo('later')
it('skips itself', (ctx) => { ctx.skip('no widget here') })
`
const RUNNING_ONLY = `it('runs', () => { expect(1).toBe(1) })\n`
// A file that skips what needs a missing part, saying why as
// tests/support/require-or-skip.ts does.
const MISSING_PART = `
console.warn('skipping: a gadget is not available (not found); install it')
describe.runIf(false)('with the gadget', () => { it('uses it', () => {}) })
it('runs without it', () => { expect(1).toBe(1) })
`

interface Run {
  code: number
  /** What it printed, its standard output first. */
  output: string
  stdout: string
}

// A real vitest run of a throwaway folder with this reporter and the default
// one, as vitest.config.ts lists them.
async function runVitest(folder: string, requireAll: boolean): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }
  delete env.ASSENT_REQUIRE_ALL
  if (requireAll) env.ASSENT_REQUIRE_ALL = '1'
  // A nested run must not report into the outer one.
  delete env.VITEST
  delete env.VITEST_WORKER_ID
  delete env.VITEST_POOL_ID
  const args = ['run', '--root', folder, '--config', join(folder, 'vitest.config.mjs')]
  try {
    const { stdout, stderr } = await promisify(execFile)(VITEST, args, { cwd: folder, env })
    return { code: 0, output: stdout + stderr, stdout }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, output: failed.stdout + failed.stderr, stdout: failed.stdout }
  }
}

describe('the report of tests that did not run', () => {
  let skipping: string
  let passing: string

  beforeAll(async () => {
    const config = `export default { test: { globals: true, include: ['*.test.ts'], reporters: [${JSON.stringify(REPORTER)}, 'default'] } }\n`
    skipping = await mkdtemp(join(tmpdir(), 'assent-skip-report-'))
    passing = await mkdtemp(join(tmpdir(), 'assent-skip-report-'))
    for (const [folder, tests] of [
      [skipping, FIXTURE],
      [passing, RUNNING_ONLY],
    ]) {
      await writeFile(join(folder!, 'vitest.config.mjs'), config)
      await writeFile(join(folder!, 'a.test.ts'), tests!)
    }
    await writeFile(join(skipping, 'b.test.ts'), MISSING_PART)
  })
  afterAll(async () => {
    await rm(skipping, { recursive: true, force: true })
    await rm(passing, { recursive: true, force: true })
  })

  it('names each skipped or todo test with why, before the summary, and passes without ASSENT_REQUIRE_ALL', async () => {
    const run = await runVitest(skipping, false)
    expect(run.code).toBe(0)
    const named = [
      'not run: 5 tests',
      '  a.test.ts > is skipped (skip)',
      '  a.test.ts > a block > inner (skip)',
      '  a.test.ts > later (todo)',
      '  a.test.ts > skips itself (no widget here)',
      '  b.test.ts > with the gadget > uses it (a gadget is not available (not found); install it)',
    ].join('\n')
    expect(run.output).toContain(named)
    expect(run.output).not.toContain('forbids skipping')
    // vitest's summary stays the last word.
    expect(run.output.indexOf(named)).toBeLessThan(run.output.lastIndexOf('Test Files'))
    expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(/Duration/)
  })

  it('fails the run for any of them under ASSENT_REQUIRE_ALL=1', async () => {
    const run = await runVitest(skipping, true)
    expect(run.code).toBe(1)
    expect(run.output).toContain('ASSENT_REQUIRE_ALL=1 forbids skipping a test: the run fails.')
  })

  it('says nothing and passes when every test ran, under ASSENT_REQUIRE_ALL=1 too', async () => {
    const run = await runVitest(passing, true)
    expect(run.code).toBe(0)
    expect(run.output).not.toContain('not run:')
    expect(run.output).toMatch(/Tests\s+1 passed \(1\)/)
  })

  it('reports one test in the singular and nothing for none', () => {
    const one = [{ file: 'a.test.ts', name: 'x', why: 'skip' }]
    expect(unrunReport(one, false)).toEqual(['not run: 1 test', '  a.test.ts > x (skip)'])
    expect(unrunReport([], true)).toEqual([])
  })
})

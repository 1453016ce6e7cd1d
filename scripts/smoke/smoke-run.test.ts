import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCase, runCases, type CaseDefinition } from './case-runner.ts'
import type { SmokeDriver } from './drivers/smoke-driver.ts'
import { descendantsIn, processTree } from './process-cleanup.ts'
import { ReportWriter } from './report-writer.ts'
import type { SmokeCase } from './report-schema.ts'
import { throwawayEnvironment } from './throwaway-env.ts'

const made: string[] = []
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'assent-smoke-run-'))
  made.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})

// The cases below never touch the host.
const noHost = {} as SmokeDriver

const define = (id: string, run: CaseDefinition['run']): CaseDefinition => ({ id, title: id, run })

describe('the case runner', () => {
  it('records a passing case with its assertions and a one-line result', async () => {
    const ticks = [1_000, 3_500]
    const { entry, line } = await runCase(
      define('passes', async (context) => context.check('two is two', 1 + 1 === 2, '2')),
      0,
      noHost,
      {},
      scratch(),
      () => ticks.shift()!,
    )
    expect(entry).toMatchObject({ id: 'passes', ok: true, durationMs: 2_500 })
    expect(entry.assertions).toEqual([{ name: 'two is two', ok: true, detail: '2' }])
    expect(line).toBe('PASS 01 passes (2.5 s)')
  })

  it('stops a case at its first failed assertion and keeps what it saw', async () => {
    let after = false
    const { entry, line } = await runCase(
      define('fails', async (context) => {
        context.check('first', true)
        context.check('second', false, 'saw 3')
        after = true
      }),
      4,
      noHost,
      {},
      scratch(),
    )
    expect(after).toBe(false)
    expect(entry.ok).toBe(false)
    expect(entry.assertions.map((assertion) => assertion.ok)).toEqual([true, false])
    expect(entry.error).toBe('second: saw 3')
    expect(line).toMatch(/^FAIL 05 fails .* — second: saw 3$/)
  })

  it('fails a case that throws, and one that asserted nothing', async () => {
    const threw = await runCase(
      define('throws', async () => {
        throw new Error('the page went away')
      }),
      0,
      noHost,
      {},
      scratch(),
    )
    expect(threw.entry).toMatchObject({ ok: false, error: 'the page went away' })
    const silent = await runCase(
      define('silent', async () => undefined),
      0,
      noHost,
      {},
      scratch(),
    )
    expect(silent.entry).toMatchObject({ ok: false, error: 'the case made no assertion' })
  })

  it('runs every case even after a failure, shares state, and rewrites the report after each', async () => {
    const folder = scratch()
    const writer = new ReportWriter(folder, {
      schemaVersion: 2,
      host: 'cdp',
      hostReason: 'test',
      versions: { node: 'v24', app: '0.1.0' },
      platform: 'linux-x64',
      startedAt: new Date(0).toISOString(),
      environment: { home: folder, secretStore: 'file' },
    })
    const seenOnDisk: string[][] = []
    const cases = [
      define('one', async (context) => {
        context.state.room = 'r1'
        context.check('one', true)
      }),
      define('two', async (context) => context.check('two', false)),
      define('three', async (context) =>
        context.check('room from one', context.state.room === 'r1'),
      ),
    ]
    const { failedAt } = await runCases(cases, noHost, writer, folder, () => {
      const report = JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8'))
      seenOnDisk.push(report.cases.map((entry: SmokeCase) => entry.id))
    })
    expect(failedAt).toBe('two')
    expect(seenOnDisk).toEqual([['one'], ['one', 'two'], ['one', 'two', 'three']])
    expect(writer.current.cases.map((entry) => entry.ok)).toEqual([true, false, true])
  })
})

describe('cleanup checks', () => {
  it('walks the whole process tree, not only direct children', () => {
    // pid → parent: 10 is the scenario; 11 the runtime; 12 Chromium, whose
    // renderers 13 and 14 are its children; 20 belongs to someone else.
    const table = new Map([
      [11, 10],
      [12, 10],
      [13, 12],
      [14, 13],
      [20, 1],
    ])
    expect(descendantsIn(table, 10).sort()).toEqual([11, 12, 13, 14])
    expect(descendantsIn(table, 12).sort()).toEqual([13, 14])
    expect(descendantsIn(table, 20)).toEqual([])
  })

  it('sees a grandchild of this process in the live tree', async () => {
    // sh starts sleep: sleep is this process's grandchild.
    const child = spawn('sh', ['-c', 'sleep 5 & wait'], { stdio: 'ignore' })
    try {
      let grandchildren: number[] = []
      for (let attempt = 0; attempt < 100 && grandchildren.length === 0; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        grandchildren = processTree(child.pid!)
      }
      expect(grandchildren.length).toBeGreaterThan(0)
      const tree = processTree(process.pid)
      expect(tree).toContain(child.pid)
      for (const pid of grandchildren) expect(tree).toContain(pid)
    } finally {
      child.kill('SIGKILL')
    }
  })
})

describe('the throwaway environment', () => {
  it('puts HOME and the XDG folders in the scratch home and the key in the data dir', () => {
    const env = throwawayEnvironment('/tmp/run/home')
    expect(env).toMatchObject({ HOME: '/tmp/run/home', ASSENT_SECRET_STORE: 'file' })
    for (const name of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME'])
      expect(env[name]?.startsWith('/tmp/run/home/')).toBe(true)
  })
})

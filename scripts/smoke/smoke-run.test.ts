import { spawn } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { AssertionFailed, CaseRecorder, type CaseDefinition } from './case-context.ts'
import type { SmokeDriver } from './drivers/smoke-driver.ts'
import { descendantsIn, processTree } from './process-cleanup.ts'
import { throwawayEnvironment } from './throwaway-env.ts'
import { waitFor } from './wait.ts'
import { scratchFolders } from './test-support/scratch.ts'

const scratch = scratchFolders('assent-smoke-run-')

// The recorder's cases below never touch the host.
const noHost = {} as SmokeDriver

const define = (id: string): CaseDefinition => ({ id, title: id, run: async () => undefined })

describe('the case recorder', () => {
  it('records a passing case with its assertions and its duration', () => {
    const recorder = new CaseRecorder(define('passes'), scratch())
    recorder.context(noHost, {}).check('two is two', 1 + 1 === 2, '2')
    expect(recorder.entry({ durationMs: 2_500.4 })).toEqual({
      id: 'passes',
      title: 'passes',
      ok: true,
      durationMs: 2_500,
      assertions: [{ name: 'two is two', ok: true, detail: '2' }],
      screenshots: [],
    })
  })

  it('stops a case at its first failed assertion, which becomes its error', () => {
    const seen: Array<[string, boolean]> = []
    const recorder = new CaseRecorder(define('fails'), scratch(), {
      onCheck: (name, ok) => seen.push([name, ok]),
    })
    const context = recorder.context(noHost, {})
    context.check('first', true)
    expect(() => context.check('second', false, 'saw 3')).toThrow(AssertionFailed)
    expect(seen).toEqual([
      ['first', true],
      ['second', false],
    ])
    // Playwright's own error for the same failure is not what the report says.
    const entry = recorder.entry({ durationMs: 1, error: 'Error: expect(received)…' })
    expect(entry).toMatchObject({ ok: false, error: 'second: saw 3' })
    expect(entry.assertions.map((assertion) => assertion.ok)).toEqual([true, false])
  })

  it('fails a case that threw or was stopped, and one that asserted nothing', () => {
    const threw = new CaseRecorder(define('throws'), scratch())
    threw.context(noHost, {}).check('before it threw', true)
    expect(threw.entry({ durationMs: 1, error: 'the page went away' })).toMatchObject({
      ok: false,
      error: 'the page went away',
    })
    const silent = new CaseRecorder(define('silent'), scratch())
    expect(silent.entry({ durationMs: 1 })).toMatchObject({
      ok: false,
      error: 'the case made no assertion',
    })
  })

  it("shares the run's state between the cases of one run", () => {
    const state: Record<string, unknown> = {}
    new CaseRecorder(define('one'), scratch()).context(noHost, state).state.room = 'r1'
    const later = new CaseRecorder(define('two'), scratch()).context(noHost, state)
    expect(later.state.room).toBe('r1')
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
    // sh starts sleep: sleep is this process's grandchild. Long enough to
    // outlast any busy moment; the whole group is killed at the end.
    const child = spawn('sh', ['-c', 'sleep 120 & wait'], { stdio: 'ignore', detached: true })
    try {
      // Waits for the event (sleep has started), with the shared ceiling.
      const grandchildren = await waitFor(() => {
        const found = processTree(child.pid!)
        return found.length > 0 ? found : undefined
      }, 'the grandchild')
      const tree = processTree(process.pid)
      expect(tree).toContain(child.pid)
      for (const pid of grandchildren) expect(tree).toContain(pid)
    } finally {
      process.kill(-child.pid!, 'SIGKILL')
    }
  })
})

describe('the throwaway environment', () => {
  it('puts HOME and the XDG folders in the scratch home and the key in the data folder', () => {
    const env = throwawayEnvironment('/tmp/run/home')
    expect(env).toMatchObject({ HOME: '/tmp/run/home', ASSENT_SECRET_STORE: 'file' })
    for (const name of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME'])
      expect(env[name]?.startsWith('/tmp/run/home/')).toBe(true)
  })
})

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { lstat, mkdir, mkdtemp, readFile, readdir, realpath, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { WAIT_TIMEOUT_MS } from '../../../scripts/test-timing.ts'
import { removeEntry, replaceFile } from './safe-file-ops.ts'

// Race loops: a second process keeps swapping one component of the path
// (a directory for a symbolic link to outside, or the file's name for a hard
// or symbolic link to a file outside) while the write or delete runs again
// and again. Whatever the interleaving, nothing outside the workspace may
// change. Each loop runs at least MIN_ITERATIONS times and until the tool
// has met the swapped-in link often enough, so it cannot pass without the
// race having happened; a path-based write under the same swaps is shown
// to land outside, so the swaps do reach a place a path call would follow.

const SWAPPER = fileURLToPath(new URL('./test-support/path-swapper.ts', import.meta.url))
const MIN_ITERATIONS = 1_000
/** How often each side of the race must have been seen. */
const MIN_EACH_OUTCOME = 10
const MAX_ITERATIONS = 50_000
const COMPONENTS = ['a', 'b', 'c'] as const

/** tmpfs where there is one: fsync is free there, and path lookup (what
 *  the race is about) is the same on every file system. */
const BASE = existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir()

let root: string
let ws: string
let outside: string
let target: string

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(BASE, 'assent-race-')))
  ws = path.join(root, 'ws')
  outside = path.join(root, 'outside')
  target = path.join(ws, ...COMPONENTS, 'target.txt')
  await mkdir(path.dirname(target), { recursive: true })
  await writeFile(target, 'inside\n')
  // For each directory component, an outside directory shaped like the rest
  // of the path, ending in a victim file a followed link would reach.
  for (const [index] of COMPONENTS.entries()) {
    const victim = path.join(outside, `k${index}`, ...COMPONENTS.slice(index + 1), 'target.txt')
    await mkdir(path.dirname(victim), { recursive: true })
    await writeFile(victim, `victim ${index}\n`)
  }
  await mkdir(path.join(outside, 'final'))
  await writeFile(path.join(outside, 'final', 'target.txt'), 'victim final\n')
  await mkdir(path.join(outside, 'tree', 'y'), { recursive: true })
  for (const n of [0, 1, 2]) await writeFile(path.join(outside, 'tree', 'y', `f${n}.txt`), `v${n}`)
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

interface Snapshot {
  [relative: string]: string
}

/** Every entry outside, with its type, inode and content. */
async function snapshot(dir: string, prefix = ''): Promise<Snapshot> {
  const out: Snapshot = {}
  for (const name of (await readdir(dir)).sort()) {
    const full = path.join(dir, name)
    const stats = await lstat(full)
    const key = path.join(prefix, name)
    if (stats.isDirectory()) {
      out[key] = `dir ${stats.ino}`
      Object.assign(out, await snapshot(full, key))
    } else {
      out[key] = `file ${stats.ino} ${await readFile(full, 'utf8')}`
    }
  }
  return out
}

interface Swapper {
  stop(): Promise<number>
}

async function startSwapper(args: string[]): Promise<Swapper> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [SWAPPER, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => {
    output += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  await waitFor(() => output.includes('ready\n'), 'the swapper to start swapping')
  return {
    async stop() {
      child.stdin.write('stop\n')
      const code = await exited
      expect(code).toBe(0)
      const last = output.trim().split('\n').at(-1) ?? '{}'
      return (JSON.parse(last) as { swaps: number }).swaps
    },
  }
}

async function waitFor(ready: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + WAIT_TIMEOUT_MS
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

async function outcome(act: () => Promise<unknown>): Promise<string> {
  try {
    await act()
    return 'done'
  } catch (error) {
    return String((error as { code?: unknown }).code ?? 'error')
  }
}

type Tally = Record<string, number>

/**
 * Runs `attempt` until it has run MIN_ITERATIONS times and `met` (the tool
 * refusing the swapped-in link) and success have each been seen
 * MIN_EACH_OUTCOME times, then stops the swapper and checks that nothing
 * outside changed.
 */
async function raceLoop(
  swapperArgs: string[],
  attempt: (i: number) => Promise<string>,
  met: readonly string[],
): Promise<Tally> {
  const before = await snapshot(outside)
  const swapper = await startSwapper(swapperArgs)
  const tally: Tally = {}
  let iterations = 0
  const seen = (codes: readonly string[]) =>
    codes.reduce((sum, code) => sum + (tally[code] ?? 0), 0)
  try {
    while (
      iterations < MAX_ITERATIONS &&
      (iterations < MIN_ITERATIONS ||
        seen(['done']) < MIN_EACH_OUTCOME ||
        seen(met) < MIN_EACH_OUTCOME)
    ) {
      const result = await attempt(iterations)
      tally[result] = (tally[result] ?? 0) + 1
      iterations += 1
    }
  } finally {
    const swaps = await swapper.stop()
    expect(swaps).toBeGreaterThan(0)
  }
  expect(await snapshot(outside)).toEqual(before)
  expect(iterations).toBeGreaterThanOrEqual(MIN_ITERATIONS)
  expect(seen(['done']), JSON.stringify(tally)).toBeGreaterThanOrEqual(MIN_EACH_OUTCOME)
  expect(seen(met), JSON.stringify(tally)).toBeGreaterThanOrEqual(MIN_EACH_OUTCOME)
  return tally
}

function componentPath(index: number): string {
  return path.join(ws, ...COMPONENTS.slice(0, index + 1))
}

describe('a write while a path component is swapped for a link to outside', () => {
  for (const [index, name] of COMPONENTS.entries()) {
    it(`never lands outside the workspace when directory ${name} is swapped`, async () => {
      await raceLoop(
        ['dir', componentPath(index), path.join(outside, `k${index}`)],
        (i) => outcome(() => replaceFile(target, `agent write ${i}\n`)),
        ['symlink_refused'],
      )
    })
  }

  it('never writes into an outside file swapped in as the name (hard or symbolic link)', async () => {
    await raceLoop(
      ['name', target, path.join(outside, 'final', 'target.txt')],
      (i) => outcome(() => replaceFile(target, `agent write ${i}\n`)),
      ['hard_linked_target', 'symlink_refused'],
    )
  })

  it('is shown to land outside when written by path under the same swaps', async () => {
    const victim = path.join(outside, 'k0', 'b', 'c', 'target.txt')
    const swapper = await startSwapper(['dir', componentPath(0), path.join(outside, 'k0')])
    let landedOutside = false
    try {
      for (let i = 0; i < MAX_ITERATIONS && !landedOutside; i += 1) {
        try {
          writeFileSync(target, `path write ${i}\n`)
        } catch {
          // the directory was aside at that moment
        }
        landedOutside = (await readFile(victim, 'utf8')).startsWith('path write')
      }
    } finally {
      await swapper.stop()
    }
    expect(landedOutside).toBe(true)
  })
})

describe('a delete while a path component is swapped for a link to outside', () => {
  /** Puts the target back (safely) and deletes it. */
  const recreateAndDelete = async (): Promise<string> => {
    await outcome(() => replaceFile(target, 'inside\n'))
    return outcome(() => removeEntry(target, { recursive: false }))
  }

  for (const [index, name] of COMPONENTS.entries()) {
    it(`never removes anything outside the workspace when directory ${name} is swapped`, async () => {
      await raceLoop(
        ['dir', componentPath(index), path.join(outside, `k${index}`)],
        recreateAndDelete,
        ['symlink_refused'],
      )
    })
  }

  it('never removes an outside file swapped in as the name', async () => {
    await raceLoop(
      ['name', target, path.join(outside, 'final', 'target.txt')],
      () => outcome(() => removeEntry(target, { recursive: false })),
      ['hard_linked_target', 'ENOENT'],
    )
  })

  it('never follows a link swapped into a tree it is removing', async () => {
    const tree = path.join(ws, 't')
    const inner = path.join(tree, 'x')
    const rebuildAndRemove = async (): Promise<string> => {
      for (const n of [0, 1, 2]) {
        await outcome(() => replaceFile(path.join(inner, 'y', `f${n}.txt`), `mine ${n}`))
      }
      return outcome(() => removeEntry(tree, { recursive: true }))
    }
    await mkdir(path.join(inner, 'y'), { recursive: true })
    await raceLoop(['dir', inner, path.join(outside, 'tree')], rebuildAndRemove, ['done'])
  })
})

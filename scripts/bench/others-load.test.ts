import { spawn, type ChildProcess } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { othersLoadMeasurable, processTree, sampleOthersLoad } from './others-load.ts'
import { requireOrSkip } from '../../tests/support/require-or-skip.ts'

// The bench judges its figures by what other processes demand of the cores,
// never by its own runtime and browser. These use real processes: a busy
// child of this one, and a busy process left to init (outside the tree).

const PROC_MISSING = othersLoadMeasurable() ? undefined : 'no /proc/stat here'
const started: ChildProcess[] = []
const orphans: number[] = []

afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL')
  for (const pid of orphans.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // Already gone.
    }
  }
})

/** Node, busy for `seconds` and then gone by itself: killing it stops the
 *  loop too (no shell or `timeout` left behind to keep a core busy). */
function busyArgs(seconds: number): string[] {
  return ['-e', `const end = Date.now() + ${seconds * 1_000}; while (Date.now() < end);`]
}

/** A busy loop for at most `seconds`, as a child of this process. */
function busyChild(seconds: number): ChildProcess {
  const child = spawn(process.execPath, busyArgs(seconds), { stdio: 'ignore' })
  started.push(child)
  return child
}

/** A busy loop for at most `seconds` whose parent has exited, so it is no
 *  descendant of this process; resolves with its pid. */
function busyOrphan(seconds: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const node = JSON.stringify(process.execPath)
    const script = JSON.stringify(busyArgs(seconds)[1])
    const shell = spawn('sh', ['-c', `${node} -e ${script} >/dev/null 2>&1 & echo $!`], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    let out = ''
    shell.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')))
    shell.on('error', reject)
    shell.on('close', () => {
      const pid = Number(out.trim())
      if (!Number.isInteger(pid) || pid <= 0) reject(new Error(`no pid in ${JSON.stringify(out)}`))
      orphans.push(pid)
      resolve(pid)
    })
  })
}

describe('the load other processes put on the machine', () => {
  it('counts this process and its children as the bench, and a process left to init as not', async () => {
    if (!requireOrSkip('the load sampler', PROC_MISSING, 'it reads Linux /proc')) return
    const child = busyChild(5)
    const orphan = await busyOrphan(5)
    const tree = processTree(process.pid)
    expect(tree[0]).toBe(process.pid)
    expect(tree).toContain(child.pid)
    expect(tree).not.toContain(orphan)
  })

  it('sees a busy process outside the bench as demand on the cores', async () => {
    if (!requireOrSkip('the load sampler', PROC_MISSING, 'it reads Linux /proc')) return
    await busyOrphan(4)
    const sampler = sampleOthersLoad()
    await new Promise((resolve) => setTimeout(resolve, 2_200))
    const load = await sampler.stop()
    expect(load).not.toBeNull()
    expect(load!.samples).toBeGreaterThanOrEqual(3)
    // At least the one busy loop; other processes of a shared machine (or
    // of this test run) can only add to it.
    expect(load!.mean).toBeGreaterThanOrEqual(0.6)
  })
})

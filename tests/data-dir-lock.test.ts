import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { DataDirLock } from '../src/main/core/data-dir-lock.ts'
import { runNodeArgv } from './support/integrity-helpers.ts'

// Real processes contend for a real file lock: the lock is the operating
// system's, so only separate processes show that it holds across them and
// that the kernel drops it when its holder dies.

const LOCK_MODULE = fileURLToPath(new URL('../src/main/core/data-dir-lock.ts', import.meta.url))

/** A Node script that tries the lock once and prints `held` or `refused`;
 *  when it got the lock it keeps it until it is killed. */
const TRY_LOCK = `
const { DataDirLock } = await import(${JSON.stringify(LOCK_MODULE)})
const lock = DataDirLock.acquire(process.argv[1])
console.log(lock ? 'held' : 'refused')
if (lock) setInterval(() => {}, 60_000)
`

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'assent-lock-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Starts a process that takes the lock and holds it; resolves once it
 *  says it holds it. */
async function holder(dataDir: string): Promise<ChildProcessWithoutNullStreams> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', TRY_LOCK, dataDir], {
    stdio: 'pipe',
  })
  cleanups.push(() => child.kill('SIGKILL'))
  const said = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8')
      if (out.includes('\n')) resolve(out.trim())
    })
    child.on('error', reject)
    child.on('exit', (code) => reject(new Error(`the holder exited (${code}) before answering`)))
  })
  expect(said).toBe('held')
  return child
}

/** What another process answers when it tries the lock (it exits at once
 *  when refused). */
async function tryInAnotherProcess(dataDir: string): Promise<string> {
  const result = await runNodeArgv(
    ['--input-type=module', '-e', TRY_LOCK.replace('setInterval', 'void'), dataDir],
    process.env,
  )
  expect(result.stderr).toBe('')
  return result.stdout.trim()
}

function exited(child: ChildProcessWithoutNullStreams): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once('exit', () => resolve())
  })
}

describe('the data folder lock (one Assent per ASSENT_DATA_DIR)', () => {
  it('refuses a second process while the first holds the data folder', async () => {
    const dataDir = scratchDir()
    await holder(dataDir)
    expect(await tryInAnotherProcess(dataDir)).toBe('refused')
    expect(DataDirLock.acquire(dataDir)).toBeUndefined()
  })

  it('is free again as soon as its holder is killed, with nothing stale left behind', async () => {
    const dataDir = scratchDir()
    const first = await holder(dataDir)
    first.kill('SIGKILL')
    await exited(first)
    const lock = DataDirLock.acquire(dataDir)
    expect(lock).toBeDefined()
    cleanups.push(() => lock?.release())
    expect(await tryInAnotherProcess(dataDir)).toBe('refused')
  })

  it('holds against a second path to the same folder', async () => {
    const dataDir = scratchDir()
    const alias = join(scratchDir(), 'alias')
    symlinkSync(dataDir, alias)
    await holder(dataDir)
    expect(await tryInAnotherProcess(alias)).toBe('refused')
  })

  it('does not tie two different data folders together', async () => {
    await holder(scratchDir())
    expect(await tryInAnotherProcess(scratchDir())).toBe('held')
  })

  it('refuses a second lock in the same process, and frees the folder on release', () => {
    const dataDir = join(scratchDir(), 'not-yet-made')
    const lock = DataDirLock.acquire(dataDir)
    expect(lock).toBeDefined()
    expect(DataDirLock.acquire(dataDir)).toBeUndefined()
    lock?.release()
    const again = DataDirLock.acquire(dataDir)
    expect(again).toBeDefined()
    again?.release()
  })

  it('fails loudly, rather than assuming the folder free, when the lock cannot be checked', () => {
    const dataDir = scratchDir()
    // A folder where the lock file should be: SQLite cannot open it.
    const blocked = join(dataDir, 'assent-instance.lock')
    mkdirSync(blocked)
    expect(() => DataDirLock.acquire(dataDir)).toThrow()
  })
})

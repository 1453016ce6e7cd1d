import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { WAIT_TIMEOUT_MS } from '../../../scripts/test-timing.ts'
import { regularFileText } from './regular-file-text.ts'

// A named pipe where git keeps a pointer, a config or a `commondir` must
// never hold the runtime's thread: the reads that would are run in a child
// process here, so a read that waits fails the test instead of holding the
// test's own thread for good.

const folder = mkdtempSync(path.join(tmpdir(), 'assent-regular-file-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

const WALK = fileURLToPath(new URL('./read-only-walk.ts', import.meta.url))
const READ = fileURLToPath(new URL('./regular-file-text.ts', import.meta.url))

/** Runs `script` (an ES module body) in a child node; what it prints, or a
 *  failure once the ceiling passes (the read waited on a pipe). */
function inChild(script: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: WAIT_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  })
}

describe('regularFileText', () => {
  it('reads a regular file whole, however long', () => {
    const file = path.join(folder, 'config')
    const long = `[core]\n${'\t# x\n'.repeat(50_000)}\thooksPath = h\n`
    writeFileSync(file, long)
    expect(regularFileText(file)).toBe(long)
  })

  it('reads what is there when the file holds more than its size said', () => {
    // A file in /proc reports a size of 0 and holds text: read as a file
    // that grew after it was looked at is.
    const status = regularFileText('/proc/self/status')
    expect(status).toMatch(/^Name:\t/)
    expect(status).toMatch(/\nPid:\t\d+\n/)
  })

  it('reads an empty file as empty text', () => {
    const file = path.join(folder, 'empty')
    writeFileSync(file, '')
    expect(regularFileText(file)).toBe('')
  })

  it('reads up to the cap and refuses one byte past it (EFBIG)', () => {
    const file = path.join(folder, 'capped')
    writeFileSync(file, 'x'.repeat(100))
    expect(regularFileText(file, 100)).toBe('x'.repeat(100))
    expect(() => regularFileText(file, 99)).toThrow(expect.objectContaining({ code: 'EFBIG' }))
    // The cap holds for a file that says it is smaller than it is.
    expect(() => regularFileText('/proc/self/status', 10)).toThrow(
      expect.objectContaining({ code: 'EFBIG' }),
    )
  })

  it('refuses a folder as a read of one fails (EISDIR)', () => {
    expect(() => regularFileText(folder)).toThrow(expect.objectContaining({ code: 'EISDIR' }))
  })

  it('refuses a named pipe without waiting for a writer', () => {
    const pipe = path.join(folder, 'pipe')
    execFileSync('mkfifo', [pipe])
    const printed = inChild(
      `import { regularFileText } from ${JSON.stringify(READ)}
       try { regularFileText(${JSON.stringify(pipe)}); console.log('read') }
       catch (error) { console.log(error.code) }`,
    )
    expect(printed.trim()).toBe('ENOTREGULAR')
  })
})

describe('the walk for what only a person may change', () => {
  it.each([
    ['a nested repository’s .git pointer', 'sub/.git'],
    ['a nested repository’s config', 'sub/.git/config'],
    ['a worktree git folder’s commondir', 'wt/.git/commondir'],
  ])('ends, whatever %s is a named pipe', (_what, fifo) => {
    const workspace = mkdtempSync(path.join(folder, 'ws-'))
    mkdirSync(path.dirname(path.join(workspace, fifo)), { recursive: true })
    if (fifo.includes('.git/')) {
      writeFileSync(path.join(path.dirname(path.join(workspace, fifo)), 'HEAD'), 'ref: x\n')
      mkdirSync(path.join(path.dirname(path.join(workspace, fifo)), 'objects'))
      mkdirSync(path.join(path.dirname(path.join(workspace, fifo)), 'refs'))
    }
    execFileSync('mkfifo', [path.join(workspace, fifo)])
    const printed = inChild(
      `import { personOnlyPathsInRoots } from ${JSON.stringify(WALK)}
       const walked = personOnlyPathsInRoots([${JSON.stringify(workspace)}])
       console.log(JSON.stringify(walked.paths))`,
    )
    expect(JSON.parse(printed)).toContain(path.join(workspace, fifo.split('/.git')[0] + '/.git'))
  })
})

import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { link, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { listDirTool, readFileTool } from './read-tools.ts'
import { MAX_TOOL_OUTPUT_BYTES } from './tool-types.ts'
import type { ToolContext } from './tool-types.ts'
import { requireOrSkip } from '../../../tests/support/require-or-skip.ts'
import { releaseWaitingReader, swapBeforeOpen } from './test-support/swapped-before-open.ts'

/** O_NOFOLLOW is POSIX: on Windows the test below cannot run, and says so. */
const HAS_NOFOLLOW = requireOrSkip(
  'O_NOFOLLOW',
  process.platform === 'win32' ? 'Windows has no O_NOFOLLOW' : undefined,
  'run this test on Linux or macOS',
)

let ws: string

beforeEach(async () => {
  ws = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-read-')))
})

afterEach(async () => {
  vi.restoreAllMocks()
  await rm(ws, { recursive: true, force: true })
})

/** `work`, or a failure once 5 s pass: an open that waits for a pipe's
 *  writer never settles. */
function withinCeiling<T>(work: Promise<T>): Promise<T> {
  const ceiling = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error('the read waited on the pipe')), 5_000).unref(),
  )
  return Promise.race([work, ceiling])
}

const ctx = (...resolvedPaths: string[]): ToolContext => ({
  workspace: ws,
  resolvedPaths,
  timeoutMs: 5_000,
})

describe('read_file', () => {
  it('refuses, as a workspace read, a file with another name, and reads it once a person allowed it', async () => {
    const outside = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-read-out-')))
    try {
      await writeFile(path.join(outside, 'secret.txt'), 'secret')
      await link(path.join(outside, 'secret.txt'), path.join(ws, 'hl.txt'))
      const target = path.join(ws, 'hl.txt')
      expect(await readFileTool.run({ path: 'hl.txt' }, ctx(target))).toMatchObject({
        ok: false,
        code: 'hard_linked_target',
      })
      expect(
        await readFileTool.run({ path: 'hl.txt' }, { ...ctx(target), readReach: 'any' }),
      ).toEqual({ ok: true, output: 'secret' })
    } finally {
      await rm(outside, { recursive: true, force: true })
    }
  })

  it('never reads through a directory of the path that became a symbolic link', async () => {
    const outside = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-read-out-')))
    try {
      await writeFile(path.join(outside, 'secret.txt'), 'secret')
      await symlink(outside, path.join(ws, 'sub'))
      const checked = path.join(ws, 'sub', 'secret.txt')
      const read = await readFileTool.run({ path: 'sub/secret.txt' }, ctx(checked))
      expect(read).toMatchObject({ ok: false, code: 'symlink_refused' })
      const listed = await listDirTool.run({ path: 'sub' }, ctx(path.join(ws, 'sub')))
      expect(listed).toMatchObject({ ok: false, code: 'symlink_refused' })
    } finally {
      await rm(outside, { recursive: true, force: true })
    }
  })

  it('returns the file content', async () => {
    await writeFile(path.join(ws, 'note.txt'), 'hello, 世界')
    const result = await readFileTool.run({ path: 'note.txt' }, ctx(path.join(ws, 'note.txt')))
    expect(result).toEqual({ ok: true, output: 'hello, 世界' })
  })

  it('reads the checked path, never the raw argument', async () => {
    await writeFile(path.join(ws, 'checked.txt'), 'checked')
    await writeFile(path.join(ws, 'raw.txt'), 'raw')
    const result = await readFileTool.run({ path: 'raw.txt' }, ctx(path.join(ws, 'checked.txt')))
    expect(result.output).toBe('checked')
  })

  it('refuses to run without a checked path', async () => {
    await writeFile(path.join(ws, 'raw.txt'), 'raw')
    const result = await readFileTool.run({ path: path.join(ws, 'raw.txt') }, ctx())
    expect(result).toMatchObject({ ok: false, code: 'no_path' })
  })

  it('caps a large file and says it did', async () => {
    const size = MAX_TOOL_OUTPUT_BYTES + 10_000
    await writeFile(path.join(ws, 'big.txt'), 'x'.repeat(size))
    const result = await readFileTool.run({ path: 'big.txt' }, ctx(path.join(ws, 'big.txt')))
    expect(result.ok).toBe(true)
    expect(result.output.startsWith('x'.repeat(MAX_TOOL_OUTPUT_BYTES))).toBe(true)
    expect(result.output).not.toContain('x'.repeat(MAX_TOOL_OUTPUT_BYTES + 1))
    expect(result.output).toContain(`showed the first ${MAX_TOOL_OUTPUT_BYTES} of ${size} bytes`)
  })

  it('reports a missing file without throwing', async () => {
    const result = await readFileTool.run({ path: 'nope' }, ctx(path.join(ws, 'nope')))
    expect(result).toMatchObject({ ok: false, code: 'not_found' })
  })

  it('refuses a directory', async () => {
    await mkdir(path.join(ws, 'dir'))
    const result = await readFileTool.run({ path: 'dir' }, ctx(path.join(ws, 'dir')))
    expect(result).toMatchObject({ ok: false, code: 'not_a_file' })
  })

  it.runIf(HAS_NOFOLLOW)(
    'refuses a checked path that has become a symlink since the check (POSIX: Windows has no O_NOFOLLOW)',
    async () => {
      await writeFile(path.join(ws, 'target.txt'), 'elsewhere')
      await symlink(path.join(ws, 'target.txt'), path.join(ws, 'swapped'))
      const result = await readFileTool.run({ path: 'swapped' }, ctx(path.join(ws, 'swapped')))
      expect(result).toMatchObject({ ok: false, code: 'symlink_refused' })
    },
  )

  it('refuses a named pipe as not a file, without waiting for a writer', async () => {
    const pipe = path.join(ws, 'pipe')
    execFileSync('mkfifo', [pipe])
    try {
      const read = await withinCeiling(readFileTool.run({ path: 'pipe' }, ctx(pipe)))
      expect(read).toMatchObject({ ok: false, code: 'not_a_file' })
    } finally {
      releaseWaitingReader(pipe)
    }
  })

  it('refuses, without waiting on it, a named pipe swapped in after the entry was looked at', async () => {
    const target = path.join(ws, 'a.txt')
    await writeFile(target, 'a file')
    swapBeforeOpen(() => {
      rmSync(target)
      execFileSync('mkfifo', [target])
    })
    try {
      const read = await withinCeiling(readFileTool.run({ path: 'a.txt' }, ctx(target)))
      expect(read).toMatchObject({ ok: false, code: 'not_a_file' })
    } finally {
      releaseWaitingReader(target)
    }
  })

  it('reads, as a workspace read, nothing outside the workspace, and reads it once a person allowed it', async () => {
    const outside = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-read-out-')))
    try {
      const secret = path.join(outside, 'secret.txt')
      await writeFile(secret, 'what lies outside')
      const read = await readFileTool.run({ path: 'secret.txt' }, ctx(secret))
      expect(read).toMatchObject({ ok: false, code: 'target_changed' })
      expect(read.output).not.toContain('what lies outside')
      const listed = await listDirTool.run({ path: outside }, ctx(outside))
      expect(listed).toMatchObject({ ok: false, code: 'target_changed' })
      expect(
        await readFileTool.run({ path: 'secret.txt' }, { ...ctx(secret), readReach: 'any' }),
      ).toEqual({ ok: true, output: 'what lies outside' })
      expect(
        await listDirTool.run({ path: outside }, { ...ctx(outside), readReach: 'any' }),
      ).toEqual({ ok: true, output: 'secret.txt' })
    } finally {
      await rm(outside, { recursive: true, force: true })
    }
  })

  it('reads nothing as a workspace read when the workspace cannot be resolved', async () => {
    await writeFile(path.join(ws, 'note.txt'), 'hello')
    const gone = { ...ctx(path.join(ws, 'note.txt')), workspace: path.join(ws, 'missing') }
    expect(await readFileTool.run({ path: 'note.txt' }, gone)).toMatchObject({
      ok: false,
      code: 'target_changed',
    })
  })

  it('declares itself a non-destructive read of its path', () => {
    expect(readFileTool.effect).toBe('read')
    expect(readFileTool.kind).toBe('read')
    expect(readFileTool.destructive({ path: 'a' })).toBe(false)
    expect(readFileTool.targetPaths({ path: 'a/b.txt' })).toEqual(['a/b.txt'])
  })
})

describe('list_dir', () => {
  it('lists entries sorted, marking directories and symlinks', async () => {
    await writeFile(path.join(ws, 'b.txt'), '')
    await mkdir(path.join(ws, 'a-dir'))
    await symlink(path.join(ws, 'b.txt'), path.join(ws, 'c-link'))
    const result = await listDirTool.run({ path: '.' }, ctx(ws))
    expect(result).toEqual({ ok: true, output: 'a-dir/\nb.txt\nc-link@' })
  })

  it('says when a directory is empty', async () => {
    await mkdir(path.join(ws, 'empty'))
    const result = await listDirTool.run({ path: 'empty' }, ctx(path.join(ws, 'empty')))
    expect(result).toEqual({
      ok: true,
      output: '(empty directory)',
      message: { code: 'tool.emptyDirectory' },
    })
  })

  it('reports a file given as a directory without throwing', async () => {
    await writeFile(path.join(ws, 'f'), '')
    const result = await listDirTool.run({ path: 'f' }, ctx(path.join(ws, 'f')))
    expect(result).toMatchObject({ ok: false, code: 'not_directory' })
  })
})

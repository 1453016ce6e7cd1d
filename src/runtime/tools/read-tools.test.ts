import { link, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { listDirTool, readFileTool } from './read-tools.ts'
import { MAX_TOOL_OUTPUT_BYTES } from './tool-types.ts'
import type { ToolContext } from './tool-types.ts'
import { requireOrSkip } from '../../../tests/support/require-or-skip.ts'

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
  await rm(ws, { recursive: true, force: true })
})

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

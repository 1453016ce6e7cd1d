import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { deleteFileTool, writeFileTool } from './change-tools.ts'
import type { ToolContext } from './tool-types.ts'

let ws: string

beforeEach(async () => {
  ws = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-change-')))
})

afterEach(async () => {
  await rm(ws, { recursive: true, force: true })
})

const ctx = (...resolvedPaths: string[]): ToolContext => ({
  workspace: ws,
  resolvedPaths,
  timeoutMs: 5_000,
})

describe('write_file', () => {
  it('creates the file and its missing parent directories', async () => {
    const target = path.join(ws, 'a', 'b', 'note.txt')
    const result = await writeFileTool.run({ path: 'a/b/note.txt', content: 'hi ✓' }, ctx(target))
    expect(result.ok).toBe(true)
    expect(result.output).toContain('wrote 6 bytes')
    expect(await readFile(target, 'utf8')).toBe('hi ✓')
  })

  it('replaces an existing file entirely', async () => {
    const target = path.join(ws, 'note.txt')
    await writeFile(target, 'a much longer original content')
    await writeFileTool.run({ path: 'note.txt', content: 'short' }, ctx(target))
    expect(await readFile(target, 'utf8')).toBe('short')
  })

  it('writes to the checked path, never the raw argument', async () => {
    const checked = path.join(ws, 'checked.txt')
    await writeFileTool.run({ path: 'raw.txt', content: 'x' }, ctx(checked))
    expect(existsSync(checked)).toBe(true)
    expect(existsSync(path.join(ws, 'raw.txt'))).toBe(false)
  })

  it('refuses to run without a checked path', async () => {
    const result = await writeFileTool.run({ path: path.join(ws, 'raw.txt'), content: 'x' }, ctx())
    expect(result).toMatchObject({ ok: false, code: 'no_path' })
    expect(existsSync(path.join(ws, 'raw.txt'))).toBe(false)
  })

  it('reports writing onto a directory without throwing', async () => {
    await mkdir(path.join(ws, 'dir'))
    const result = await writeFileTool.run({ path: 'dir', content: 'x' }, ctx(path.join(ws, 'dir')))
    expect(result).toMatchObject({ ok: false, code: 'is_directory' })
  })

  it('declares a non-destructive write', () => {
    expect(writeFileTool.effect).toBe('write')
    expect(writeFileTool.kind).toBe('apply-changes')
    expect(writeFileTool.destructive({ path: 'a', content: '' })).toBe(false)
  })

  it('rejects unknown argument keys', () => {
    const parsed = writeFileTool.argsSchema.safeParse({ path: 'a', content: '', mode: 0o777 })
    expect(parsed.success).toBe(false)
  })
})

describe('delete_file', () => {
  it('deletes a file', async () => {
    const target = path.join(ws, 'gone.txt')
    await writeFile(target, 'x')
    const result = await deleteFileTool.run({ path: 'gone.txt' }, ctx(target))
    expect(result.ok).toBe(true)
    expect(existsSync(target)).toBe(false)
  })

  it('deletes an empty directory without recursive', async () => {
    const target = path.join(ws, 'empty')
    await mkdir(target)
    expect((await deleteFileTool.run({ path: 'empty' }, ctx(target))).ok).toBe(true)
    expect(existsSync(target)).toBe(false)
  })

  it('keeps a non-empty directory unless asked to recurse', async () => {
    const target = path.join(ws, 'full')
    await mkdir(target)
    await writeFile(path.join(target, 'f'), 'x')
    const result = await deleteFileTool.run({ path: 'full' }, ctx(target))
    expect(result).toMatchObject({ ok: false, code: 'not_empty' })
    expect(existsSync(path.join(target, 'f'))).toBe(true)
  })

  it('deletes a whole tree with recursive', async () => {
    const target = path.join(ws, 'tree')
    await mkdir(path.join(target, 'deep'), { recursive: true })
    await writeFile(path.join(target, 'deep', 'f'), 'x')
    const result = await deleteFileTool.run({ path: 'tree', recursive: true }, ctx(target))
    expect(result.ok).toBe(true)
    expect(existsSync(target)).toBe(false)
  })

  it('refuses to delete the workspace itself', async () => {
    await writeFile(path.join(ws, 'keep'), 'x')
    const result = await deleteFileTool.run({ path: '.', recursive: true }, ctx(ws))
    expect(result).toMatchObject({ ok: false, code: 'refused_root' })
    expect(existsSync(path.join(ws, 'keep'))).toBe(true)
  })

  it('refuses to delete the file-system root', async () => {
    const root = path.parse(ws).root
    const result = await deleteFileTool.run({ path: root, recursive: true }, ctx(root))
    expect(result).toMatchObject({ ok: false, code: 'refused_root' })
  })

  it('reports a missing file without throwing', async () => {
    const result = await deleteFileTool.run({ path: 'nope' }, ctx(path.join(ws, 'nope')))
    expect(result).toMatchObject({ ok: false, code: 'not_found' })
  })

  it('declares itself destructive', () => {
    expect(deleteFileTool.effect).toBe('write')
    expect(deleteFileTool.destructive({ path: 'a' })).toBe(true)
    expect(deleteFileTool.summarize({ path: 'a', recursive: true })).toContain('everything in it')
  })
})

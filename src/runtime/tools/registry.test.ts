import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm, symlink } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { checkToolAccess } from '../policy/sandbox.ts'
import { TOOLS, TOOL_NAMES, getTool, prepareToolCall } from './registry.ts'

describe('tool registry', () => {
  it('holds exactly the five runtime tools, each under its own name', () => {
    expect([...TOOL_NAMES].sort()).toEqual([
      'delete_file',
      'list_dir',
      'read_file',
      'run_command',
      'write_file',
    ])
    for (const name of TOOL_NAMES) expect(TOOLS[name].name).toBe(name)
  })

  it('declares the effect and kind the policy relies on', () => {
    expect(
      TOOL_NAMES.map((n) => [n, TOOLS[n].effect, TOOLS[n].kind]).sort(([a], [b]) =>
        String(a).localeCompare(String(b)),
      ),
    ).toEqual([
      ['delete_file', 'write', 'apply-changes'],
      ['list_dir', 'read', 'read'],
      ['read_file', 'read', 'read'],
      ['run_command', 'execute', 'run-command'],
      ['write_file', 'write', 'apply-changes'],
    ])
  })

  it('finds nothing for inherited names a model might emit', () => {
    expect(getTool('constructor')).toBeUndefined()
    expect(getTool('__proto__')).toBeUndefined()
    expect(getTool('toString')).toBeUndefined()
    expect(getTool('read_file')).toBe(TOOLS.read_file)
  })

  it('cannot be extended at run time', () => {
    expect(Object.isFrozen(TOOLS)).toBe(true)
  })
})

describe('prepareToolCall', () => {
  it('refuses an unknown tool', () => {
    expect(prepareToolCall('format_disk', {})).toEqual({
      ok: false,
      reason: 'unknown tool "format_disk"',
    })
  })

  it('refuses unknown argument keys and names the field', () => {
    const r = prepareToolCall('write_file', { path: 'a', content: 'x', append: true })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toMatch(/append|unrecognized/i)
  })

  it('names a missing field', () => {
    const r = prepareToolCall('read_file', {})
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toContain('path')
  })

  it('works out destructiveness, target paths and a summary', () => {
    const r = prepareToolCall('delete_file', { path: 'build', recursive: true })
    expect(r).toMatchObject({
      ok: true,
      call: { destructive: true, targetPaths: ['build'], args: { path: 'build', recursive: true } },
    })
  })
})

describe('a checked call end to end', () => {
  let base: string
  let ws: string

  beforeEach(async () => {
    base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-registry-')))
    ws = path.join(base, 'ws')
    await mkdir(ws)
    await mkdir(path.join(base, 'outside'))
    await symlink(path.join(base, 'outside'), path.join(ws, 'out'))
  })

  afterEach(async () => {
    await rm(base, { recursive: true, force: true })
  })

  async function runChecked(name: string, rawArgs: unknown) {
    const prepared = prepareToolCall(name, rawArgs)
    if (!prepared.ok) throw new Error(prepared.reason)
    const { tool, args, targetPaths } = prepared.call
    const access = await checkToolAccess({
      sandboxMode: 'workspace-write',
      effect: tool.effect,
      paths: targetPaths,
      workspace: ws,
      agent: { readOnly: false },
    })
    if (!access.allowed) return access
    return tool.run(args, { workspace: ws, resolvedPaths: access.paths, timeoutMs: 5_000 })
  }

  it('writes a file inside the workspace', async () => {
    expect(await runChecked('write_file', { path: 'src/a.txt', content: 'ok' })).toMatchObject({
      ok: true,
    })
    expect(await readFile(path.join(ws, 'src', 'a.txt'), 'utf8')).toBe('ok')
  })

  it('never writes through a symlink that points outside', async () => {
    const result = await runChecked('write_file', { path: 'out/evil.txt', content: 'x' })
    expect(result).toMatchObject({ allowed: false, code: 'outside_workspace' })
    expect(existsSync(path.join(base, 'outside', 'evil.txt'))).toBe(false)
  })
})

import { mkdir, mkdtemp, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SandboxMode, ToolEffect } from '../../contracts/policy-axes.ts'
import { checkToolAccess, type AccessCheck, type AgentCeilings } from './sandbox.ts'

// The turn's extra writable roots: directories a permission request let this
// one turn write in, beyond the workspace.

let base: string
let ws: string
let granted: string
let sibling: string
const fullAgent: AgentCeilings = { readOnly: false }

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-extra-roots-')))
  ws = path.join(base, 'ws')
  granted = path.join(base, 'granted')
  // Shares the granted folder's name as a prefix: not inside it.
  sibling = path.join(base, 'granted-evil')
  await mkdir(ws)
  await mkdir(path.join(granted, 'sub'), { recursive: true })
  await mkdir(sibling)
  await symlink(granted, path.join(ws, 'link-granted'))
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

function check(
  effect: ToolEffect,
  paths: string[],
  extraWritableRoots: readonly string[] | undefined,
  options: { sandboxMode?: SandboxMode; agent?: AgentCeilings } = {},
): Promise<AccessCheck> {
  return checkToolAccess({
    sandboxMode: options.sandboxMode ?? 'workspace-write',
    effect,
    paths,
    workspace: ws,
    agent: options.agent ?? fullAgent,
    ...(extraWritableRoots === undefined ? {} : { extraWritableRoots }),
  })
}

describe('a directory the person let this turn write in', () => {
  it('lets a write land inside it, marked as widened so no workspace grant answers for it', async () => {
    const target = path.join(granted, 'sub', 'new.txt')
    expect(await check('write', [target], [granted])).toEqual({
      allowed: true,
      paths: [target],
      widened: true,
    })
    expect(
      await check('write', [path.join(granted, 'x.txt')], [granted], {
        sandboxMode: 'external-sandbox',
      }),
    ).toEqual({ allowed: true, paths: [path.join(granted, 'x.txt')], widened: true })
  })

  it('resolves a path that reaches it through a symlink in the workspace to the real path', async () => {
    expect(await check('write', ['link-granted/y.txt'], [granted])).toEqual({
      allowed: true,
      paths: [path.join(granted, 'y.txt')],
      widened: true,
    })
  })

  it('marks nothing widened when every path stays in the workspace', async () => {
    expect(await check('write', ['in.txt'], [granted])).toEqual({
      allowed: true,
      paths: [path.join(ws, 'in.txt')],
    })
  })

  it('marks the whole call widened when one of its paths needed the widening', async () => {
    const outsideTarget = path.join(granted, 'z.txt')
    expect(await check('write', ['in.txt', outsideTarget], [granted])).toEqual({
      allowed: true,
      paths: [path.join(ws, 'in.txt'), outsideTarget],
      widened: true,
    })
  })

  it('widens writes only: a command run there stays confined to the workspace', async () => {
    expect(await check('execute', [granted], [granted])).toMatchObject({
      allowed: false,
      code: 'outside_workspace',
    })
    expect(await check('network', [path.join(granted, 'dl')], [granted])).toMatchObject({
      allowed: false,
      code: 'outside_workspace',
    })
  })

  it('refuses a write next to it, in a folder whose name merely starts the same', async () => {
    expect(await check('write', [path.join(sibling, 'x.txt')], [granted])).toMatchObject({
      allowed: false,
      code: 'outside_workspace',
    })
  })

  it('refuses a write outside the workspace when the turn widened nothing', async () => {
    for (const roots of [undefined, []]) {
      expect(await check('write', [path.join(granted, 'x.txt')], roots)).toMatchObject({
        allowed: false,
        code: 'outside_workspace',
      })
    }
  })

  it('rescues no path the workspace refuses for being malformed', async () => {
    expect(await check('write', ['ws/../../granted/x.txt'], [granted])).toMatchObject({
      allowed: false,
      code: 'invalid_path',
    })
    expect(await check('write', [`${granted}/a\0b`], [granted])).toMatchObject({
      allowed: false,
    })
  })

  it('gives nothing past the read-only sandbox, a read-only agent or the agent roots', async () => {
    const target = path.join(granted, 'x.txt')
    expect(await check('write', [target], [granted], { sandboxMode: 'read-only' })).toMatchObject({
      allowed: false,
      code: 'sandbox_read_only',
    })
    expect(await check('write', [target], [granted], { agent: { readOnly: true } })).toMatchObject({
      allowed: false,
      code: 'read_only_agent',
    })
    expect(
      await check('write', [target], [granted], {
        agent: { readOnly: false, allowedRepositoryRoots: [ws] },
      }),
    ).toMatchObject({ allowed: false, code: 'outside_agent_roots' })
  })

  it('counts a root only while it is still the directory the person allowed', async () => {
    // Swapped for a symlink after the decision: it redirects nothing.
    const swapped = path.join(base, 'swapped')
    const elsewhere = path.join(base, 'elsewhere')
    await mkdir(swapped)
    await mkdir(elsewhere)
    expect(await check('write', [path.join(swapped, 'a.txt')], [swapped])).toMatchObject({
      allowed: true,
    })
    await rename(swapped, path.join(base, 'swapped-old'))
    await symlink(elsewhere, swapped)
    expect(await check('write', [path.join(swapped, 'a.txt')], [swapped])).toMatchObject({
      allowed: false,
      code: 'outside_workspace',
    })

    // A folder above it swapped for a symlink: the same.
    const parent = path.join(base, 'parent')
    const root = path.join(parent, 'root')
    await mkdir(root, { recursive: true })
    await mkdir(path.join(elsewhere, 'root'))
    await rename(parent, path.join(base, 'parent-old'))
    await symlink(elsewhere, parent)
    expect(await check('write', [path.join(root, 'a.txt')], [root])).toMatchObject({
      allowed: false,
      code: 'outside_workspace',
    })

    // Removed after the decision: it holds nothing, and is not made again.
    const gone = path.join(base, 'gone')
    await mkdir(gone)
    await rm(gone, { recursive: true })
    expect(await check('write', [path.join(gone, 'a.txt')], [gone])).toMatchObject({
      allowed: false,
      code: 'outside_workspace',
    })

    // Replaced by a file: it holds nothing.
    const file = path.join(base, 'now-a-file')
    await writeFile(file, 'x')
    expect(await check('write', [path.join(file, 'a.txt')], [file])).toMatchObject({
      allowed: false,
    })
  })

  it('finds the root that holds the path among several, skipping those that no longer exist', async () => {
    const missing = path.join(base, 'missing-root')
    const target = path.join(granted, 'x.txt')
    expect(await check('write', [target], [missing, sibling, granted])).toEqual({
      allowed: true,
      paths: [target],
      widened: true,
    })
  })
})

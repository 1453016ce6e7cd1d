import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rootsInWorkspace } from './mcp-roots.ts'

let base: string
let ws: string
let outside: string

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-roots-')))
  ws = path.join(base, 'ws')
  outside = path.join(base, 'outside')
  await mkdir(path.join(ws, 'src', 'lib'), { recursive: true })
  await mkdir(path.join(ws, '.git'))
  await mkdir(outside)
  await mkdir(path.join(base, 'ws-evil'))
  await writeFile(path.join(ws, 'readme.txt'), 'a file, not a folder')
  await symlink(outside, path.join(ws, 'link-out'))
  await symlink(path.join(ws, 'src'), path.join(base, 'link-in'))
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

const url = (folder: string) => pathToFileURL(folder).href

describe('rootsInWorkspace: what of the agent’s roots a server behind the gateway sees', () => {
  // Each row: the root the agent gave, and the folder the server is shown
  // in its place (null: dropped, with the reason given).
  const table: Array<[string, () => string, () => string | null, string?]> = [
    ['the workspace', () => url(ws), () => ws],
    // A folder inside it is shown as the workspace: a server takes
    // relative paths from its roots, every door from the workspace.
    ['a folder inside it, as the workspace', () => url(path.join(ws, 'src', 'lib')), () => ws],
    ['its git folder, as the workspace', () => url(path.join(ws, '.git')), () => ws],
    ['the workspace with a trailing slash', () => `${url(ws)}/`, () => ws],
    [
      'a link outside that leads into it, as the workspace',
      () => url(path.join(base, 'link-in')),
      () => ws,
    ],
    ['its parent, narrowed to it', () => url(base), () => ws],
    ['the whole disk, narrowed to it', () => 'file:///', () => ws],
    [
      'a link inside it that leads out',
      () => url(path.join(ws, 'link-out')),
      () => null,
      'outside the workspace',
    ],
    ['another folder', () => url(outside), () => null, 'outside the workspace'],
    [
      'a folder whose name starts with the workspace’s',
      () => url(path.join(base, 'ws-evil')),
      () => null,
      'outside the workspace',
    ],
    [
      'dot segments that climb out',
      () => `${url(ws)}/src/../../outside`,
      () => null,
      'outside the workspace',
    ],
    [
      'encoded dot segments that climb out',
      () => `${url(ws)}/src/%2e%2e/%2E%2E/outside`,
      () => null,
      'outside the workspace',
    ],
    ['a file in it', () => url(path.join(ws, 'readme.txt')), () => null, 'not a folder'],
    [
      'a folder that does not exist yet',
      () => url(path.join(ws, 'later')),
      () => null,
      'no such folder',
    ],
    ['another host', () => `file://elsewhere${ws}`, () => null, 'not a local file: URI'],
    [
      'an encoded separator',
      () => `${url(ws)}%2F..%2Foutside`,
      () => null,
      'not a local file: URI',
    ],
    ['a plain path', () => ws, () => null, 'not a file: URI'],
    ['the home folder’s shorthand', () => '~/', () => null, 'not a file: URI'],
    ['another scheme', () => `https://example.com${ws}`, () => null, 'not a file: URI'],
  ]

  it.each(table)('%s', (_label, given, shown, why) => {
    const uri = given()
    const result = rootsInWorkspace(ws, [{ uri, name: 'given' }])
    const folder = shown()
    if (folder === null) {
      expect(result.roots).toEqual([])
      expect(result.dropped).toEqual([{ uri, why }])
    } else {
      expect(result.roots).toEqual([{ uri: url(folder), name: 'given' }])
      expect(result.dropped).toEqual([])
    }
  })

  it('names the workspace once, by the first name given, and drops the rest', () => {
    const result = rootsInWorkspace(ws, [
      { uri: url(path.join(ws, 'src')), name: 'sources' },
      { uri: url(outside) },
      { uri: 'file:///', name: 'disk' },
      { uri: url(path.join(base, 'link-in')), name: 'again' },
      { uri: url(ws), name: 'workspace' },
    ])
    expect(result.roots).toEqual([{ uri: url(ws), name: 'sources' }])
    expect(result.dropped).toEqual([{ uri: url(outside), why: 'outside the workspace' }])
  })

  it('names nothing when nothing is in the workspace, so a server keeps its own folders', () => {
    expect(rootsInWorkspace(ws, [{ uri: url(outside) }]).roots).toEqual([])
    expect(rootsInWorkspace(ws, []).roots).toEqual([])
  })
})

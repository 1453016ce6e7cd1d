import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { HOME_SECRET_FOLDERS } from '../policy/secret-folders.ts'
import { sandboxPolicyFor } from './sandbox-policy.ts'

let base: string
let ws: string
let home: string

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-policy-')))
  ws = path.join(base, 'ws')
  home = path.join(base, 'home')
  await mkdir(ws)
  await mkdir(home)
})
afterEach(async () => {
  await rm(base, { recursive: true, force: true })
})

const policyFor = (extra: Partial<Parameters<typeof sandboxPolicyFor>[0]> = {}) =>
  sandboxPolicyFor({
    sandboxMode: 'workspace-write',
    workspace: ws,
    extraWritableRoots: [],
    home,
    assentPrivate: [],
    ...extra,
  })

describe('sandboxPolicyFor', () => {
  it('keeps the workspace’s .git read-only by default, when it exists', async () => {
    expect(policyFor().readOnlyInside).toEqual([])
    await mkdir(path.join(ws, '.git'))
    expect(policyFor().readOnlyInside).toEqual([path.join(ws, '.git')])
  })

  it('keeps read-only by default what always needs a person, in every writable root', async () => {
    const extra = path.join(base, 'extra')
    await mkdir(path.join(extra, '.husky'), { recursive: true })
    await writeFile(path.join(ws, '.envrc'), '')
    await mkdir(path.join(ws, '.vscode'))
    await writeFile(path.join(ws, '.vscode', 'tasks.json'), '{}')
    await writeFile(path.join(ws, '.vscode', 'extensions.json'), '{}')
    expect(policyFor({ extraWritableRoots: [extra] }).readOnlyInside.sort()).toEqual(
      [
        path.join(ws, '.envrc'),
        path.join(ws, '.vscode', 'tasks.json'),
        path.join(extra, '.husky'),
      ].sort(),
    )
  })

  it('takes the read-only paths it is given, and only those inside a writable root', async () => {
    await mkdir(path.join(ws, 'hooks'))
    await writeFile(path.join(ws, '.envrc'), '')
    const policy = policyFor({
      readOnlyInside: [path.join(ws, 'hooks'), path.join(ws, '.envrc'), home],
    })
    expect(policy.readOnlyInside).toEqual([path.join(ws, 'hooks'), path.join(ws, '.envrc')])
  })

  it('hides a file inside a hidden folder with the folder, not by a mount of its own', async () => {
    const data = path.join(base, 'data')
    await mkdir(data)
    await writeFile(path.join(data, 'agents.json'), '{}')
    const policy = policyFor({ assentPrivate: [data, path.join(data, 'agents.json')] })
    expect(policy.hidden).toEqual([{ path: data, kind: 'folder' }])
  })

  it('hides every credential folder of the home that exists, by its real path', async () => {
    await mkdir(path.join(home, '.ssh'))
    await mkdir(path.join(base, 'real-aws'))
    await symlink(path.join(base, 'real-aws'), path.join(home, '.aws'))
    const hidden = policyFor().hidden
    expect(hidden).toEqual([
      { path: path.join(home, '.ssh'), kind: 'folder' },
      { path: path.join(base, 'real-aws'), kind: 'folder' },
    ])
    expect(HOME_SECRET_FOLDERS.length).toBeGreaterThan(2)
  })

  it('hides the sign-ins of other tools and the histories that hold what was typed', async () => {
    await mkdir(path.join(home, '.config', 'stripe'), { recursive: true })
    await writeFile(path.join(home, '.bash_history'), 'export TOKEN=abc\n')
    await writeFile(path.join(home, '.psql_history'), '\\password ada\n')
    expect(policyFor().hidden).toEqual(
      expect.arrayContaining([
        { path: path.join(home, '.config', 'stripe'), kind: 'folder' },
        { path: path.join(home, '.bash_history'), kind: 'file' },
        { path: path.join(home, '.psql_history'), kind: 'file' },
      ]),
    )
  })

  it('hides a credential folder made after an earlier command, from the next one', async () => {
    expect(policyFor().hidden).toEqual([])
    await mkdir(path.join(home, '.gnupg'))
    expect(policyFor().hidden).toEqual([{ path: path.join(home, '.gnupg'), kind: 'folder' }])
  })

  it('hides Assent’s data folder and a config file elsewhere', async () => {
    const data = path.join(base, 'data')
    await mkdir(data)
    await writeFile(path.join(base, 'mcp.json'), '{}')
    const hidden = policyFor({
      assentPrivate: [data, path.join(base, 'mcp.json'), path.join(base, 'absent.json')],
    }).hidden
    expect(hidden).toEqual([
      { path: data, kind: 'folder' },
      { path: path.join(base, 'mcp.json'), kind: 'file' },
    ])
  })

  it('names each folder between a writable root and a hidden path in it, from the outermost root', async () => {
    const data = path.join(ws, '.dev', 'data')
    const nested = path.join(ws, 'sub')
    await mkdir(data, { recursive: true })
    await mkdir(path.join(nested, 'a', '.assent'), { recursive: true })
    await writeFile(path.join(nested, 'a', '.assent', 'mcp.json'), '{}')
    await writeFile(path.join(ws, 'agents.json'), '{}')
    await mkdir(path.join(base, 'outside'))
    const policy = policyFor({
      extraWritableRoots: [nested],
      assentPrivate: [
        data,
        path.join(nested, 'a', '.assent', 'mcp.json'),
        path.join(ws, 'agents.json'),
        path.join(base, 'outside'),
      ],
    })
    // A nested root is a mount point already; a folder between the outer
    // root and it is not, and renamed, it would take the nested one along.
    expect(policy.hiddenAncestors).toEqual([
      path.join(ws, '.dev'),
      path.join(nested, 'a'),
      path.join(nested, 'a', '.assent'),
    ])
    expect(policyFor({ sandboxMode: 'read-only', assentPrivate: [data] }).hiddenAncestors).toEqual(
      [],
    )
  })

  it('makes the workspace and the widened folders writable, and nothing in a read-only room', async () => {
    const widened = path.join(base, 'widened')
    await mkdir(widened)
    expect(policyFor({ extraWritableRoots: [widened] }).writableRoots).toEqual([ws, widened])
    expect(policyFor({ sandboxMode: 'read-only' }).writableRoots).toEqual([])
  })

  it('never gives a network', () => {
    expect(policyFor().network).toBe(false)
  })
})

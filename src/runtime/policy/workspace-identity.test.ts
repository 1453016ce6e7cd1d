import { mkdir, mkdtemp, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { checkWorkspaceIdentity, pinWorkspace, workspaceIdentityNow } from './workspace-identity.ts'
import { checkToolAccess } from './sandbox.ts'

let root: string
let a: string
let b: string

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-ws-identity-')))
  a = path.join(root, 'A')
  b = path.join(root, 'B')
  await mkdir(a)
  await mkdir(b)
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

describe('a pinned workspace', () => {
  it('passes while it is the same folder, even renamed back and forth', async () => {
    const pinned = await pinWorkspace(a)
    expect(pinned.realPath).toBe(a)
    expect(checkWorkspaceIdentity(pinned)).toEqual({ ok: true })
    await rename(a, `${a}.tmp`)
    await rename(`${a}.tmp`, a)
    expect(checkWorkspaceIdentity(pinned)).toEqual({ ok: true })
  })

  it('is redirected when the folder is renamed away and a link to another takes its name', async () => {
    const pinned = await pinWorkspace(a)
    await rename(a, `${a}.old`)
    await symlink(b, a)
    expect(checkWorkspaceIdentity(pinned)).toMatchObject({
      ok: false,
      code: 'workspace_moved',
      change: 'redirected',
      message: { code: 'workspace.redirected', params: { path: a, target: b } },
    })
  })

  it('is replaced when another folder takes its name', async () => {
    const pinned = await pinWorkspace(a)
    await rename(a, `${a}.old`)
    await mkdir(a)
    expect(checkWorkspaceIdentity(pinned)).toMatchObject({ ok: false, change: 'replaced' })
    expect(workspaceIdentityNow(a)).toMatchObject({ realPath: a })
    expect(workspaceIdentityNow(a)?.ino).not.toBe(pinned.ino)
  })

  it('is missing when nothing, or a file, is at its path', async () => {
    const pinned = await pinWorkspace(a)
    await rm(a, { recursive: true })
    expect(checkWorkspaceIdentity(pinned)).toMatchObject({ ok: false, change: 'missing' })
    await writeFile(a, 'not a folder')
    expect(checkWorkspaceIdentity(pinned)).toMatchObject({ ok: false, change: 'missing' })
    expect(workspaceIdentityNow(a)).toBeNull()
  })

  it('refuses a sandbox check through a folder swapped for a link, before any path is judged', async () => {
    const pinned = await pinWorkspace(a)
    const check = () =>
      checkToolAccess({
        sandboxMode: 'workspace-write',
        effect: 'write',
        paths: ['notes.txt'],
        workspace: a,
        agent: { readOnly: false },
        pinnedWorkspace: pinned,
      })
    expect(await check()).toMatchObject({ allowed: true, paths: [path.join(a, 'notes.txt')] })
    await rename(a, `${a}.old`)
    await symlink(b, a)
    expect(await check()).toMatchObject({ allowed: false, code: 'workspace_moved' })
  })
})

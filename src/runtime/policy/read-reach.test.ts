import { link, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ASSENT_OWN_WHY, keepAsAssentOwn } from './assent-own-paths.ts'
import { privateReadReason } from './read-reach.ts'

let root: string
let ws: string
let outside: string

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-reach-')))
  ws = path.join(root, 'ws')
  outside = path.join(root, 'outside')
  await mkdir(ws)
  await mkdir(outside)
  await writeFile(path.join(ws, 'notes.txt'), 'x')
  await writeFile(path.join(outside, 'secret.txt'), 's')
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const reach = (requested: string, resolved: string, workspace = ws) =>
  privateReadReason({ workspace, requested: [requested], resolved: [resolved] })

describe('whether a read reaches beyond the workspace', () => {
  it('keeps a plain file inside the workspace a workspace read', async () => {
    expect(await reach('notes.txt', path.join(ws, 'notes.txt'))).toBeNull()
    expect(await reach('.', ws)).toBeNull()
    expect(await reach('missing.txt', path.join(ws, 'missing.txt'))).toBeNull()
  })

  it('calls a path that resolves outside the workspace private', async () => {
    expect(await reach(path.join(outside, 'secret.txt'), path.join(outside, 'secret.txt'))).toBe(
      `${path.join(outside, 'secret.txt')} is outside the workspace`,
    )
    // A sibling that shares the workspace's name as a prefix is outside.
    expect(await reach('../ws-evil', `${ws}-evil`)).toMatch(/is outside the workspace$/)
  })

  it('calls a credential private, as asked or as resolved', async () => {
    await mkdir(path.join(ws, '.ssh'))
    expect(await reach('.env', path.join(ws, '.env'))).toMatch(/^\.env: /)
    expect(await reach('innocent.txt', path.join(ws, '.ssh', 'id_ed25519'))).toMatch(/\.ssh/)
    expect(await reach('.ssh/id_ed25519', path.join(ws, 'elsewhere.txt'))).toMatch(/^\.ssh/)
  })

  it("calls Assent's own files private, in the workspace too", async () => {
    // A data folder kept in the workspace (a checkout's development data).
    const data = path.join(ws, 'assent-data')
    await mkdir(data)
    await writeFile(path.join(data, 'agents.json'), '{}')
    expect(await reach('assent-data/agents.json', path.join(data, 'agents.json'))).toBeNull()
    keepAsAssentOwn([data])
    expect(await reach('assent-data/agents.json', path.join(data, 'agents.json'))).toBe(
      `${path.join(data, 'agents.json')}: ${ASSENT_OWN_WHY}`,
    )
    expect(await reach('notes.txt', path.join(ws, 'notes.txt'))).toBeNull()
  })

  it('calls a file with another name (a hard link) private, wherever the other name is', async () => {
    await link(path.join(outside, 'secret.txt'), path.join(ws, 'hl.txt'))
    expect(await reach('hl.txt', path.join(ws, 'hl.txt'))).toBe(
      `${path.join(ws, 'hl.txt')} has 2 names (hard links), which may lead outside the workspace`,
    )
  })

  it('judges a symbolic link inside the workspace by where it leads', async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'link.txt'))
    expect(await reach('link.txt', await realpath(path.join(ws, 'link.txt')))).toMatch(
      /is outside the workspace$/,
    )
  })

  it('does not count a directory’s links, which every directory has', async () => {
    await mkdir(path.join(ws, 'sub', 'inner'), { recursive: true })
    expect(await reach('sub', path.join(ws, 'sub'))).toBeNull()
  })

  it('fails closed when the workspace cannot be resolved', async () => {
    const gone = path.join(root, 'gone')
    expect(await reach('a', path.join(gone, 'a'), gone)).toBe(
      `the workspace ${gone} cannot be resolved`,
    )
  })

  it('checks every path of the call, not only the first', async () => {
    expect(
      await privateReadReason({
        workspace: ws,
        requested: ['notes.txt', 'x'],
        resolved: [path.join(ws, 'notes.txt'), path.join(outside, 'secret.txt')],
      }),
    ).toMatch(/is outside the workspace$/)
  })
})

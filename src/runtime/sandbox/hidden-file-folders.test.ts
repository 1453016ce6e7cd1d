import { mkdir, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { hiddenFileFolders, MAX_SHOWN_ENTRIES } from './hidden-file-folders.ts'
import { sandboxPolicyFor } from './sandbox-policy.ts'
import { varTmpFolder } from './test-support/var-tmp-folder.ts'

// Outside /tmp: a folder under the command's private /tmp is hidden by it,
// and never copied.
const scratch = varTmpFolder('assent-hidden-folders-')
let home: string
let ws: string

beforeAll(async () => {
  home = path.join(scratch(), 'home')
  ws = path.join(home, 'project')
  await mkdir(path.join(home, '.codex'), { recursive: true })
  await mkdir(path.join(home, '.ssh'))
  await mkdir(ws)
  await writeFile(path.join(home, '.netrc'), 'machine example.com password FIXTURE')
  await writeFile(path.join(home, '.profile'), '')
  await writeFile(path.join(home, '.codex', 'auth.json'), '{}')
  await writeFile(path.join(home, '.codex', 'config.toml'), '')
  await symlink('dotfiles/bashrc', path.join(home, '.bashrc'))
  await writeFile(path.join(ws, '.npmrc'), '')
})

describe('hiddenFileFolders', () => {
  it('copies each folder of a hidden file, parents first, with every entry as it is and the hidden ones empty', () => {
    const folders = hiddenFileFolders(
      [
        { path: path.join(home, '.ssh'), kind: 'folder' },
        { path: path.join(home, '.netrc'), kind: 'file' },
        { path: path.join(home, '.codex', 'auth.json'), kind: 'file' },
      ],
      [ws],
    )
    expect(folders).toEqual([
      {
        path: home,
        entries: [
          { name: '.bashrc', as: 'link', target: 'dotfiles/bashrc' },
          { name: '.codex', as: 'bound' },
          { name: '.netrc', as: 'empty-file' },
          { name: '.profile', as: 'bound' },
          { name: '.ssh', as: 'empty-folder' },
          { name: 'project', as: 'bound' },
        ],
      },
      {
        path: path.join(home, '.codex'),
        entries: [
          { name: 'auth.json', as: 'empty-file' },
          { name: 'config.toml', as: 'bound' },
        ],
      },
    ])
  })

  it('copies no folder inside a writable root or a private scratch folder', () => {
    expect(
      hiddenFileFolders([{ path: path.join(ws, '.npmrc'), kind: 'file' }], [ws, '/tmp']),
    ).toEqual([])
    expect(hiddenFileFolders([{ path: '/tmp/x/.netrc', kind: 'file' }], [ws, '/tmp'])).toEqual([])
    // A folder that holds a writable root is copied: the root is bound
    // over the copy.
    expect(
      hiddenFileFolders([{ path: path.join(home, '.netrc'), kind: 'file' }], [ws]).map(
        (folder) => folder.path,
      ),
    ).toEqual([home])
  })

  it('hides whole a folder it cannot list, or one with more entries than it copies', async () => {
    const gone = path.join(scratch(), 'gone')
    expect(hiddenFileFolders([{ path: path.join(gone, '.netrc'), kind: 'file' }], [])).toEqual([
      { path: gone, entries: null },
    ])
    const crowded = path.join(scratch(), 'crowded')
    await mkdir(crowded)
    await Promise.all(
      Array.from({ length: MAX_SHOWN_ENTRIES + 1 }, (_, index) =>
        writeFile(path.join(crowded, `f${index}`), ''),
      ),
    )
    expect(hiddenFileFolders([{ path: path.join(crowded, 'f0'), kind: 'file' }], [])).toEqual([
      { path: crowded, entries: null },
    ])
  })

  it('is what the sandbox policy gives bubblewrap for the home folder', () => {
    const policy = sandboxPolicyFor({
      sandboxMode: 'workspace-write',
      workspace: ws,
      extraWritableRoots: [],
      home,
      assentPrivate: [],
    })
    expect(policy.hidden).toContainEqual({ path: path.join(home, '.netrc'), kind: 'file' })
    expect(policy.hiddenFileFolders.map((folder) => folder.path)).toContain(home)
    const copy = policy.hiddenFileFolders.find((folder) => folder.path === home)
    expect(copy?.entries).toContainEqual({ name: '.netrc', as: 'empty-file' })
  })
})

import { spawn } from 'node:child_process'
import { closeSync, mkdirSync, openSync, renameSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { giveDescriptor3, type PreparedCommand } from '../tools/command-launcher.ts'
import { bubblewrapRequired } from '../../../tests/support/bubblewrap.ts'
import { CommandSandbox } from './command-sandbox.ts'
import { holdKeptInside, holdShownEntries } from './held-entries.ts'
import { hiddenFileFolders } from './hidden-file-folders.ts'
import { varTmpFolder } from './test-support/var-tmp-folder.ts'

// A folder holding a hidden file (the home folder, for `.netrc`) is shown
// as a read-only copy whose other entries are bound from the real one.
// Bound by path, an entry is looked up again as bubblewrap starts, and a
// bind follows a link: a command of another room that may write the home
// folder swaps `notes.txt` for a link to the key in that gap. Held from
// the listing, the entry listed is what is bound.

const HAS_BWRAP = await bubblewrapRequired()
const KEY = 'FIXTURE-private-key-not-real'
const NOTES = 'the notes the person meant'
const scratch = varTmpFolder('assent-held-entries-')

let base: string
beforeAll(() => {
  base = scratch()
})

let homes = 0
/** A home folder with a hidden `.netrc` and key, notes and a folder of
 *  documents beside them, and a workspace outside it. */
function freshHome(): { home: string; ws: string } {
  homes += 1
  const home = path.join(base, `home-${homes}`)
  const ws = path.join(base, `ws-${homes}`)
  mkdirSync(path.join(home, '.ssh'), { recursive: true })
  mkdirSync(path.join(home, 'Documents'))
  mkdirSync(ws)
  writeFileSync(path.join(home, '.netrc'), `machine example.com password ${KEY}\n`)
  writeFileSync(path.join(home, '.ssh', 'id_ed25519'), `${KEY}\n`)
  writeFileSync(path.join(home, 'notes.txt'), `${NOTES}\n`)
  writeFileSync(path.join(home, 'Documents', 'letter.txt'), `${NOTES}\n`)
  return { home, ws }
}

/** The entry `name` of `home` swapped for a link to `target`, the entry
 *  itself kept beside it. */
function swapForLink(home: string, name: string, target: string): void {
  renameSync(path.join(home, name), path.join(home, `${name}.kept`))
  symlinkSync(target, path.join(home, name))
}

const SWAPS = [
  ['a file, for a link to the key beside it', 'notes.txt', '.ssh/id_ed25519'],
  ['a file, for a link to the key by its whole path', 'notes.txt', 'ABSOLUTE'],
  ['a folder, for a link to the key folder', 'Documents', '.ssh'],
] as const

describe.runIf(HAS_BWRAP)(
  'an entry of a copied folder swapped for a link after its listing',
  () => {
    it.each(SWAPS)('%s: the command reads what was listed, never the key', async (_, name, to) => {
      const { home, ws } = freshHome()
      const sandbox = new CommandSandbox({ home, env: { HOME: home }, assentPrivate: [] })
      const prepared = await sandbox.prepare({
        sandboxMode: 'workspace-write',
        workspace: ws,
        extraWritableRoots: [],
        cwd: ws,
        argv: ['sh', '-c', `cat '${home}/notes.txt' '${home}/Documents/'*`],
      })
      if (!prepared.ok) throw new Error(`not prepared: ${prepared.code}`)
      // The swap lands between the listing and bubblewrap's start.
      swapForLink(home, name, to === 'ABSOLUTE' ? path.join(home, '.ssh', 'id_ed25519') : to)
      const { output } = await startAndWait(prepared)
      expect(output).not.toContain(KEY)
      expect(output).toContain(NOTES)
    })
  },
)

// What stays read-only in the workspace (`.git`, `.envrc`) was bound by
// its path too: a command of another room whose workspace holds this one
// renames it after its check and makes one of its own at its path, with
// the kept path a link to the key. The workspace is still bound by the
// folder held; the read-only bind followed the link onto it.
const KEPT = [
  ['.git, for a link to the key folder', '.git', '../.ssh', '.git/id_ed25519'],
  ['.envrc, for a link to the key', '.envrc', '../.ssh/id_ed25519', '.envrc'],
] as const

describe.runIf(HAS_BWRAP)('a read-only path in the workspace made a link after the check', () => {
  it.each(KEPT)('%s: the command reads its own, never the key', async (_, kept, to, read) => {
    const { home } = freshHome()
    const ws = path.join(home, 'project')
    mkdirSync(path.join(ws, '.git'), { recursive: true })
    writeFileSync(path.join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\n')
    writeFileSync(path.join(ws, '.envrc'), `echo ${NOTES}\n`)
    const sandbox = new CommandSandbox({ home, env: { HOME: home }, assentPrivate: [] })
    const prepared = await sandbox.prepare({
      sandboxMode: 'workspace-write',
      workspace: ws,
      extraWritableRoots: [],
      cwd: ws,
      argv: ['sh', '-c', `cat .git/HEAD; cat '${read}'`],
    })
    if (!prepared.ok) throw new Error(`not prepared: ${prepared.code}`)
    renameSync(ws, `${ws}.kept`)
    mkdirSync(ws)
    symlinkSync(to, path.join(ws, kept))
    const { output } = await startAndWait(prepared)
    expect(output).not.toContain(KEY)
    expect(output).toContain('ref: refs/heads/main')
  })
})

describe('holdKeptInside', () => {
  it('holds each path below the root held, and nothing when one is a link by now or gone', () => {
    const { home } = freshHome()
    const root = openSync(home, 'r')
    try {
      const roots = new Map([[home, root]])
      const kept = [path.join(home, 'notes.txt'), path.join(home, 'Documents', 'letter.txt')]
      const held = holdKeptInside(kept, roots)
      expect(held?.bound.map(({ at }) => at)).toEqual(kept)
      held?.release()
      expect(holdKeptInside([path.join(base, 'elsewhere')], roots)).toBeNull()
      expect(holdKeptInside([path.join(home, 'gone')], roots)).toBeNull()
      swapForLink(home, 'Documents', '.ssh')
      expect(holdKeptInside(kept, roots)).toBeNull()
      // Looked up from the folder held, not by its path: moved, it still
      // holds them.
      renameSync(home, `${home}.moved`)
      mkdirSync(home)
      const moved = holdKeptInside([path.join(home, 'notes.txt')], roots)
      expect(moved?.bound).toHaveLength(1)
      moved?.release()
    } finally {
      closeSync(root)
    }
  })
})

describe('holdShownEntries', () => {
  it('shows an entry that is a link by the time it is held as that link, not as what it reaches', () => {
    const { home } = freshHome()
    const folders = hiddenFileFolders([{ path: path.join(home, '.netrc'), kind: 'file' }], [])
    swapForLink(home, 'notes.txt', '.ssh/id_ed25519')
    const held = holdShownEntries(folders)
    try {
      const copy = held.folders.find((folder) => folder.path === home)
      expect(copy?.entries).toContainEqual({
        name: 'notes.txt',
        as: 'link',
        target: '.ssh/id_ed25519',
      })
      expect(held.bound.map(({ at }) => at)).not.toContain(path.join(home, 'notes.txt'))
      expect(held.bound.map(({ at }) => at)).toContain(path.join(home, 'Documents'))
    } finally {
      held.release()
    }
  })

  it('hides whole a folder whose path leads elsewhere by the time it is held', () => {
    const { home } = freshHome()
    const folders = hiddenFileFolders([{ path: path.join(home, '.netrc'), kind: 'file' }], [])
    renameSync(home, `${home}.kept`)
    symlinkSync(path.join(`${home}.kept`, '.ssh'), home)
    const held = holdShownEntries(folders)
    try {
      expect(held.folders).toEqual([{ path: home, entries: null }])
      expect(held.bound).toEqual([])
    } finally {
      held.release()
    }
  })
})

/** Starts `prepared` as run_command does (the filter on descriptor 3, the
 *  held descriptors after it) and waits for its output. */
function startAndWait(prepared: PreparedCommand): Promise<{ output: string }> {
  const child = spawn(prepared.file, prepared.args, {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', ...(prepared.descriptorsAfter3 ?? [])],
    env: prepared.env,
  })
  if (prepared.onDescriptor3 !== undefined) giveDescriptor3(child, prepared.onDescriptor3)
  prepared.release?.()
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  return new Promise((resolve) => child.on('close', () => resolve({ output })))
}

import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { pinWorkspace } from '../policy/workspace-identity.ts'
import { giveDescriptor3, type PreparedCommand } from '../tools/command-launcher.ts'
import { bubblewrapRequired } from '../../../tests/support/bubblewrap.ts'
import { CommandSandbox } from './command-sandbox.ts'
import { holdFolders } from './held-folders.ts'
import { varTmpFolder } from './test-support/var-tmp-folder.ts'

// The folders a contained command may write are held from their check
// until bubblewrap binds them: a path swapped for a link after the check
// (what a command of another room can do in a loop) binds nothing else.

const HAS_BWRAP = await bubblewrapRequired()
const scratch = varTmpFolder('assent-held-')

let base: string
beforeAll(() => {
  base = scratch()
})

let folders = 0
function freshFolders(): { ws: string; outside: string } {
  folders += 1
  const ws = path.join(base, `ws-${folders}`)
  const outside = path.join(base, `outside-${folders}`)
  mkdirSync(ws)
  mkdirSync(outside)
  return { ws, outside }
}

/** Swaps `ws` for a link to `outside`, keeping the folder as `ws.real`. */
function swapForLink(ws: string, outside: string): string {
  const kept = `${ws}.real`
  renameSync(ws, kept)
  symlinkSync(outside, ws)
  return kept
}

describe('holdFolders', () => {
  it('holds the pinned workspace, and says when its path no longer leads to it', async () => {
    const { ws, outside } = freshFolders()
    const held = holdFolders([ws], [await pinWorkspace(ws)])
    expect(held?.descriptorOf(ws)).toBeTypeOf('number')
    expect(held?.stillWhereHeld()).toBe(true)
    swapForLink(ws, outside)
    expect(held?.stillWhereHeld()).toBe(false)
    held?.release()
  })

  it('holds nothing when the path is already another folder than the one pinned, or a link', async () => {
    const { ws, outside } = freshFolders()
    const pinned = await pinWorkspace(ws)
    const kept = swapForLink(ws, outside)
    expect(holdFolders([ws], [pinned])).toBeNull()
    // Another real folder under the pinned path.
    const other = path.join(base, `other-${folders}`)
    mkdirSync(other)
    renameSync(ws, `${ws}.link`)
    renameSync(other, ws)
    expect(holdFolders([ws], [pinned])).toBeNull()
    expect(existsSync(kept)).toBe(true)
  })
})

describe.runIf(HAS_BWRAP)('a contained command whose workspace is swapped after its check', () => {
  // Swapped for a link: bubblewrap binds nothing onto a link, so the
  // command does not start. Swapped for another folder at the same path:
  // the folder held is bound there, and the command writes into it.
  it.each([
    ['a link to a folder outside', 'not started', swapForLink],
    ['another folder', 'wrote into the folder checked', swapForFolder],
  ] as const)('for %s: %s, never outside', async (_name, outcome, swap) => {
    const { ws, outside } = freshFolders()
    const sandbox = new CommandSandbox({ home: path.join(base, 'home'), assentPrivate: [] })
    const prepared = await sandbox.prepare({
      sandboxMode: 'workspace-write',
      workspace: ws,
      extraWritableRoots: [],
      expectedWorkspace: await pinWorkspace(ws),
      cwd: ws,
      argv: ['sh', '-c', 'echo written > marker.txt'],
    })
    if (!prepared.ok) throw new Error(`not prepared: ${prepared.code}`)
    // The swap lands between the check and bubblewrap's start.
    const kept = swap(ws, outside)
    const exit = await startAndWait(prepared)
    expect(existsSync(path.join(outside, 'marker.txt'))).toBe(false)
    if (outcome === 'not started') {
      expect(exit).not.toBe(0)
    } else {
      expect(exit).toBe(0)
      expect(readFileSync(path.join(kept, 'marker.txt'), 'utf8')).toBe('written\n')
    }
  })
})

describe.runIf(HAS_BWRAP)(
  'a folder the person let the turn write, changed before the start',
  () => {
    // The turn's widened folder is pinned when the person allows it; at the
    // start its path must still lead to that folder, or nothing starts.
    // Unpinned (`expectedExtraRoots` left out, as before), the sandbox bound
    // wherever the path led.
    it.each([
      ['a folder above it swapped for a link elsewhere', swapParentForLink],
      ['another folder made at its path', replaceFolder],
    ] as const)('%s: not started', async (_name, change) => {
      const { ws, outside } = freshFolders()
      const widened = path.join(base, `lib-${folders}`, 'shared')
      mkdirSync(widened, { recursive: true })
      const pin = await pinWorkspace(widened)
      const sandbox = new CommandSandbox({ home: path.join(base, 'home'), assentPrivate: [] })
      const request = {
        sandboxMode: 'workspace-write',
        workspace: ws,
        extraWritableRoots: [pin.realPath],
        expectedWorkspace: await pinWorkspace(ws),
        cwd: ws,
        argv: ['true'],
      } as const
      change(widened, outside)
      const unpinned = await sandbox.prepare(request)
      if (!unpinned.ok) throw new Error(`not prepared: ${unpinned.code}`)
      const reached = unpinned.containment.contained ? unpinned.containment.writableRoots : []
      unpinned.release?.()
      expect(reached).toContain(realpathSync(widened))
      expect(realpathSync(widened) === pin.realPath).toBe(
        change === swapParentForLink ? false : true,
      )

      const refused = await sandbox.prepare({ ...request, expectedExtraRoots: [pin] })
      expect(refused).toMatchObject({
        ok: false,
        code: 'workspace_changed',
        message: { code: 'sandbox.widenedFolderChanged', params: { path: pin.realPath } },
      })
    })
  },
)

/** Swaps the folder holding `widened` for a link to `outside`, where a
 *  folder of the same name waits. */
function swapParentForLink(widened: string, outside: string): void {
  const parent = path.dirname(widened)
  mkdirSync(path.join(outside, path.basename(widened)))
  renameSync(parent, `${parent}.real`)
  symlinkSync(outside, parent)
}

/** Moves `widened` away and makes another folder at its path. */
function replaceFolder(widened: string): void {
  renameSync(widened, `${widened}.real`)
  mkdirSync(widened)
}

/** Swaps `ws` for the folder `outside` (moved to its path), keeping the
 *  folder checked as `ws.real`; `outside` is then found at `ws`. */
function swapForFolder(ws: string, outside: string): string {
  const kept = `${ws}.real`
  renameSync(ws, kept)
  renameSync(outside, ws)
  symlinkSync(ws, outside)
  return kept
}

/** Starts `prepared` as run_command does (the filter on descriptor 3, the
 *  held folders after it) and waits for its exit code. */
function startAndWait(prepared: PreparedCommand): Promise<number | null> {
  const child = spawn(prepared.file, prepared.args, {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', ...(prepared.descriptorsAfter3 ?? [])],
    env: prepared.env,
  })
  if (prepared.onDescriptor3 !== undefined) giveDescriptor3(child, prepared.onDescriptor3)
  prepared.release?.()
  child.stdout?.resume()
  child.stderr?.resume()
  return new Promise((resolve) => child.on('close', (code) => resolve(code)))
}

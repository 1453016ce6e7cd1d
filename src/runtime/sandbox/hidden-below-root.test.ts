import { existsSync, readFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { bubblewrapRequired } from '../../../tests/support/bubblewrap.ts'
import { CommandSandbox } from './command-sandbox.ts'
import { sandboxedRun } from './test-support/sandboxed-run.ts'
import { varTmpFolder } from './test-support/var-tmp-folder.ts'

// Assent's data folder below a folder a command may write (a checkout's
// development data, `~/.config/assent` in a room on the home folder), in a
// real bubblewrap: hidden by a mount on its path, which a command must not
// get around by renaming or removing a folder above it and making its own
// data folder, `agents.json` and all, at that path.

const HAS_BWRAP = await bubblewrapRequired()
const AGENTS = '{"agents":[]}'
const PLANTED = '{"agents":[{"id":"planted","command":"sh"}]}'
const scratch = varTmpFolder('assent-sandbox-hidden-below-')

async function placeWith(name: string, dataBelow: string, workspaceIsHome: boolean) {
  const ws = path.join(scratch(), name)
  const dataDir = path.join(ws, dataBelow)
  await mkdir(dataDir, { recursive: true })
  await writeFile(path.join(dataDir, 'assent.sqlite'), 'DATA')
  await writeFile(path.join(dataDir, 'agents.json'), AGENTS)
  await writeFile(path.join(path.dirname(dataDir), 'notes.txt'), 'notes')
  const home = workspaceIsHome ? ws : path.join(scratch(), `${name}-home`)
  await mkdir(home, { recursive: true })
  const sandbox = new CommandSandbox({
    home,
    env: { ...process.env, HOME: home },
    assentPrivate: [dataDir, path.join(dataDir, 'mcp.json'), path.join(dataDir, 'agents.json')],
  })
  return { ws, dataDir, sandbox }
}

let place: { ws: string; sandbox: CommandSandbox }
const { sh } = sandboxedRun(() => ({ workspace: place.ws, sandbox: place.sandbox }))

const CASES = [
  { name: 'checkout', dataBelow: '.dev/data', workspaceIsHome: false },
  { name: 'home', dataBelow: '.config/assent', workspaceIsHome: true },
] as const

describe.runIf(HAS_BWRAP)("Assent's data folder below a folder a command may write", () => {
  it.each(CASES)(
    '$name: no folder above it can be renamed or removed; what else it holds stays writable',
    async ({ name, dataBelow, workspaceIsHome }) => {
      const made = await placeWith(name, dataBelow, workspaceIsHome)
      place = made
      const [top = ''] = dataBelow.split('/')
      const plant = `mkdir -p ${dataBelow} && echo '${PLANTED}' > ${dataBelow}/agents.json`
      const moved = await sh(`mv ${top} ${top}.moved && ${plant}`, 'workspace-write')
      expect(moved.ok).toBe(false)
      expect(moved.output).toMatch(/busy/i)
      expect(existsSync(path.join(made.ws, `${top}.moved`))).toBe(false)
      const written = await sh(`echo changed > ${top}/notes.txt`, 'workspace-write')
      expect(written.ok, written.output).toBe(true)
      const removed = await sh(`rm -rf ${top}; ${plant}`, 'workspace-write')
      expect(removed.ok).toBe(false)
      // What else the folder above held was the command's to change.
      expect(existsSync(path.join(made.ws, top, 'notes.txt'))).toBe(false)
      expect(readFileSync(path.join(made.dataDir, 'agents.json'), 'utf8')).toBe(AGENTS)
      expect(readFileSync(path.join(made.dataDir, 'assent.sqlite'), 'utf8')).toBe('DATA')
    },
  )
})

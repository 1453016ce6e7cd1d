import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * A second process that keeps swapping one name in a folder between two
 * symbolic links, each swap one atomic rename (the name always exists),
 * as the race tests of safe-file-ops do: what a call resolves the name to
 * when it is judged and when it runs differs often.
 */
const FLIPPER = `
const { symlinkSync, renameSync, rmSync } = require('node:fs')
const [name, a, b] = process.argv.slice(2)
const tmpA = name + '.flip-a', tmpB = name + '.flip-b'
let first = true
for (;;) {
  for (const [tmp, to] of [[tmpA, a], [tmpB, b]]) {
    rmSync(tmp, { force: true })
    symlinkSync(to, tmp)
    renameSync(tmp, name)
    if (first) { first = false; process.stdout.write('ready\\n') }
  }
}
`

export interface LinkFlipper {
  stop(): Promise<void>
}

/**
 * A second process that keeps swapping a real folder `dir/name` for a
 * symbolic link to `target` and back: the folder is parked beside it
 * (`name.parked`), the link put in its place, then the link removed and
 * the folder put back. Whatever is made in the folder is remade when it
 * is back (`remake`, a name in it, made as a folder), so a watch that
 * moves it aside always finds one to move.
 */
const FOLDER_SWAPPER = `
const { mkdirSync, renameSync, rmSync, symlinkSync } = require('node:fs')
const [name, target, remake] = process.argv.slice(2)
const parked = name + '.parked', link = name + '.link'
let first = true
for (;;) {
  try {
    mkdirSync(name + '/' + remake, { recursive: true })
    renameSync(name, parked)
    rmSync(link, { force: true })
    symlinkSync(target, link)
    renameSync(link, name)
    rmSync(name, { force: true })
    renameSync(parked, name)
  } catch {}
  if (first) { first = false; process.stdout.write('ready\\n') }
}
`

/** Starts swapping `dir/name` between links to `targetA` and `targetB`;
 *  resolves once it runs. The script is written beside `dir`, never in it. */
export function startLinkFlipper(
  dir: string,
  name: string,
  targetA: string,
  targetB: string,
): Promise<LinkFlipper> {
  return startSwapper(dir, FLIPPER, [join(dir, name), targetA, targetB])
}

/** Starts swapping the folder `dir/name` for a link to `target` and back
 *  (FOLDER_SWAPPER), remaking `remake` in it each time it is back. */
export function startFolderSwapper(
  dir: string,
  name: string,
  target: string,
  remake: string,
): Promise<LinkFlipper> {
  return startSwapper(dir, FOLDER_SWAPPER, [join(dir, name), target, remake])
}

async function startSwapper(
  dir: string,
  source: string,
  args: readonly string[],
): Promise<LinkFlipper> {
  const script = join(dir, '..', `flipper-${randomUUID()}.cjs`)
  await writeFile(script, source)
  const child: ChildProcess = spawn(process.execPath, [script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve())
    child.once('exit', (code) => reject(new Error(`flipper exited ${code}`)))
  })
  return {
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = once(child, 'exit')
      child.kill('SIGKILL')
      await exited
    },
  }
}

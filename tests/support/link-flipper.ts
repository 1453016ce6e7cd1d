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

/** Starts swapping `dir/name` between links to `targetA` and `targetB`;
 *  resolves once it runs. The script is written beside `dir`, never in it. */
export async function startLinkFlipper(
  dir: string,
  name: string,
  targetA: string,
  targetB: string,
): Promise<LinkFlipper> {
  const script = join(dir, '..', `flipper-${randomUUID()}.cjs`)
  await writeFile(script, FLIPPER)
  const child: ChildProcess = spawn(process.execPath, [script, join(dir, name), targetA, targetB], {
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

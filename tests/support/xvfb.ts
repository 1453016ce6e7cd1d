import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { WAIT_TIMEOUT_MS } from '../../scripts/test-timing.ts'

/** A virtual X display for headed browser tests; `display` is `:N`. */
export interface VirtualDisplay {
  readonly display: string
  stop(): void
}

const XVFB = 'Xvfb'

/** Why no virtual display can be started here, or undefined when it can. */
export function xvfbMissing(): string | undefined {
  const probe = spawnSync('sh', ['-c', `command -v ${XVFB}`], { encoding: 'utf8' })
  return probe.status === 0 ? undefined : 'no Xvfb on PATH (Debian: apt-get install xvfb)'
}

/** Starts Xvfb on a free display and resolves once it accepts clients. */
export function startVirtualDisplay(): Promise<VirtualDisplay> {
  return new Promise((resolve, reject) => {
    // -displayfd: Xvfb picks a free display and writes its number here once
    // it is ready, so no port or lock file is guessed.
    const child: ChildProcess = spawn(
      XVFB,
      ['-displayfd', '1', '-screen', '0', '1600x1000x24', '-nolisten', 'tcp'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    )
    const timer = setTimeout(() => {
      child.kill()
      reject(new Error('Xvfb did not report a display in time'))
    }, WAIT_TIMEOUT_MS)
    let output = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /(\d+)\s*$/.exec(output)
      if (!match || !output.includes('\n')) return
      clearTimeout(timer)
      resolve({ display: `:${match[1]}`, stop: () => void child.kill() })
    })
    child.once('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
  })
}

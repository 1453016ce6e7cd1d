/**
 * `npm run dev:cdp`: the app on the CDP host, for machines without an
 * Electron binary. Headed when a display exists, headless otherwise (then it
 * writes a screenshot of the workbench so you can see it started). Runs
 * until Ctrl+C; everything it started is stopped on exit.
 */
import { mkdirSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { mcpConfigPathFromEnv } from '../core/mcp-config-path.ts'
import { CdpHost } from './cdp-host.ts'

const dataDir = process.env.ASSENT_DATA_DIR ?? join(homedir(), '.assent-dev')
const headless = !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY
mkdirSync(dataDir, { recursive: true, mode: 0o700 })

const mcpConfigPath = mcpConfigPathFromEnv(process.env)
let host: CdpHost
try {
  host = await CdpHost.start({ dataDir, headless, ...(mcpConfigPath ? { mcpConfigPath } : {}) })
} catch (error) {
  // What `npm run runtime` says too: the reason, and what to do, without a
  // stack trace (the reasons are written for a person: no keychain, no
  // Chromium, the data folder in use).
  console.error(`Assent did not start: ${(error as Error).message}`)
  process.exit(1)
}
let stopping = false
const stop = async (code: number) => {
  if (stopping) return
  stopping = true
  await host.close()
  console.log(`Assent stopped (data folder: ${dataDir}).`)
  process.exit(code)
}
process.on('SIGINT', () => void stop(0))
process.on('SIGTERM', () => void stop(0))

try {
  const workbench = await host.workbench()
  console.log(`Assent is running on the CDP host (Chromium ${host.chromiumVersion}).`)
  console.log(`  data folder: ${dataDir}`)
  if (headless) {
    const shot = join(tmpdir(), 'assent-dev-workbench.png')
    await workbench.page.screenshot({ path: shot })
    console.log(`  no display: running headless; the workbench is pictured in ${shot}`)
  } else {
    console.log('  the workbench window is open; protected windows open beside it')
  }
  console.log('Press Ctrl+C to stop.')
} catch (error) {
  console.error(`dev:cdp failed: ${(error as Error).message}`)
  await stop(1)
}

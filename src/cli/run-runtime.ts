/**
 * `npm run runtime`: the runtime alone, for development. Starts it the way
 * main does (a child process, secrets over IPC) and prints how to reach it.
 * The bearer token is printed because this is a developer's own terminal;
 * the app never shows it anywhere.
 */
import { mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ChildProcessLauncher } from '../main/core/runtime-launcher.ts'
import { RuntimeSupervisor } from '../main/core/runtime-supervisor.ts'
import { loadDataDirSecrets, type DataDirSecrets } from '../main/core/secret-store-selection.ts'

const dataDir = process.env.ASSENT_DATA_DIR ?? join(homedir(), '.assent-dev')
mkdirSync(dataDir, { recursive: true, mode: 0o700 })
let secrets: DataDirSecrets
try {
  secrets = await loadDataDirSecrets(dataDir, {
    warn: (message) => console.warn(`warning: ${message}`),
  })
} catch (error) {
  console.error(`Assent did not start: ${(error as Error).message}`)
  process.exit(1)
}
const supervisor = new RuntimeSupervisor({
  launcher: new ChildProcessLauncher(fileURLToPath(new URL('../runtime/main.ts', import.meta.url))),
  dataDir,
  integrityKey: secrets.integrityKey,
  rollbackAnchor: secrets.rollbackAnchor,
  onDiagnostic: (message) => console.error(`main: ${message}`),
  onDown: (reason) => console.error(`runtime down: ${reason}; restarting`),
  onUp: (connection) => {
    const base = `http://127.0.0.1:${connection.port}`
    console.log(`Assent runtime ${connection.instanceId} is listening on ${base}`)
    console.log(`  data folder: ${dataDir}`)
    console.log(
      `  try: curl -s -H 'Authorization: Bearer ${connection.bearerToken}' ${base}/v1/health`,
    )
    console.log('  for the examples in docs/runtime-api.md, paste into another shell:')
    console.log(`  export ASSENT_URL=${base} ASSENT_TOKEN=${connection.bearerToken}`)
    console.log('  decisions need consent tokens minted by main: use the app or dev:cdp for those.')
    console.log('Press Ctrl+C to stop.')
  },
})
const stop = async () => {
  await supervisor.stop()
  console.log(`Assent runtime stopped (data folder: ${dataDir}).`)
  process.exit(0)
}
process.on('SIGINT', () => void stop())
process.on('SIGTERM', () => void stop())
try {
  await supervisor.start()
} catch (error) {
  console.error(`the runtime did not start: ${(error as Error).message}`)
  process.exit(1)
}

/**
 * The vitest part of `npm test`. Where dbus-run-session and
 * gnome-keyring-daemon exist, vitest runs under scripts/with-secret-service.sh,
 * so the keytar tests meet a real (throwaway) Secret Service; elsewhere it
 * runs as is, and tests/keychain.test.ts says what is missing (or, with
 * ASSENT_REQUIRE_ALL=1, fails). First it installs the pinned real agents
 * the external-agent tests run (scripts/agents/install-agents.ts): with
 * ASSENT_REQUIRE_ALL=1 a failed install fails the run; otherwise those tests
 * say what is missing and skip. Arguments pass through to vitest, whose
 * summary is the last word.
 */
import { spawn } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureAgentsInstalled } from './agents/install-agents.ts'

const VITEST = fileURLToPath(new URL('../node_modules/.bin/vitest', import.meta.url))
const WRAPPER = fileURLToPath(new URL('./with-secret-service.sh', import.meta.url))

function onPath(tool: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, tool), constants.X_OK)
      return true
    } catch {
      return false
    }
  })
}

// Already inside a wrapper (ASSENT_SECRET_SERVICE is set there): no second bus.
const wrap =
  process.env.ASSENT_SECRET_SERVICE === undefined &&
  onPath('dbus-run-session') &&
  onPath('gnome-keyring-daemon')
const agentsFailure = await ensureAgentsInstalled()
if (agentsFailure) {
  console.error(`agents: could not install the agents: ${agentsFailure}`)
  if (process.env.ASSENT_REQUIRE_ALL === '1') process.exit(1)
}
const vitestArgs = ['run', ...process.argv.slice(2)]
const [command, args] = wrap ? [WRAPPER, [VITEST, ...vitestArgs]] : [VITEST, vitestArgs]

const child = spawn(command, args, { stdio: 'inherit' })
child.on('error', (error) => {
  console.error(`could not start vitest: ${error.message}`)
  process.exitCode = 1
})
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 1 : 0)
})

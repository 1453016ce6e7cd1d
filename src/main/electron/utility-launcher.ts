import { utilityProcess, type UtilityProcess } from 'electron'
import type { RuntimeLauncher, RuntimeProcess } from '../core/runtime-launcher.ts'

/**
 * Starts the runtime as an Electron utility process (a Node process managed
 * by Chromium's service framework, so no `ELECTRON_RUN_AS_NODE`, which the
 * fuses turn off). Nothing secret is on its argv or environment: the
 * supervisor sends the bearer token, consent key and data folder over the
 * message port once it is up.
 */
export class UtilityProcessLauncher implements RuntimeLauncher {
  private readonly entry: string

  /** `entry`: the built runtime (`out/main/runtime.js`). */
  constructor(entry: string) {
    this.entry = entry
  }

  launch(): RuntimeProcess {
    const child = utilityProcess.fork(this.entry, [], {
      serviceName: 'assent-runtime',
      stdio: 'inherit',
      env: withoutAssentVariables(process.env),
    })
    return utilityRuntimeProcess(child)
  }
}

/** The runtime inherits no ASSENT_* variable and no NODE_OPTIONS, as with
 *  the child-process launcher: none may carry a secret or a flag into it. */
function withoutAssentVariables(env: NodeJS.ProcessEnv): Record<string, string> {
  const copy: Record<string, string> = {}
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && !key.startsWith('ASSENT_') && key !== 'NODE_OPTIONS') {
      copy[key] = value
    }
  }
  return copy
}

function utilityRuntimeProcess(child: UtilityProcess): RuntimeProcess {
  let exited = false
  child.once('exit', () => {
    exited = true
  })
  return {
    get pid() {
      return child.pid
    },
    send: (message) => {
      // Posting to a process that has exited throws; the supervisor learns
      // of the exit from `onExit` instead.
      if (!exited) child.postMessage(message)
    },
    onMessage: (listener) => {
      child.on('message', (message: unknown) => listener(message))
    },
    // A utility process reports an exit code only; a kill shows as a
    // non-zero code, never as a signal name.
    onExit: (listener) => {
      child.on('exit', (code) => listener(code, null))
    },
    // Chromium ends the service its own way; there is no signal to choose.
    kill: () => {
      if (!exited) child.kill()
    },
  }
}

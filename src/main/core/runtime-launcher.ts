import { fork, type ChildProcess } from 'node:child_process'

/** One running runtime process, as main's supervisor sees it. */
export interface RuntimeProcess {
  readonly pid: number | undefined
  send(message: unknown): void
  onMessage(listener: (message: unknown) => void): void
  onExit(listener: (code: number | null, signal: string | null) => void): void
  kill(signal?: NodeJS.Signals): void
}

/** Port: starts a runtime process with an IPC channel and nothing secret on
 *  its argv or environment (secrets go over the channel afterwards). */
export interface RuntimeLauncher {
  launch(): RuntimeProcess
}

/**
 * Node flags needed to run the runtime's TypeScript source directly: Node
 * 22.18+ strips types and ships `node:sqlite` unflagged; 22.12–22.17 need
 * the experimental flags.
 */
export function nodeFlagsFor(entry: string, nodeVersion: string, stripsTypes: boolean): string[] {
  const [major = 0, minor = 0] = nodeVersion.replace(/^v/, '').split('.').map(Number)
  const flags: string[] = []
  if (entry.endsWith('.ts') && !stripsTypes) flags.push('--experimental-strip-types')
  if (major === 22 && minor < 13) flags.push('--experimental-sqlite')
  return flags
}

/** Forks the runtime as a child Node process (tests and the CDP host). */
export class ChildProcessLauncher implements RuntimeLauncher {
  private readonly entry: string
  private readonly env: NodeJS.ProcessEnv

  constructor(entry: string, env: NodeJS.ProcessEnv = process.env) {
    this.entry = entry
    this.env = env
  }

  launch(): RuntimeProcess {
    const stripsTypes = Boolean((process.features as { typescript?: unknown }).typescript)
    const child = fork(this.entry, [], {
      execArgv: nodeFlagsFor(this.entry, process.version, stripsTypes),
      env: withoutSecrets(this.env),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'json',
    })
    return childRuntimeProcess(child)
  }
}

/** The runtime inherits no ASSENT_* variable: none of them may carry a
 *  secret into a process listing or a crash dump. */
function withoutSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith('ASSENT_') && key !== 'NODE_OPTIONS') copy[key] = value
  }
  return copy
}

function childRuntimeProcess(child: ChildProcess): RuntimeProcess {
  return {
    pid: child.pid,
    send: (message) => {
      if (child.connected) child.send(message as object)
    },
    onMessage: (listener) => child.on('message', listener),
    onExit: (listener) => child.on('exit', listener),
    kill: (signal = 'SIGTERM') => {
      child.kill(signal)
    },
  }
}

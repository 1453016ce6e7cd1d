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
 * Node flags the child needs to run the runtime's TypeScript source directly.
 * Decided by the child's Node version alone: the child gets its own execArgv,
 * so a parent that was itself started with `--experimental-strip-types` does
 * not pass that on. Node 22.18+ and 23.6+ strip types by default and ship
 * `node:sqlite` unflagged (the supported floor is 22.19).
 */
export function nodeFlagsFor(entry: string, nodeVersion: string): string[] {
  const [major = 0, minor = 0] = nodeVersion.replace(/^v/, '').split('.').map(Number)
  const stripsByDefault =
    major > 23 || (major === 23 && minor >= 6) || (major === 22 && minor >= 18)
  const flags: string[] = []
  if (entry.endsWith('.ts') && !stripsByDefault) flags.push('--experimental-strip-types')
  if (major === 22 && minor < 13) flags.push('--experimental-sqlite')
  return flags
}

/** Forks the runtime as a child Node process (tests and the CDP host). */
export class ChildProcessLauncher implements RuntimeLauncher {
  private readonly entry: string
  private readonly env: NodeJS.ProcessEnv
  private readonly extraFlags: readonly string[]

  /** `extraFlags` are Node flags added after the required ones (the bench
   *  profiles the runtime with `--cpu-prof`); nothing secret goes there. */
  constructor(
    entry: string,
    env: NodeJS.ProcessEnv = process.env,
    extraFlags: readonly string[] = [],
  ) {
    this.entry = entry
    this.env = env
    this.extraFlags = extraFlags
  }

  launch(): RuntimeProcess {
    const child = fork(this.entry, [], {
      execArgv: [...nodeFlagsFor(this.entry, process.version), ...this.extraFlags],
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

function ignoreClosedChannel(): void {}

function childRuntimeProcess(child: ChildProcess): RuntimeProcess {
  return {
    pid: child.pid,
    send: (message) => {
      // The runtime can die between the `connected` check and the write
      // (a crash, a kill). Without a callback Node reports that failed write
      // as an 'error' event nobody listens to, which would crash main. The
      // message had no one left to act on it, and the death itself reaches
      // the supervisor through `onExit`, so the write error is dropped here.
      if (child.connected) child.send(message as object, ignoreClosedChannel)
    },
    onMessage: (listener) => child.on('message', listener),
    onExit: (listener) => child.on('exit', listener),
    kill: (signal = 'SIGTERM') => {
      child.kill(signal)
    },
  }
}

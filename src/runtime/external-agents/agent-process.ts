import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { BASE_AGENT_ENVIRONMENT, type ExternalAgentConfig } from '../../contracts/agents-config.ts'
import { onlyTheseDescriptors } from '../child-processes/inherited-descriptors.ts'
import type { AgentWrap } from '../domain/agent-containment-port.ts'

/** How much of the agent's stderr is kept for diagnostics: its last words,
 *  not a log that grows with every turn. */
export const AGENT_STDERR_TAIL_BYTES = 64 * 1024
/** How long an agent has to exit after SIGTERM before it is killed. */
export const AGENT_EXIT_GRACE_MS = 3_000

/**
 * The environment an agent process runs with: the base names of
 * `BASE_AGENT_ENVIRONMENT` and the entry's `pass_env` names, copied from
 * `source` where set, then the entry's `set_env` values. Nothing else: the
 * runtime's own variables (its secrets included) never reach the agent.
 */
export function agentEnvironment(
  agent: Pick<ExternalAgentConfig, 'pass_env' | 'set_env'>,
  source: NodeJS.ProcessEnv,
): Record<string, string> {
  const environment: Record<string, string> = {}
  for (const name of [...BASE_AGENT_ENVIRONMENT, ...agent.pass_env]) {
    const value = source[name]
    if (value !== undefined) environment[name] = value
  }
  return { ...environment, ...agent.set_env, ...HELD_TO_WHAT_IS_SHOWN }
}

/**
 * Set for every agent, over the entry's own values: what keeps an agent's
 * actions where the person is shown them. Claude's Bash tool otherwise
 * keeps the folder a `cd` left it in from one command to the next, while
 * the request it asks with names no folder, so the window, the person-only
 * rule and a command grant all judge the session's folder: `pwd` after an
 * allowed `cd sub` ran in `sub` (claude-agent-acp 0.23.1). Held to the
 * project's folder, each command runs where it is shown to.
 */
const HELD_TO_WHAT_IS_SHOWN: Readonly<Record<string, string>> = Object.freeze({
  CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR: '1',
})

export interface AgentExit {
  code: number | null
  signal: NodeJS.Signals | null
}

/** A running agent process: its stdio, and a way to end it. */
export interface AgentProcess {
  readonly pid: number | undefined
  readonly stdin: NodeJS.WritableStream
  readonly stdout: NodeJS.ReadableStream
  /** Resolves when the process has exited (or could not be started). */
  readonly exited: Promise<AgentExit>
  /** The last `AGENT_STDERR_TAIL_BYTES` the agent wrote to stderr. */
  stderrTail(): string
  /** SIGTERM to the agent's process group, SIGKILL after the grace period;
   *  resolves once it has exited. */
  stop(): Promise<AgentExit>
}

/**
 * Starts the agent in the room's workspace with the minimal environment,
 * and no descriptor but its three pipes.
 * It runs in its own process group, so ending it also ends the commands it
 * started. `command` is looked up on the agent's PATH, not the runtime's.
 * With a `wrap` (sandbox/agent-containment.ts), it is started inside it.
 */
export function startAgentProcess(
  agent: Pick<ExternalAgentConfig, 'command' | 'args' | 'pass_env' | 'set_env'>,
  workspace: string,
  source: NodeJS.ProcessEnv = process.env,
  wrap: AgentWrap | null = null,
): AgentProcess {
  // Nor a descriptor whatever started the runtime left open: the agent's
  // own sandbox, which its allowed commands run in, would not stop a
  // command writing through one (inherited-descriptors.ts).
  const given = onlyTheseDescriptors(
    wrap?.descriptor3 === undefined ? ['pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe', 'pipe'],
  )
  let child: ChildProcessWithoutNullStreams
  try {
    // Its first three are pipes, so its streams are there.
    const [file, args] =
      wrap === null
        ? [agent.command, agent.args]
        : [wrap.program, [...wrap.args, agent.command, ...agent.args]]
    child = spawn(file, args, {
      cwd: workspace,
      env: agentEnvironment(agent, source),
      stdio: given.stdio,
      detached: true,
    }) as ChildProcessWithoutNullStreams
  } finally {
    given.close()
  }
  if (wrap?.descriptor3 !== undefined) {
    const pipe = child.stdio[3]
    // Fails closed: bubblewrap waits for its filter, and refuses to start
    // the agent without it; it is not left waiting.
    if (pipe === undefined || pipe === null || !('end' in pipe)) child.kill('SIGKILL')
    else {
      pipe.on('error', () => undefined)
      pipe.end(wrap.descriptor3)
    }
  }
  let stderr = Buffer.alloc(0)
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = Buffer.concat([stderr, chunk])
    if (stderr.length > AGENT_STDERR_TAIL_BYTES) stderr = stderr.subarray(-AGENT_STDERR_TAIL_BYTES)
  })
  // A broken pipe to an agent that died is reported by `exited`, not thrown.
  child.stdin.on('error', () => {})
  const exited = new Promise<AgentExit>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }))
    child.once('error', () => resolve({ code: null, signal: null }))
  })
  let done = false
  void exited.then(() => {
    done = true
  })

  const signalGroup = (signal: NodeJS.Signals, evenAfterExit = false): void => {
    if ((done && !evenAfterExit) || child.pid === undefined) return
    try {
      process.kill(-child.pid, signal)
    } catch (error) {
      // The group is gone already: nothing left to end.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
    }
  }

  return {
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout,
    exited,
    stderrTail: () => stderr.toString('utf8'),
    async stop() {
      child.stdin.end()
      signalGroup('SIGTERM')
      const timer = setTimeout(() => signalGroup('SIGKILL'), AGENT_EXIT_GRACE_MS)
      const exit = await exited
      clearTimeout(timer)
      // Commands the agent left behind in its group end with it.
      signalGroup('SIGKILL', true)
      return exit
    },
  }
}

import { statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type {
  AgentContainmentAnswer,
  AgentContainmentPort,
  AgentLaunchRequest,
} from '../domain/agent-containment-port.ts'
import { credentialPlacesNamedBy } from '../policy/environment-credentials.ts'
import { isInsideRoot } from '../policy/path-containment.ts'
import { HomeCredentialsIndex } from './home-credentials.ts'
import { sandboxPolicyFor, type HiddenPath } from './sandbox-policy.ts'
import { probeSandbox, SYSTEM_BIN_FOLDERS, type SandboxAvailability } from './sandbox-probe.ts'

// An external agent's own process (Codex's app-server, an ACP agent) runs
// the commands its own sandbox allows without asking anyone, and some of
// them read anywhere: codex-acp's read-only mode runs `cat ~/.ssh/id_rsa`
// unasked, and what it prints goes to the model. Started inside
// bubblewrap, the agent and everything it starts see the machine as an
// allowed command of Assent's does for reading: the person's credential
// places, those the environment names, and Assent's own files empty. It
// writes where it wrote before (the agent's own sandbox and its requests
// decide that), reaches the network it reached, and keeps its own
// settings (`agentOwnPlaces`).

export interface AgentContainmentOptions {
  /** The runtime's environment: the person's HOME and PATH. */
  env: NodeJS.ProcessEnv
  /** Assent's own files: its data folder and config files. */
  assentPrivate: readonly string[]
  /** The explicit setting that lets commands run uncontained where no
   *  sandbox can start (command-sandbox.ts); agents follow it. */
  allowUncontained: boolean
  probe?: () => Promise<SandboxAvailability>
  /** This process's user, for the user namespace (tests give one). */
  uid?: number
}

/** The uid an agent runs as inside its namespace when the runtime is
 *  root: a user namespace mapping root to root lets no sandbox inside it
 *  (Codex's own bubblewrap) map its own, and the agent's commands would
 *  all fail to start. Mapped to the runtime's user outside all the same. */
export const AGENT_UID_UNDER_ROOT = 1000

export class AgentContainment implements AgentContainmentPort {
  private readonly home: string
  private readonly assentPrivate: readonly string[]
  private readonly namedCredentials: readonly string[]
  private readonly homeCredentials: HomeCredentialsIndex
  private readonly allowUncontained: boolean
  private readonly probe: () => Promise<SandboxAvailability>
  private readonly uid: number | undefined
  private availability: Promise<SandboxAvailability> | undefined

  constructor(options: AgentContainmentOptions) {
    this.home = options.env.HOME ?? os.homedir()
    this.assentPrivate = options.assentPrivate
    this.namedCredentials = credentialPlacesNamedBy(options.env, this.home).map(
      ({ place }) => place,
    )
    this.homeCredentials = new HomeCredentialsIndex(this.home)
    this.allowUncontained = options.allowUncontained
    const searchPath = options.env.PATH
    this.probe =
      options.probe ??
      (() => probeSandbox(process.platform, searchPath, process.arch, SYSTEM_BIN_FOLDERS))
    this.uid = options.uid ?? process.getuid?.()
  }

  async wrapFor(request: AgentLaunchRequest): Promise<AgentContainmentAnswer> {
    this.availability ??= this.probe()
    const availability = await this.availability
    if (!availability.available) {
      // Fails closed, as a command would: the agent is not started unless
      // the person said commands may run uncontained here.
      if (this.allowUncontained) return { ok: true, wrap: null }
      return {
        ok: false,
        reason: `no sandbox can start here to hide your keys from the agent: ${availability.missing}; to fix it, ${availability.fix}`,
      }
    }
    // macOS: the agent's own Seatbelt sandbox cannot start inside another
    // (docs/agents-external.md says so as a limit).
    if (availability.kind !== 'bubblewrap') return { ok: true, wrap: null }
    const own = agentOwnPlaces(request.agentEnv, request.workspace)
    const deep = await this.homeCredentials.current([request.workspace], [request.workspace])
    if (deep.unhideable) {
      return {
        ok: false,
        reason: `${this.home} holds more than can be searched for credentials to hide from the agent`,
      }
    }
    const policy = sandboxPolicyFor({
      sandboxMode: 'workspace-write',
      workspace: request.workspace,
      extraWritableRoots: [],
      readOnlyInside: [],
      home: this.home,
      deepCredentials: [...deep.paths, ...deep.unwalked],
      assentPrivate: this.assentPrivate,
      namedCredentials: this.namedCredentials,
    })
    const hidden = [...policy.hidden, ...runtimeSockets(this.uid)]
    const args = agentBwrapArgs(hidden, own, request.workspace, this.uid)
    return { ok: true, wrap: { program: availability.program, args } }
  }
}

/**
 * bubblewrap's arguments before the agent's command: its own user, PID,
 * IPC and host-name namespaces (it sees and signals none of the person's
 * processes, and no `/proc/<pid>/root` leads past what is hidden), no
 * capability, the whole root as it is, then each hidden place empty: a
 * folder as a read-only empty folder, a file as an empty file. What the
 * agent keeps of its own (`own`) is left out; one inside a hidden folder
 * is bound back over it.
 */
export function agentBwrapArgs(
  hidden: readonly HiddenPath[],
  own: readonly string[],
  workspace: string,
  uid: number | undefined,
): string[] {
  const args = ['--unshare-user']
  if (uid === 0) {
    args.push('--uid', String(AGENT_UID_UNDER_ROOT), '--gid', String(AGENT_UID_UNDER_ROOT))
  }
  args.push('--cap-drop', 'ALL', '--die-with-parent')
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts')
  args.push('--bind', '/', '/', '--dev', '/dev', '--proc', '/proc')
  const isOwn = (place: string) => own.some((mine) => isInsideRoot(mine, place))
  for (const entry of hidden) {
    if (isOwn(entry.path)) continue
    if (entry.kind === 'folder') args.push('--tmpfs', entry.path, '--remount-ro', entry.path)
    else args.push('--ro-bind', '/dev/null', entry.path)
  }
  for (const mine of own) {
    const under = hidden.some(
      (entry) => entry.kind === 'folder' && mine !== entry.path && isInsideRoot(entry.path, mine),
    )
    if (under && exists(mine)) args.push('--bind', mine, mine)
  }
  args.push('--chdir', workspace, '--')
  return args
}

/**
 * What the agent keeps of its own, hidden from commands though it is:
 * Codex's home (`$CODEX_HOME`, or `~/.codex`: its sign-in and settings)
 * and Claude's (`~/.claude`, `~/.claude.json`, `$CLAUDE_CONFIG_DIR`), in
 * the agent's home. Without them the agent could not sign in or read the
 * settings Assent checks before it starts (codex-own-allowances.ts).
 */
export function agentOwnPlaces(env: Readonly<Record<string, string>>, workspace: string): string[] {
  const home = env.HOME ?? os.homedir()
  const places = [
    env.CODEX_HOME === undefined
      ? path.join(home, '.codex')
      : path.resolve(workspace, env.CODEX_HOME),
    path.join(home, '.claude'),
    path.join(home, '.claude.json'),
  ]
  if (env.CLAUDE_CONFIG_DIR !== undefined)
    places.push(path.resolve(workspace, env.CLAUDE_CONFIG_DIR))
  return places
}

/**
 * The runtime user's own sockets folder (`/run/user/<uid>`): the session
 * bus, through which the keyring hands out the secrets it holds (Assent's
 * own among them), and the display's sockets. A read-only mount does not
 * stop a connection to a socket; an empty folder in its place does.
 */
function runtimeSockets(uid: number | undefined): HiddenPath[] {
  if (uid === undefined) return []
  const folder = `/run/user/${uid}`
  return exists(folder) ? [{ path: folder, kind: 'folder' }] : []
}

function exists(place: string): boolean {
  try {
    statSync(place)
    return true
  } catch {
    return false
  }
}

import { mkdirSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type {
  AgentContainmentAnswer,
  AgentContainmentPort,
  AgentLaunchRequest,
} from '../domain/agent-containment-port.ts'
import { credentialPlacesNamedBy } from '../policy/environment-credentials.ts'
import { isInsideRoot } from '../policy/path-containment.ts'
import { AFTER_CALL_WALK_ENTRIES, personOnlyPathsInRoots } from '../policy/read-only-walk.ts'
import { agentSeccompFilter } from './agent-seccomp-filter.ts'
import { PROC_MACHINE_WIDE } from './bwrap-args.ts'
import { HomeCredentialsIndex } from './home-credentials.ts'
import { SECCOMP_FD } from './seccomp-filter.ts'
import { sandboxPolicyFor, type HiddenPath } from './sandbox-policy.ts'
import { probeSandbox, SYSTEM_BIN_FOLDERS, type SandboxAvailability } from './sandbox-probe.ts'

// An external agent's own process (Codex's app-server, an ACP agent) runs
// the commands its own sandbox allows without asking anyone, and some of
// them read anywhere: codex-acp's read-only mode runs `cat ~/.ssh/id_rsa`
// unasked, and what it prints goes to the model. Started inside
// bubblewrap, the agent and everything it starts see the machine as an
// allowed command of Assent's does for reading: the person's credential
// places, those the environment names, and Assent's own files empty. It
// writes only its workspace (less what needs the person there, as for
// Assent's own commands), its own settings (`agentOwnPlaces`) and a
// temporary folder of its own; it reaches the network it reached.

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
    madeIfAbsent(own)
    const deep = await this.homeCredentials.current([request.workspace], [request.workspace])
    if (deep.unhideable) {
      return {
        ok: false,
        reason: `${this.home} holds more than can be searched for credentials to hide from the agent`,
      }
    }
    // What needs the person in the workspace (all of `.git`, the files
    // other programs run later) stays read-only, as for Assent's own
    // commands (sandbox-policy.ts): the agent's process writes what it
    // likes, unasked, and git or the person's editor would run it later.
    // One walk per start, so a larger one than a command's.
    const kept = personOnlyPathsInRoots([request.workspace], AFTER_CALL_WALK_ENTRIES)
    // Fails closed: what the walk did not reach, or a workspace inside a
    // git folder, cannot be kept read-only, and the agent would write it.
    if (kept.truncated !== null || kept.unlistable.length > 0 || kept.inGitFolder !== null) {
      return {
        ok: false,
        reason: `${request.workspace} cannot be searched whole for what the agent must not change (git's folders, files other programs run); put the room in full access to start the agent as it is`,
      }
    }
    const policy = sandboxPolicyFor({
      sandboxMode: 'workspace-write',
      workspace: request.workspace,
      extraWritableRoots: [],
      readOnlyInside: kept.paths,
      home: this.home,
      deepCredentials: [...deep.paths, ...deep.unwalked],
      assentPrivate: this.assentPrivate,
      namedCredentials: this.namedCredentials,
    })
    // Fails closed: without its filter the agent would reach every socket
    // in the abstract namespace it shares with the runtime.
    const filter = agentSeccompFilter()
    if (filter === null) {
      return { ok: false, reason: `no filter of Assent's for this machine (${process.arch})` }
    }
    const hidden = [...policy.hidden, ...runtimeSockets(this.uid)]
    const args = agentBwrapArgs(
      { hidden, own, workspace: request.workspace, readOnlyInside: policy.readOnlyInside },
      this.uid,
    )
    return { ok: true, wrap: { program: availability.program, args, descriptor3: filter } }
  }
}

/** What the agent's sandbox is made of (`agentBwrapArgs`). */
export interface AgentPlaces {
  /** Shown empty. */
  hidden: readonly HiddenPath[]
  /** The agent's own settings, writable (`agentOwnPlaces`). */
  own: readonly string[]
  /** Its room's workspace (real path), writable, where it starts. */
  workspace: string
  /** Real paths in the workspace that stay read-only. */
  readOnlyInside: readonly string[]
}

/**
 * bubblewrap's arguments before the agent's command: its own user, PID,
 * IPC and host-name namespaces (it sees and signals none of the person's
 * processes, and no `/proc/<pid>/root` leads past what is hidden), no
 * capability, and its own session (no terminal to push keystrokes into).
 * The whole root read-only: the agent's process writes unasked wherever
 * it can, and what it would write outside its workspace runs later with
 * nobody asked (`core.hooksPath` in `~/.config/git/config`, a line in
 * `~/.bashrc`, a hook in another room's repository, Assent's own config;
 * run by root, `/etc` and `/usr`). An empty `/tmp` of its own, so nothing
 * it leaves there reaches the host and no socket of the person's there
 * (ssh-agent's, the display's) is reached. Then, over that, writable: the
 * workspace and what the agent keeps of its own (`own`); read-only again
 * what needs the person in the workspace; then each hidden place empty
 * (a folder as a read-only empty folder, a file as an empty file), but
 * the agent's own, and one of its own inside a hidden folder is bound
 * back over it.
 */
export function agentBwrapArgs(places: AgentPlaces, uid: number | undefined): string[] {
  const { hidden, own, workspace, readOnlyInside } = places
  const args = ['--unshare-user']
  if (uid === 0) {
    args.push('--uid', String(AGENT_UID_UNDER_ROOT), '--gid', String(AGENT_UID_UNDER_ROOT))
  }
  args.push('--cap-drop', 'ALL', '--die-with-parent', '--new-session')
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts')
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp')
  // The new /proc's kernel settings and the files that act on the whole
  // machine read-only, as a command's are (bwrap-args.ts): run by root,
  // the agent's user is root outside its namespace, and a setting takes
  // its owner's write bit whatever the capabilities (`kernel/core_pattern`
  // names a program the kernel runs as root at the next crash).
  args.push('--ro-bind', '/proc/sys', '/proc/sys')
  for (const machineWide of PROC_MACHINE_WIDE) args.push('--ro-bind-try', machineWide, machineWide)
  const writable = [workspace, ...own.filter(exists)]
  for (const place of writable) args.push('--bind', place, place)
  for (const inside of readOnlyInside) args.push('--ro-bind', inside, inside)
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
  // Its temporary folder is its own `/tmp`: one the environment named
  // elsewhere is read-only like the rest.
  args.push('--setenv', 'TMPDIR', '/tmp')
  // No Unix-domain socket of its own (agent-seccomp-filter.ts), read from
  // the descriptor the agent's start gives it (agent-process.ts).
  args.push('--seccomp', String(SECCOMP_FD))
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
 * Each of the agent's own places made where it is absent, before the
 * start: the rest of the home folder is read-only to the agent, and a
 * mount can keep writable only what exists (Claude's first start makes
 * `~/.claude` and `~/.claude.json`, and ended without them). A file as an
 * empty settings object, which is what Claude makes. One that cannot be
 * made is left as it is: the agent cannot write it, nothing more.
 */
function madeIfAbsent(own: readonly string[]): void {
  for (const place of own) {
    try {
      if (place.endsWith('.json')) writeFileSync(place, '{}\n', { flag: 'wx', mode: 0o600 })
      else mkdirSync(place, { recursive: true, mode: 0o700 })
    } catch {
      // There already, or not ours to make.
    }
  }
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

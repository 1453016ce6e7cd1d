import os from 'node:os'
import type { CommandContainment } from '../../contracts/command-containment.ts'
import { message } from '../../contracts/runtime-message.ts'
import { commandEnvironment } from '../tools/command-environment.ts'
import type {
  CommandLauncher,
  CommandRefusal,
  CommandRequest,
  PreparedCommand,
} from '../tools/command-launcher.ts'
import { checkWorkspaceIdentity } from '../policy/workspace-identity.ts'
import { credentialPlacesNamedBy } from '../policy/environment-credentials.ts'
import { bwrapArgs } from './bwrap-args.ts'
import { holdFolders } from './held-folders.ts'
import { holdKeptInside, holdShownEntries } from './held-entries.ts'
import { HomeCredentialsIndex } from './home-credentials.ts'
import { SECCOMP_FD } from './seccomp-filter.ts'
import {
  personOnlyAtStart,
  MadePersonOnlyWatch,
  withHiddenPlaces,
  type PersonOnlyAtStart,
} from '../policy/made-person-only.ts'
import { sandboxPolicyFor, writableRootsOf, type CommandSandboxPolicy } from './sandbox-policy.ts'
import { probeSandbox, SYSTEM_BIN_FOLDERS, type SandboxAvailability } from './sandbox-probe.ts'
import { seatbeltProfile } from './seatbelt-profile.ts'

/** The env var that lets commands under `workspace-write` or `read-only`
 *  run uncontained where no sandbox can start. Read once, at start. */
export const ALLOW_UNCONTAINED_ENV = 'ASSENT_ALLOW_UNCONTAINED_COMMANDS'

export interface CommandSandboxOptions {
  /** The home folder whose credential folders are hidden; the runtime's
   *  HOME by default. */
  home?: string
  /** The runtime's environment, the source of the command's own (see
   *  command-environment.ts). */
  env?: NodeJS.ProcessEnv
  /** Assent's own files a command must not read: the data folder (the
   *  database, the gateway connection file), its config files. */
  assentPrivate: readonly string[]
  /** The explicit setting: commands may run uncontained where no sandbox
   *  can start. Off unless the person turned it on. */
  allowUncontained?: boolean
  platform?: NodeJS.Platform
  /** Whether a sandbox can start here; tried once, on first use. */
  probe?: () => Promise<SandboxAvailability>
  /** Where bubblewrap is looked for before PATH: the system's folders by
   *  default; none stands for a machine without it. */
  systemBinFolders?: readonly string[]
}

/**
 * The one way the runtime starts a command for an agent, contained by the
 * operating system as the room's sandbox mode promises:
 *
 * - `workspace-write` (and `external-sandbox`, enforced as it): bubblewrap
 *   on Linux, Seatbelt on macOS, built from one policy value
 *   (sandbox-policy.ts): the workspace and the turn's widened folders
 *   writable, everything else read-only, a private `/tmp`, no network, the
 *   person's credential folders and Assent's own data hidden;
 * - `read-only`: the same with nothing writable;
 * - `danger-full-access`: no sandbox; the window says so.
 *
 * Fails closed: where no sandbox can start, a command under a mode that
 * promises one is refused with what is missing and how to install it. Only
 * the explicit setting (`ASSENT_ALLOW_UNCONTAINED_COMMANDS=1`) lets it run
 * uncontained, and the person is told so before they allow it.
 */
export class CommandSandbox implements CommandLauncher {
  private readonly home: string
  private readonly env: NodeJS.ProcessEnv
  private readonly assentPrivate: readonly string[]
  /** Credential places the runtime's environment names (`$GNUPGHOME`),
   *  hidden as the home folder's are; read once, as the environment is. */
  private readonly namedCredentials: readonly string[]
  private readonly allowUncontained: boolean
  private readonly platform: NodeJS.Platform
  private readonly probe: () => Promise<SandboxAvailability>
  private availability: Promise<SandboxAvailability> | undefined
  private readonly homeCredentials: HomeCredentialsIndex

  constructor(options: CommandSandboxOptions) {
    this.env = options.env ?? process.env
    this.home = options.home ?? this.env.HOME ?? os.homedir()
    this.assentPrivate = options.assentPrivate
    this.namedCredentials = credentialPlacesNamedBy(this.env, this.home).map(({ place }) => place)
    this.homeCredentials = new HomeCredentialsIndex(this.home)
    this.allowUncontained = options.allowUncontained === true
    this.platform = options.platform ?? process.platform
    const platform = this.platform
    const searchPath = this.env.PATH
    const systemFolders = options.systemBinFolders ?? SYSTEM_BIN_FOLDERS
    this.probe =
      options.probe ?? (() => probeSandbox(platform, searchPath, process.arch, systemFolders))
  }

  /** Whether a sandbox can start here, tried once and remembered: a
   *  machine does not gain or lose user namespaces between two commands,
   *  and a probe per command would double its start. */
  available(): Promise<SandboxAvailability> {
    this.availability ??= this.probe()
    return this.availability
  }

  /**
   * What the person is told about a command before they allow it: contained
   * (and where it may write), or not, and why; or why it would be refused.
   * The same decision `prepare` takes when the command starts.
   */
  async containmentFor(
    request: Pick<CommandRequest, 'sandboxMode' | 'workspace' | 'extraWritableRoots'>,
  ): Promise<{ ok: true; containment: CommandContainment } | CommandRefusal> {
    if (request.sandboxMode === 'danger-full-access') {
      return { ok: true, containment: { contained: false, why: 'full-access' } }
    }
    const availability = await this.available()
    if (!availability.available) {
      if (this.allowUncontained) {
        return { ok: true, containment: { contained: false, why: 'uncontained-setting' } }
      }
      return unavailable(availability)
    }
    // Refused at the start (`prepare`), so not put to the person either.
    const roots = writableRootsOf(this.inputFor(request))
    const deep = await this.homeCredentials.current(roots, this.shownFor(request))
    if (deep.unhideable) return homeTooLarge(this.home)
    const { policy } = this.policyFor(request)
    return { ok: true, containment: containmentOf(policy) }
  }

  /** How to start `request.argv`, contained as its room's mode promises, or
   *  why it must not start at all. */
  async prepare(request: CommandRequest): Promise<PreparedCommand | CommandRefusal> {
    // Credentials deeper in the home folder than its top, hidden as the
    // read rule asks for them (home-credentials.ts); read before the
    // workspace's check, which nothing may wait between and the start.
    // The writable roots are left out of the walk, so a command cannot
    // fill them to stop it.
    const walkedRoots = writableRootsOf(this.inputFor(request))
    const deep =
      request.sandboxMode === 'danger-full-access'
        ? undefined
        : await this.homeCredentials.current(walkedRoots, this.shownFor(request))
    // Fails closed: a walk that stopped where what it did not read cannot
    // be hidden leaves credentials it did not find readable, while the
    // window says they are hidden; the command does not start.
    if (deep?.unhideable === true) return homeTooLarge(this.home)
    // What the walk did not finish is hidden whole, as a credential is.
    const deepCredentials = deep === undefined ? [] : [...deep.paths, ...deep.unwalked]
    const walked = { roots: walkedRoots, deepCredentials }
    if (request.expectedWorkspace !== undefined) {
      // The same check every door makes (workspace-identity.ts); bubblewrap
      // then binds the folder it held from here on, not the path
      // (`prepareBubblewrap`).
      const moved = !checkWorkspaceIdentity(request.expectedWorkspace).ok
      if (moved) return workspaceChanged(request.workspace)
    }
    // A folder the person let the turn write, moved or replaced since the
    // call's check: the command would write elsewhere than they allowed.
    const widenedGone = (request.expectedExtraRoots ?? []).find(
      (pin) => !checkWorkspaceIdentity(pin).ok,
    )
    if (widenedGone !== undefined) return widenedFolderChanged(widenedGone.realPath)
    const env = stringEnvironment(commandEnvironment(this.env))
    const [program = '', ...rest] = request.argv
    if (request.sandboxMode === 'danger-full-access') {
      return {
        ok: true,
        file: program,
        args: rest,
        env,
        cwd: request.cwd,
        containment: { contained: false, why: 'full-access' },
        hidden: [],
      }
    }
    const availability = await this.available()
    if (!availability.available) {
      if (!this.allowUncontained) return unavailable(availability)
      return {
        ok: true,
        file: program,
        args: rest,
        env,
        cwd: request.cwd,
        containment: { contained: false, why: 'uncontained-setting' },
        hidden: [],
      }
    }
    if (availability.kind === 'bubblewrap') {
      return this.prepareBubblewrap(request, availability, env, walked)
    }
    const { policy, atStart } = this.policyFor(request, deepCredentials)
    if (!sameFolders(policy.writableRoots, walkedRoots)) return workspaceChanged(request.workspace)
    const containment = containmentOf(policy)
    const hidden = policy.hidden.map((entry) => entry.path)
    const watchMade = () => new MadePersonOnlyWatch(atStart)
    return {
      ok: true,
      file: availability.program,
      args: ['-p', seatbeltProfile(policy), '--', ...request.argv],
      env,
      cwd: request.cwd,
      containment,
      hidden,
      watchMade,
    }
  }

  /**
   * bubblewrap's start: the writable folders held open before the walk
   * (held-folders.ts), the pinned workspace checked by the folder held,
   * every held folder checked to still be at its path once the walk is
   * done, and each bound by its descriptor. Fails closed: a folder that
   * moved in between, or any the policy names that is not held, and the
   * command does not start.
   */
  private prepareBubblewrap(
    request: CommandRequest,
    availability: Extract<SandboxAvailability, { kind: 'bubblewrap' }>,
    env: Record<string, string>,
    walked: { roots: readonly string[]; deepCredentials: readonly string[] },
  ): PreparedCommand | CommandRefusal {
    const input = this.inputFor(request)
    const roots = writableRootsOf(input)
    // The roots are the paths' real paths now: a workspace swapped for a
    // link since its check resolves elsewhere, and is then not the pinned
    // folder's path at all. Its pinned path must be among them, held and
    // checked by device and inode, or nothing starts.
    // So must each widened folder's: one whose path now leads elsewhere (a
    // folder above it swapped for a link) is not the folder the person let
    // the turn write, and binding where it leads would give the command
    // that instead.
    const pinned = [
      ...(request.expectedWorkspace === undefined ? [] : [request.expectedWorkspace]),
      ...(request.expectedExtraRoots ?? []),
    ]
    const gone = pinned.find((pin) => !roots.includes(pin.realPath))
    if (input.sandboxMode !== 'read-only' && gone !== undefined) {
      return workspaceChanged(
        gone === request.expectedWorkspace ? request.workspace : gone.realPath,
      )
    }
    const held = holdFolders(roots, pinned)
    if (held === null) return workspaceChanged(request.workspace)
    const { policy, atStart } = this.policyFor(request, walked.deepCredentials)
    // The folders above a hidden path in a writable root, made mount
    // points of their own (sandbox-policy.ts) by what is held, as the roots
    // are: bound by a path looked up again, a folder swapped for a link in
    // between would make its target writable. Fails closed: one that
    // cannot be held, and nothing starts (unbound, it could be renamed).
    const above = holdFolders(policy.hiddenAncestors, [])
    // The entries of the folders shown as copies, each held, so a link put
    // at one's path since it was listed is not followed (held-entries.ts).
    const entries = holdShownEntries(policy.hiddenFileFolders)
    // And what stays read-only in the roots, looked up from the folders
    // held, so it is what lies in those bubblewrap binds.
    const rootsHeld = new Map(policy.writableRoots.map((root) => [root, held.descriptorOf(root)]))
    const kept = holdKeptInside(policy.readOnlyInside, rootsHeld)
    const release = () => {
      held.release()
      above?.release()
      entries.release()
      kept?.release()
    }
    const unheld = policy.writableRoots.some((root) => held.descriptorOf(root) === undefined)
    // The roots the home walk left out must be the ones bound writable:
    // another folder left out was not searched for credentials.
    const unwalked = !sameFolders(policy.writableRoots, walked.roots)
    const moved = !held.stillWhereHeld() || above === null || !above.stillWhereHeld()
    if (kept === null || unheld || unwalked || moved) {
      release()
      return workspaceChanged(request.workspace)
    }
    const bound = [...policy.writableRoots, ...policy.hiddenAncestors]
    // Given to bubblewrap after the seccomp filter's descriptor, in order,
    // the paths held inside the roots and the shown entries last.
    const childDescriptor = new Map(bound.map((folder, i) => [folder, SECCOMP_FD + 1 + i] as const))
    const byPath = [...kept.bound, ...entries.bound]
    const firstPath = SECCOMP_FD + 1 + bound.length
    const pathDescriptor = new Map(byPath.map(({ at }, i) => [at, firstPath + i] as const))
    const launch = { argv: request.argv, env, cwd: request.cwd }
    const shownPolicy = { ...policy, hiddenFileFolders: entries.folders }
    return {
      ok: true,
      file: availability.program,
      args: bwrapArgs(shownPolicy, launch, childDescriptor, pathDescriptor),
      // bubblewrap clears its own environment before the command starts;
      // it gets the command's, never the runtime's, all the same.
      env,
      cwd: request.cwd,
      containment: containmentOf(policy),
      hidden: policy.hidden.map((entry) => entry.path),
      watchMade: () => new MadePersonOnlyWatch(atStart),
      onDescriptor3: availability.seccompFilter,
      descriptorsAfter3: [
        ...bound.map((folder) => held.descriptorOf(folder) ?? above.descriptorOf(folder) ?? -1),
        ...byPath.map(({ fd }) => fd),
      ],
      release,
    }
  }

  /** The folders a command must see whatever its room's mode, which no
   *  hiding of the home walk's may cover: its workspace, the turn's
   *  widened folders. */
  private shownFor(request: Pick<CommandRequest, 'workspace' | 'extraWritableRoots'>) {
    return writableRootsOf({ ...request, sandboxMode: 'workspace-write' })
  }

  private inputFor(
    request: Pick<CommandRequest, 'sandboxMode' | 'workspace' | 'extraWritableRoots'>,
  ) {
    return {
      sandboxMode: request.sandboxMode === 'read-only' ? 'read-only' : 'workspace-write',
      workspace: request.workspace,
      extraWritableRoots: request.extraWritableRoots,
      home: this.home,
      assentPrivate: this.assentPrivate,
      namedCredentials: this.namedCredentials,
    } as const
  }

  /** The policy, and what of the table exists in its writable roots: one
   *  walk gives both, so what is bound read-only and what `watchMade`
   *  compares with are the same. */
  private policyFor(
    request: Pick<CommandRequest, 'sandboxMode' | 'workspace' | 'extraWritableRoots'>,
    deepCredentials: readonly string[] = [],
  ): { policy: CommandSandboxPolicy; atStart: PersonOnlyAtStart } {
    const input = this.inputFor(request)
    // What exists is bound read-only, so anything else at its path once
    // the command ends was put there around the binds.
    const atStart = personOnlyAtStart(writableRootsOf(input), { byIdentity: true })
    const policy = sandboxPolicyFor({ ...input, readOnlyInside: atStart.found, deepCredentials })
    // A link the command makes to what it hides, or to what it keeps
    // read-only, is removed after it (made-links.ts).
    const hidden = policy.hidden.map((entry) => entry.path)
    return { policy, atStart: withHiddenPlaces(atStart, hidden) }
  }
}

/** What the window says of a policy: where the command may write, that
 *  it has no network, that secrets are hidden. */
function containmentOf(policy: CommandSandboxPolicy): CommandContainment {
  return {
    contained: true,
    writableRoots: policy.writableRoots,
    network: policy.network,
    secretsHidden: true,
  }
}

function sameFolders(a: readonly string[], b: readonly string[]): boolean {
  return [...new Set(a)].sort().join('\0') === [...new Set(b)].sort().join('\0')
}

function workspaceChanged(workspace: string): CommandRefusal {
  return {
    ok: false,
    code: 'workspace_changed',
    message: message('sandbox.workspaceChanged', { path: workspace }),
  }
}

function widenedFolderChanged(folder: string): CommandRefusal {
  return {
    ok: false,
    code: 'workspace_changed',
    message: message('sandbox.widenedFolderChanged', { path: folder }),
  }
}

function homeTooLarge(home: string): CommandRefusal {
  return {
    ok: false,
    code: 'sandbox_unavailable',
    message: message('sandbox.homeTooLarge', { path: home }),
  }
}

function unavailable(availability: { missing: string; fix: string }): CommandRefusal {
  return {
    ok: false,
    code: 'sandbox_unavailable',
    message: message('sandbox.unavailable', {
      missing: availability.missing,
      fix: availability.fix,
    }),
  }
}

function stringEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value
  return out
}

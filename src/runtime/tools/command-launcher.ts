import type { ChildProcess } from 'node:child_process'
import type { WorkspaceIdentity } from '../../contracts/room.ts'
import type { CommandContainment } from '../../contracts/command-containment.ts'
import type { SandboxMode } from '../../contracts/policy-axes.ts'
import type { RuntimeMessage } from '../../contracts/runtime-message.ts'

/** A workspace as the room pinned it: its real path and its identity. */
/** The workspace as its room pinned it (real path, device, inode). */
export type PinnedWorkspace = WorkspaceIdentity

/** One command the runtime is about to start for an agent. */
export interface CommandRequest {
  sandboxMode: SandboxMode
  /** The room's workspace, as the turn names it. */
  workspace: string
  /** Real folders the person let this turn write in besides the workspace. */
  extraWritableRoots: readonly string[]
  /** When given, the workspace must still be this folder when the command
   *  starts, or the command is refused. */
  expectedWorkspace?: PinnedWorkspace
  /** The folders of `extraWritableRoots` as the person was shown them
   *  (real path, device, inode): each must still be that folder at that
   *  path when the command starts, or the command is refused. */
  expectedExtraRoots?: readonly PinnedWorkspace[]
  /** The checked working folder. */
  cwd: string
  /** What to run, the program first. */
  argv: readonly string[]
}

/** One path the command made that only a person may make. */
export interface MadePersonOnly {
  path: string
  /** Where it was moved, or null when it could not be. */
  movedTo: string | null
  /** Why it could not be moved, or, moved, why git still takes it for a
   *  repository; null when neither. */
  failure: string | null /** For a link a contained command made to a place kept or hidden for
   *  the person (made-links.ts): where it led, and why that place is the
   *  person's; the link is removed, not moved. */
  removedLinkTo?: string
}

export interface PersonOnlyAfterRun {
  made: MadePersonOnly[]
  /** The walk stopped at its limit: what lies past it was not checked. */
  unchecked: boolean
}

/** How to start the command: `spawn(file, args, { env, cwd })`. */
export interface PreparedCommand {
  ok: true
  file: string
  args: string[]
  env: NodeJS.ProcessEnv
  cwd: string
  containment: CommandContainment
  /** The paths the command sees as empty, to explain a failure that names
   *  one; empty when it is not contained. */
  hidden: readonly string[]
  /** For a contained command, started as it starts and stopped once it
   *  has ended (whatever the way): moves aside what it makes that only a
   *  person may make, while it runs and after (policy/made-person-only.ts).
   *  Absent when nothing contains it. */
  watchMade?: () => { stop(): PersonOnlyAfterRun }
  /** What the process reads on descriptor 3 as it starts: bubblewrap's
   *  seccomp filter. Absent when nothing contains it. */
  onDescriptor3?: Buffer
  /** Descriptors of the runtime's the process gets as 4, 5, …: the
   *  folders bubblewrap binds by descriptor (held-folders.ts), then the
   *  entries of the folders it shows as copies (held-entries.ts). */
  descriptorsAfter3?: readonly number[]
  /** Closes what `prepare` held open for the start: called once it has
   *  started, or when it will not. */
  release?: () => void
}

export interface CommandRefusal {
  ok: false
  code: 'sandbox_unavailable' | 'workspace_changed'
  message: RuntimeMessage
}

/**
 * How the runtime starts every command it runs for an agent: the command
 * sandbox (src/runtime/sandbox/) implements it, `run_command` and the
 * agent runner only call it. The invariant an implementation keeps: a
 * command under a sandbox mode that promises containment is either
 * prepared contained, or refused (unless the runtime was explicitly told
 * to run commands uncontained where no sandbox exists, and then its
 * containment says so); and `containmentFor` answers what `prepare` would
 * do for the same room and turn.
 */
export interface CommandLauncher {
  /** What the person is told about a command before they allow it. */
  containmentFor(
    request: Pick<CommandRequest, 'sandboxMode' | 'workspace' | 'extraWritableRoots'>,
  ): Promise<{ ok: true; containment: CommandContainment } | CommandRefusal>
  /** How to start `request.argv`, or why it must not start at all. */
  prepare(request: CommandRequest): Promise<PreparedCommand | CommandRefusal>
}

/** Writes what the process reads on descriptor 3 and closes it. A process
 *  that ends before reading it (bubblewrap refusing its arguments) closes
 *  the pipe: that failure is the process's own, reported by its exit. */
export function giveDescriptor3(child: ChildProcess, bytes: Buffer): void {
  const pipe = child.stdio[3]
  if (pipe === null || pipe === undefined || !('end' in pipe)) {
    // Fails closed: bubblewrap without its filter would wait for it, then
    // refuse to start; it is not left waiting.
    child.kill('SIGKILL')
    return
  }
  pipe.on('error', () => undefined)
  pipe.end(bytes)
}

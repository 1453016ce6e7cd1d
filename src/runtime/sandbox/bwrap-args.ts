import type { CommandSandboxPolicy } from './sandbox-policy.ts'
import { SECCOMP_FD } from './seccomp-filter.ts'

/** What is started inside the sandbox: the program and its arguments, the
 *  exact environment it gets, and the folder it starts in. */
export interface SandboxedLaunch {
  argv: readonly string[]
  env: Readonly<Record<string, string>>
  cwd: string
}

/**
 * The namespaces every sandboxed command gets, each checked to work here as
 * root and as an ordinary user: its own PIDs (it can neither see nor signal
 * the person's processes), IPC, host name, and cgroup and user namespaces
 * where the kernel allows them (`-try`: root needs no user namespace, and
 * an ordinary user's bubblewrap makes one anyway). `--new-session` keeps it
 * from pushing keystrokes into a terminal it shares with the runtime
 * (TIOCSTI); `--die-with-parent` ends it when the runtime dies.
 *
 * `--cap-drop ALL`: run by root (in a container, a CI job, a root shell),
 * bubblewrap makes no user namespace and otherwise leaves the command
 * every capability root has, and with CAP_SYS_ADMIN it could remount the
 * read-only root, or `.git`, read-write and write through to the host.
 * Dropped, the command has none, whoever started it; an ordinary user's
 * command had none to begin with. The probe checks it (sandbox-probe.ts).
 */
const BWRAP_ISOLATION_ARGS: readonly string[] = Object.freeze([
  '--cap-drop',
  'ALL',
  '--die-with-parent',
  '--new-session',
  '--unshare-pid',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-cgroup-try',
  '--unshare-user-try',
])

/** Files of /proc, besides `sys`, that change the whole machine. */
export const PROC_MACHINE_WIDE: readonly string[] = [
  '/proc/sysrq-trigger',
  '/proc/irq',
  '/proc/bus',
  '/proc/fs',
]

/**
 * bubblewrap's argument list for one command under `policy`. Mounts apply
 * in order, a later one over an earlier one, which is what the order below
 * relies on:
 *
 * 1. the whole root read-only, then a minimal `/dev`, a fresh `/proc` (of
 *    the command's own PID namespace) with its `sys` read-only, and the
 *    private scratch folders (`/tmp`, `/run`) as empty ones of its own;
 * 2. each writable root bound read-write over that, by the descriptor
 *    the runtime held it with (`heldAt`: the child's descriptor for each
 *    root), so a workspace under `/tmp` is the real one and a path swapped
 *    after the check binds nothing else;
 * 3. the folders between a writable root and a hidden path in it bound
 *    onto themselves, then the read-only paths inside the roots bound
 *    read-only over themselves, by the descriptors the runtime held them
 *    with (`pathsHeldAt`, which also holds the entries of the folders
 *    shown as copies);
 * 4. the hidden paths last, so a credential folder or Assent's data inside
 *    the workspace is hidden too; a hidden file outside them is already
 *    empty in its folder's copy, made before the writable roots.
 *
 * Then the seccomp filter, read from descriptor 3 (seccomp-filter.ts: no
 * Unix-domain socket, no user namespace of its own), which whoever starts
 * bubblewrap must give it. */
export function bwrapArgs(
  policy: CommandSandboxPolicy,
  launch: SandboxedLaunch,
  heldAt: ReadonlyMap<string, number>,
  pathsHeldAt: ReadonlyMap<string, number> = new Map(),
): string[] {
  const args = [...BWRAP_ISOLATION_ARGS]
  if (!policy.network) args.push('--unshare-net')
  // The new /proc's `sys` read-only (the host's, bound over it: the same
  // kernel settings, none writable). Run by root, the command is uid 0 to
  // the kernel, and a sysctl takes its owner's write bit whatever the
  // capabilities: `kernel/core_pattern` names a program the kernel runs as
  // root, outside every namespace, at the next crash. bubblewrap covers
  // /proc/sys itself only where it finds it writable, which it does not
  // always (checked: a write reached the host's sysctl).
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc')
  args.push('--ro-bind', '/proc/sys', '/proc/sys')
  // The other files of the new /proc that act on the whole machine and
  // check only their owner's write bit, read-only for the same reason
  // (container runtimes keep the same ones read-only): `sysrq-trigger`
  // reboots the host or remounts every file system read-only, `irq`
  // moves the machine's interrupts, `bus` and `fs` reach devices and file
  // systems. Where a kernel has no such file, there is nothing to keep.
  for (const machineWide of PROC_MACHINE_WIDE) args.push('--ro-bind-try', machineWide, machineWide)
  for (const scratch of policy.privateScratch) args.push('--tmpfs', scratch)
  // Each folder holding a hidden file as a read-only copy of its own
  // (hidden-file-folders.ts), before the writable roots, which may lie
  // inside one and are bound over it.
  const shown = new Set<string>()
  for (const folder of policy.hiddenFileFolders) {
    args.push('--tmpfs', folder.path)
    for (const entry of folder.entries ?? []) {
      const at = `${folder.path === '/' ? '' : folder.path}/${entry.name}`
      shown.add(at)
      // Each entry by the descriptor that held it since it was looked at
      // (held-entries.ts), never by its path, which a bind would follow
      // to wherever a link put there since leads (a hidden key). Fails
      // closed: an entry not held is not shown.
      if (entry.as === 'bound') {
        const fd = pathsHeldAt.get(at)
        if (fd !== undefined) args.push('--ro-bind-fd', String(fd), at)
      } else if (entry.as === 'link') args.push('--symlink', entry.target, at)
      else if (entry.as === 'empty-file') args.push('--ro-bind', '/dev/null', at)
      else args.push('--dir', at)
    }
    args.push('--remount-ro', folder.path)
  }
  // Each writable root by the descriptor that held it since it was checked
  // (held-folders.ts), never by its path; one not held is not bound, and
  // bubblewrap's `--chdir` into it then fails the start.
  for (const root of policy.writableRoots) {
    const fd = heldAt.get(root)
    if (fd !== undefined) args.push('--bind-fd', String(fd), root)
  }
  // Each folder above a hidden path in a writable root onto itself, by
  // its held descriptor too, writable as it was: a mount point, which no
  // command can rename or remove to put a folder of its own at the hidden
  // path. Fails closed: one not held is bound read-only by its path, still
  // a mount point (the runtime refuses to start without it held anyway).
  for (const folder of policy.hiddenAncestors) {
    const fd = heldAt.get(folder)
    if (fd === undefined) args.push('--ro-bind', folder, folder)
    else args.push('--bind-fd', String(fd), folder)
  }
  // Each by the descriptor that held it since the runtime looked (held-entries.ts),
  // never by a path a bind would follow to wherever a link put there since
  // leads. Fails closed: one not held is bound read-only by its path (the
  // runtime refuses to start without it held anyway).
  for (const inside of policy.readOnlyInside) {
    const fd = pathsHeldAt.get(inside)
    if (fd === undefined) args.push('--ro-bind', inside, inside)
    else args.push('--ro-bind-fd', String(fd), inside)
  }
  for (const hidden of policy.hidden) {
    // Already empty in its folder's copy, or in a folder hidden whole.
    if (shown.has(hidden.path) || hiddenWhole(policy, hidden.path)) continue
    if (hidden.kind === 'folder') args.push('--tmpfs', hidden.path, '--remount-ro', hidden.path)
    else args.push('--ro-bind', '/dev/null', hidden.path)
  }
  // The filter (seccomp-filter.ts) the launcher writes to this descriptor.
  args.push('--seccomp', String(SECCOMP_FD))
  args.push('--clearenv')
  for (const [name, value] of Object.entries(launch.env)) args.push('--setenv', name, value)
  args.push('--chdir', launch.cwd, '--', ...launch.argv)
  return args
}

/** Whether `hidden` is in a folder holding hidden files that is hidden
 *  whole (one that could not be listed, or too large to copy). */
function hiddenWhole(policy: CommandSandboxPolicy, hidden: string): boolean {
  return policy.hiddenFileFolders.some(
    (folder) => folder.entries === null && hidden.startsWith(`${folder.path}/`),
  )
}

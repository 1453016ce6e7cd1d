import { closeSync, openSync, readdirSync, readSync } from 'node:fs'

/** What one of a child's descriptors is given: a new pipe, nothing, or a
 *  descriptor of this process. */
export type StdioEntry = 'pipe' | 'ignore' | number

/** `O_CLOEXEC` as `/proc/<pid>/fdinfo` prints a descriptor's flags (octal). */
const O_CLOEXEC = 0o2000000

/** Enough of a descriptor's fdinfo for its first lines (`pos:`, `flags:`). */
const FDINFO_HEAD_BYTES = 256

/**
 * The descriptors from `from` up that a child of this process would be
 * given as they are: those without close-on-exec. Node, libuv and SQLite
 * open everything close-on-exec, and Node marks a few low inherited ones
 * so as it starts; what is left is what started the runtime
 * left open (a shell's `exec 30>>~/.bashrc`, a supervisor's pipe, a socket),
 * and `spawn` passes it on, whatever the child's sandbox. Linux says which
 * are close-on-exec (`/proc/self/fdinfo`); elsewhere (macOS) every open
 * descriptor counts. Windows passes a child only the handles it is given
 * (libuv makes none inheritable), so there are none. Throws when the list
 * cannot be read, so the caller does not start a child it cannot say this
 * of.
 */
export function inheritedDescriptors(from: number): number[] {
  if (process.platform === 'win32') return []
  const linux = process.platform === 'linux'
  const found: number[] = []
  for (const entry of readdirSync(linux ? '/proc/self/fd' : '/dev/fd')) {
    const fd = Number(entry)
    if (!Number.isSafeInteger(fd) || fd < from) continue
    if (!linux) {
      found.push(fd)
      continue
    }
    const info = descriptorInfo(fd)
    // The listing's own descriptor, closed once it was read.
    if (info === null) continue
    // Whole lines only: a `flags:` line cut by the read's end is no answer.
    const flags = /^flags:\s*([0-7]+)\n/m.exec(info)
    if (flags === null) throw new Error(`no flags for descriptor ${fd} in /proc/self/fdinfo`)
    if ((parseInt(flags[1]!, 8) & O_CLOEXEC) === 0) found.push(fd)
  }
  return found.sort((a, b) => a - b)
}

const infoBuffer = Buffer.alloc(FDINFO_HEAD_BYTES)

/** The start of `/proc/self/fdinfo/<fd>`, where `pos:` and `flags:` are
 *  its first two lines, in one read into one buffer (every contained
 *  command's start reads one per open descriptor); null when the
 *  descriptor is gone. */
function descriptorInfo(fd: number): string | null {
  let info: number
  try {
    info = openSync(`/proc/self/fdinfo/${fd}`, 'r')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
  try {
    const length = readSync(info, infoBuffer, 0, infoBuffer.length, 0)
    return infoBuffer.toString('latin1', 0, length)
  } finally {
    closeSync(info)
  }
}

/**
 * `stdio` for a child that must get no descriptor but its own (a contained
 * command; an external agent, whose commands run in its sandbox): `base`
 * for its first descriptors, and every other descriptor it would be given
 * (`inherited`) replaced by `nullFd` (open on /dev/null), so none of them
 * reaches past a sandbox: a file already open for writing is written
 * through its descriptor whatever the mounts say, and a pipe or socket
 * leads to a process outside. The rest stay unset, closed as it starts.
 */
export function stdioWithout(
  base: readonly StdioEntry[],
  inherited: readonly number[],
  nullFd: number,
): StdioEntry[] {
  const stdio: StdioEntry[] = [...base]
  for (const fd of inherited) {
    if (fd < base.length) continue
    while (stdio.length < fd) stdio.push('ignore')
    stdio[fd] = nullFd
  }
  return stdio
}

/**
 * `spawn`'s `stdio` for a child that gets `base` and nothing else this
 * process holds, and a way to close what it opened for it once spawned.
 */
export function onlyTheseDescriptors(base: readonly StdioEntry[]): {
  stdio: StdioEntry[]
  close: () => void
} {
  const inherited = inheritedDescriptors(base.length)
  if (inherited.length === 0) return { stdio: [...base], close: () => undefined }
  const nullFd = openSync('/dev/null', 'r')
  return { stdio: stdioWithout(base, inherited, nullFd), close: () => closeSync(nullFd) }
}

/**
 * The seccomp filter bubblewrap installs on every sandboxed command
 * (`--seccomp 3`), as the classic BPF program the kernel takes: a command
 * makes sockets of three families only, IPv4, IPv6 and netlink (what
 * programs use to reach a network, and to read their own network
 * namespace's addresses), and never a Unix-domain one.
 *
 * Why: its own network namespace keeps a command off every network and
 * every abstract socket, but a socket bound to a path is reached through
 * the file system, and a read-only mount does not stop a `connect` (the
 * kernel exempts sockets from it). Outside the private `/tmp` and `/run`,
 * such sockets stand wherever daemons put them: LXD's under /var/snap
 * (root on the host to its group), a password manager's SSH agent in the
 * home folder, a container engine a person started. A connected socket
 * pair (`socketpair`, how programs talk to their own children) is a
 * separate call and stays allowed; a datagram pair, which can send to any
 * path, does not.
 *
 * Every other family is refused (EAFNOSUPPORT, "not on this machine"), not
 * only Unix's: a network namespace does not separate them all. AF_VSOCK
 * reaches the hypervisor's host from a virtual machine (Firecracker, WSL2,
 * Kata, Lima) with the namespace's network gone (checked: a contained
 * command bound a vsock port the host then could not); others (Bluetooth,
 * the kernel's crypto sockets, RDS, TIPC) are kernel code no command an
 * agent runs needs, and where exploits were found. A list of what is
 * allowed, not of what is refused, so a family no one thought of is
 * refused too.
 *
 * io_uring is refused too: it makes sockets and connects them without the
 * calls the filter reads. So are the kernel's keyrings (`add_key`,
 * `request_key`, `keyctl`), which no namespace separates: the person's
 * user keyring (a Kerberos ticket cache, a file system's key) is the
 * command's otherwise, as container runtimes' default filters say too.
 * And three calls no command an agent runs needs, each a kernel interface
 * that exploits lean on, which Docker's default filter refuses as well:
 * `bpf` (programs the kernel verifies and compiles), `userfaultfd` (it lets
 * a process pause the kernel mid-copy, the usual way to win a kernel race)
 * and `perf_event_open` (the kernel's counters, and its addresses through
 * them).
 *
 * No user namespace of the command's own (`unshare` or `clone` with
 * CLONE_NEWUSER): in one it holds every capability over what it then
 * creates, and the kernel code those capabilities reach (netfilter, new
 * mounts, the other namespaces) is where most local privilege escalations
 * of recent years were found. The mounts it was given stay locked
 * read-only there (command-sandbox-kernel.test.ts), so this is not what
 * keeps them; it keeps the kernel surface a contained command can reach
 * to what an unprivileged process has, as Flatpak's filter does. `clone3`
 * passes its flags in memory the filter cannot read, so it answers
 * ENOSYS, the answer of a kernel older than the call: C libraries then
 * make the same thread or process with `clone`, whose flags it reads.
 *
 * No file made setuid or setgid: `chmod u+s`, `install -m 4755`, an
 * `open` that creates a file with those bits, `mknod` of a regular file
 * with them. The bits stay on the file in the workspace on the host, where
 * the sandbox is gone: a program the command made, setuid to the person
 * (or to root, when Assent runs as root, since the command is then uid 0
 * without capabilities, and a file's owner may set its own file's bits),
 * gives their rights to every other local user who can run it. The call is
 * refused (EPERM); the same file with any other mode is made. `openat2`
 * passes its mode in memory the filter cannot read, so it answers ENOSYS,
 * as `clone3` does: C libraries use `openat`.
 *
 * A foreign system-call ABI (32-bit calls on
 * x86-64, whose `socketcall` hides the family, and the x32 ABI) ends the
 * process: the filter cannot read those calls, so it does not let them by.
 *
 * Only the machines Assent's sandbox is built for have a filter; on any
 * other the sandbox is unavailable (sandbox-probe.ts), never run without.
 */

/** `struct seccomp_data`: where the call's number, its ABI and its
 *  arguments' low 32 bits (little-endian) are. */
const NR_OFFSET = 0
const ARCH_OFFSET = 4
const FIRST_ARGUMENT_OFFSET = 16
const SECOND_ARGUMENT_OFFSET = 24
/** Where argument `index` (from 0) is, its low 32 bits. */
const argumentOffset = (index: number): number => FIRST_ARGUMENT_OFFSET + 8 * index

const BPF_LD_W_ABS = 0x20
const BPF_JMP_JEQ_K = 0x15
const BPF_JMP_JGE_K = 0x35
const BPF_RET_K = 0x06

const SECCOMP_RET_KILL_PROCESS = 0x80000000
const SECCOMP_RET_ERRNO = 0x00050000
const SECCOMP_RET_ALLOW = 0x7fff0000
const BPF_JMP_JSET_K = 0x45
const BPF_ALU_AND_K = 0x54

const EACCES = 13
const EPERM = 1
const ENOSYS = 38
const EAFNOSUPPORT = 97
const AF_UNIX = 1
/** A socket's type, without its flags; the two types a pair may have. */
const SOCK_TYPE_MASK = 0xf
const SOCK_STREAM = 1
const SOCK_SEQPACKET = 5
/** The socket families a command may make: IPv4, IPv6, netlink. */
const ALLOWED_FAMILIES: readonly number[] = [2, 10, 16]
const CLONE_NEWUSER = 0x10000000
/** S_ISUID | S_ISGID. */
const SET_ID_BITS = 0o6000
/** O_CREAT | __O_TMPFILE: an `open` that may make a file, and so give it
 *  a mode (the same on both machines). */
const OPEN_MAKES = 0o100 | 0o20000000

/** A call that gives a file its mode bits: which argument the mode is, and
 *  for an `open`, which argument its flags are (the mode counts only with
 *  O_CREAT or O_TMPFILE among them: without, it is whatever a register
 *  held). */
interface ModeCall {
  nr: number
  mode: number
  flags?: number
}

export interface Abi {
  /** `AUDIT_ARCH_*` of the native ABI. */
  arch: number
  socket: number
  socketpair: number
  /** Calls that make a process or namespace, their flags first; clone3,
   *  whose flags are in memory. */
  clone: number
  unshare: number
  clone3: number
  /** chmod, fchmod, fchmodat, fchmodat2, creat, open, openat, mknod,
   *  mknodat, as far as the machine has them. */
  modes: readonly ModeCall[]
  /** openat2, whose mode is in memory. */
  openat2: number
  /** Calls refused whatever their arguments: io_uring_setup, add_key,
   *  request_key, keyctl, bpf, userfaultfd, perf_event_open. */
  refused: readonly number[]
  /** Call numbers at or above this belong to another ABI on the same
   *  arch value (x32 on x86-64). */
  foreignFrom?: number
}

/** By Node's `process.arch`. */
export const ABIS: Readonly<Record<string, Abi>> = Object.freeze({
  x64: {
    arch: 0xc000003e,
    socket: 41,
    socketpair: 53,
    clone: 56,
    unshare: 272,
    clone3: 435,
    modes: [
      ...[
        { nr: 90, mode: 1 },
        { nr: 91, mode: 1 },
        { nr: 268, mode: 2 },
        { nr: 452, mode: 2 },
      ],
      ...[
        { nr: 85, mode: 1 },
        { nr: 2, flags: 1, mode: 2 },
        { nr: 257, flags: 2, mode: 3 },
      ],
      ...[
        { nr: 133, mode: 1 },
        { nr: 259, mode: 2 },
      ],
    ],
    openat2: 437,
    refused: [425, 248, 249, 250, 321, 323, 298],
    foreignFrom: 0x40000000,
  },
  arm64: {
    arch: 0xc00000b7,
    socket: 198,
    socketpair: 199,
    clone: 220,
    unshare: 97,
    clone3: 435,
    modes: [
      ...[
        { nr: 52, mode: 1 },
        { nr: 53, mode: 2 },
        { nr: 452, mode: 2 },
      ],
      ...[
        { nr: 56, flags: 2, mode: 3 },
        { nr: 33, mode: 2 },
      ],
    ],
    openat2: 437,
    refused: [425, 217, 218, 219, 280, 282, 241],
  },
})

type Instruction = readonly [code: number, jt: number, jf: number, k: number]

/**
 * `socket`, after the test for its number (which skips this block):
 * its family read, each allowed one jumps past the refusals to the allow
 * that follows the block; a Unix-domain socket is refused as "no access"
 * (a program then says it could not reach the daemon), any other family
 * as "not on this machine". Its first entry stands for the test of the
 * call's number, which is per machine, so the block's length is the
 * test's skip.
 */
/** The socketpair block's length (below, in `sandboxSeccompFilter`). */
const PAIR_CHECK_LENGTH = 9

const SOCKET_CHECK: readonly Instruction[] = [
  [BPF_JMP_JEQ_K, 0, 0, 0],
  [BPF_LD_W_ABS, 0, 0, FIRST_ARGUMENT_OFFSET],
  ...ALLOWED_FAMILIES.map((family, i): Instruction => [
    BPF_JMP_JEQ_K,
    ALLOWED_FAMILIES.length - i + 2,
    0,
    family,
  ]),
  [BPF_JMP_JEQ_K, 0, 1, AF_UNIX],
  [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EACCES],
  [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EAFNOSUPPORT],
]

/**
 * One call that gives a file its mode: past its number's test when it is
 * another call; refused when the mode holds the setuid or setgid bit (for
 * an `open`, only one that may make a file). Every way out that does not
 * refuse loads the call's number again, so the tests after it read it as
 * before.
 */
function modeCheck(call: ModeCall): Instruction[] {
  const flagTest: Instruction[] =
    call.flags === undefined
      ? []
      : [
          [BPF_LD_W_ABS, 0, 0, argumentOffset(call.flags)],
          // Makes no file: on to the number's reload.
          [BPF_JMP_JSET_K, 0, 3, OPEN_MAKES],
        ]
  const block: Instruction[] = [
    ...flagTest,
    [BPF_LD_W_ABS, 0, 0, argumentOffset(call.mode)],
    [BPF_JMP_JSET_K, 0, 1, SET_ID_BITS],
    [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM],
    [BPF_LD_W_ABS, 0, 0, NR_OFFSET],
  ]
  return [[BPF_JMP_JEQ_K, 0, block.length, call.nr], ...block]
}

/** The filter for `arch` (Node's `process.arch`), as the bytes of its
 *  `struct sock_filter` array; null where Assent has none. */
export function sandboxSeccompFilter(arch: string = process.arch): Buffer | null {
  const abi = ABIS[arch]
  if (abi === undefined) return null
  const program: Instruction[] = [
    [BPF_LD_W_ABS, 0, 0, ARCH_OFFSET],
    [BPF_JMP_JEQ_K, 1, 0, abi.arch],
    [BPF_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS],
    [BPF_LD_W_ABS, 0, 0, NR_OFFSET],
    ...(abi.foreignFrom === undefined
      ? []
      : ([
          [BPF_JMP_JGE_K, 0, 1, abi.foreignFrom],
          [BPF_RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS],
        ] as const)),
    ...abi.refused.flatMap(
      (nr) =>
        [
          [BPF_JMP_JEQ_K, 0, 1, nr],
          [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM],
        ] as const,
    ),
    [BPF_JMP_JEQ_K, 0, 1, abi.clone3],
    [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS],
    [BPF_JMP_JEQ_K, 0, 1, abi.openat2],
    [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS],
    ...abi.modes.flatMap(modeCheck),
    // clone or unshare: refused only with CLONE_NEWUSER among the flags
    // (the flags' low 32 bits, where it is), so threads and processes
    // are made as before.
    [BPF_JMP_JEQ_K, 1, 0, abi.clone],
    [BPF_JMP_JEQ_K, 0, 3, abi.unshare],
    [BPF_LD_W_ABS, 0, 0, FIRST_ARGUMENT_OFFSET],
    [BPF_JMP_JSET_K, 0, 1 + PAIR_CHECK_LENGTH + SOCKET_CHECK.length, CLONE_NEWUSER],
    [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM],
    // socketpair: Unix-domain only (of any other family the kernel's own
    // code for it would run), and connected ones only: a stream or a
    // sequenced-packet pair talks to nobody but its other end (a
    // `connect` on it fails, a `sendto` ignores the address). A datagram
    // pair's socket is an ordinary unconnected datagram socket: `sendto`
    // with a path reaches any datagram socket bound where the command can
    // see, and hands it descriptors. The type's low four bits are the
    // type; the rest are SOCK_NONBLOCK and SOCK_CLOEXEC.
    [BPF_JMP_JEQ_K, 0, PAIR_CHECK_LENGTH - 1, abi.socketpair],
    [BPF_LD_W_ABS, 0, 0, FIRST_ARGUMENT_OFFSET],
    [BPF_JMP_JEQ_K, 0, 5, AF_UNIX],
    [BPF_LD_W_ABS, 0, 0, SECOND_ARGUMENT_OFFSET],
    [BPF_ALU_AND_K, 0, 0, SOCK_TYPE_MASK],
    [BPF_JMP_JEQ_K, PAIR_CHECK_LENGTH - 6 + SOCKET_CHECK.length, 0, SOCK_STREAM],
    [BPF_JMP_JEQ_K, PAIR_CHECK_LENGTH - 7 + SOCKET_CHECK.length, 0, SOCK_SEQPACKET],
    [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EACCES],
    [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EAFNOSUPPORT],
    [BPF_JMP_JEQ_K, 0, SOCKET_CHECK.length - 1, abi.socket],
    ...SOCKET_CHECK.slice(1),
    [BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW],
  ]
  // struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }, in the
  // machine's byte order (little-endian on both).
  const bytes = Buffer.alloc(program.length * 8)
  program.forEach(([code, jt, jf, k], i) => {
    bytes.writeUInt16LE(code, i * 8)
    bytes.writeUInt8(jt, i * 8 + 2)
    bytes.writeUInt8(jf, i * 8 + 3)
    bytes.writeUInt32LE(k, i * 8 + 4)
  })
  return bytes
}

/** The file descriptor bubblewrap reads the filter from. */
export const SECCOMP_FD = 3

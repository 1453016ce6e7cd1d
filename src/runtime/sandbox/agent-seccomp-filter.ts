import { ABIS } from './seccomp-filter.ts'

/**
 * The seccomp filter a contained external agent runs under (bubblewrap's
 * `--seccomp`): no Unix-domain socket it could connect anywhere. The
 * agent shares the runtime's network namespace, since it must reach its
 * model, and with it every socket in the abstract namespace (an X
 * server's, `@/tmp/.X11-unix/X0`, which takes keystrokes into the
 * person's desktop; a session bus listening there); and a socket bound
 * to a path is reached through the file system whatever a read-only
 * mount says (a password manager's SSH agent in the home folder, a
 * container engine's under /run, root on the host to its group).
 * Refused as "no access", as a command's are (seccomp-filter.ts). A
 * connected pair (`socketpair`, how the agent talks to its own children)
 * stays allowed; a datagram pair, which can send to any path, does not.
 *
 * Nor io_uring, which makes and connects sockets without the calls the
 * filter reads; nor the kernel's keyrings (`add_key`, `request_key`,
 * `keyctl`): the agent inherits the runtime's session keyring, and read a
 * key the runtime's session held (a Kerberos ticket cache keeps one
 * there). Each refused as "not permitted".
 *
 * Nothing else a command's filter refuses: the agent's own sandbox makes
 * user namespaces (Codex's bubblewrap) and the agent runs what it runs
 * there as it did. A foreign system-call ABI ends the process, since the
 * filter cannot read its calls (32-bit `socketcall` hides the family).
 */

const BPF_LD_W_ABS = 0x20
const BPF_JMP_JEQ_K = 0x15
const BPF_JMP_JGE_K = 0x35
const BPF_ALU_AND_K = 0x54
const BPF_RET_K = 0x06
const SECCOMP_RET_KILL_PROCESS = 0x80000000
const SECCOMP_RET_ERRNO = 0x00050000
const SECCOMP_RET_ALLOW = 0x7fff0000
const EACCES = 13
const AF_UNIX = 1
const SOCK_TYPE_MASK = 0xf
const SOCK_STREAM = 1
const SOCK_SEQPACKET = 5
const NR_OFFSET = 0
const ARCH_OFFSET = 4
const FIRST_ARGUMENT_OFFSET = 16
const SECOND_ARGUMENT_OFFSET = 24

const EPERM = 1

/** io_uring_setup, add_key, request_key, keyctl, by Node's `process.arch`. */
const REFUSED: Readonly<Record<string, readonly number[]>> = Object.freeze({
  x64: [425, 248, 249, 250],
  arm64: [425, 217, 218, 219],
})

type Instruction = readonly [code: number, jt: number, jf: number, k: number]

/** The filter for `arch` (Node's `process.arch`), as the bytes of its
 *  `struct sock_filter` array; null where Assent has none. */
export function agentSeccompFilter(arch: string = process.arch): Buffer | null {
  const abi = ABIS[arch]
  const refused = REFUSED[arch]
  if (abi === undefined || refused === undefined) return null
  const refuse: Instruction = [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EACCES]
  const allow: Instruction = [BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW]
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
    ...refused.flatMap(
      (nr) =>
        [
          [BPF_JMP_JEQ_K, 0, 1, nr],
          [BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM],
        ] as const,
    ),
    // socket: a Unix-domain one refused, any other family allowed.
    [BPF_JMP_JEQ_K, 0, 4, abi.socket],
    [BPF_LD_W_ABS, 0, 0, FIRST_ARGUMENT_OFFSET],
    [BPF_JMP_JEQ_K, 0, 1, AF_UNIX],
    refuse,
    allow,
    // socketpair: a Unix-domain stream or sequenced-packet pair allowed,
    // a datagram one refused; other families as the kernel answers. Its
    // last line also allows every call neither block is about.
    [BPF_JMP_JEQ_K, 0, 7, abi.socketpair],
    [BPF_LD_W_ABS, 0, 0, FIRST_ARGUMENT_OFFSET],
    [BPF_JMP_JEQ_K, 0, 5, AF_UNIX],
    [BPF_LD_W_ABS, 0, 0, SECOND_ARGUMENT_OFFSET],
    [BPF_ALU_AND_K, 0, 0, SOCK_TYPE_MASK],
    [BPF_JMP_JEQ_K, 2, 0, SOCK_STREAM],
    [BPF_JMP_JEQ_K, 1, 0, SOCK_SEQPACKET],
    refuse,
    allow,
  ]
  const bytes = Buffer.alloc(program.length * 8)
  program.forEach(([code, jt, jf, k], i) => {
    bytes.writeUInt16LE(code, i * 8)
    bytes.writeUInt8(jt, i * 8 + 2)
    bytes.writeUInt8(jf, i * 8 + 3)
    bytes.writeUInt32LE(k, i * 8 + 4)
  })
  return bytes
}

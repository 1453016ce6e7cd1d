import { describe, expect, it } from 'vitest'
import { sandboxSeccompFilter } from './seccomp-filter.ts'

// The filter's decisions, read by a small interpreter of the classic BPF
// the kernel runs (the six instructions the filter uses; any other fails
// the test), for each machine it is built for: arm64's cannot run here.
// The x64 filter also runs in a real bubblewrap in command-sandbox.test.ts.

const KILL = 'kill'
const ALLOW = 'allow'

function decide(
  filter: Buffer,
  call: {
    arch: number
    nr: number
    first?: number
    second?: number
    third?: number
    fourth?: number
  },
): string {
  const data = Buffer.alloc(64)
  data.writeUInt32LE(call.nr, 0)
  data.writeUInt32LE(call.arch, 4)
  data.writeUInt32LE(call.first ?? 0, 16)
  data.writeUInt32LE(call.second ?? 0, 24)
  data.writeUInt32LE(call.third ?? 0, 32)
  data.writeUInt32LE(call.fourth ?? 0, 40)
  let accumulator = 0
  for (let pc = 0; pc < filter.length / 8; pc += 1) {
    const code = filter.readUInt16LE(pc * 8)
    const jt = filter.readUInt8(pc * 8 + 2)
    const jf = filter.readUInt8(pc * 8 + 3)
    const k = filter.readUInt32LE(pc * 8 + 4)
    if (code === 0x20) accumulator = data.readUInt32LE(k)
    else if (code === 0x15) pc += accumulator === k ? jt : jf
    else if (code === 0x35) pc += accumulator >= k ? jt : jf
    else if (code === 0x45) pc += (accumulator & k) !== 0 ? jt : jf
    else if (code === 0x54) accumulator = (accumulator & k) >>> 0
    else if (code === 0x06) {
      if (k === 0x80000000) return KILL
      if (k === 0x7fff0000) return ALLOW
      if ((k & 0xffff0000) === 0x00050000) return `errno ${k & 0xffff}`
      throw new Error(`unknown return ${k.toString(16)}`)
    } else throw new Error(`unknown instruction ${code.toString(16)}`)
  }
  throw new Error('the program ran off its end')
}

const MACHINES = [
  // [process.arch, AUDIT_ARCH, socket, io_uring_setup, socketpair, openat,
  //  keyctl, clone, unshare, clone3]
  ['x64', 0xc000003e, 41, 425, 53, 257, 250, 56, 272, 435],
  ['arm64', 0xc00000b7, 198, 425, 199, 56, 219, 220, 97, 435],
] as const

// bpf, userfaultfd and perf_event_open, by machine.
const EXPLOIT_AIDS = {
  x64: { bpf: 321, uffd: 323, perf: 298 },
  arm64: { bpf: 280, uffd: 282, perf: 241 },
} as const

// CLONE_NEWUSER, and the flags glibc's pthread_create and fork pass.
const NEWUSER = 0x10000000
const THREAD_FLAGS = 0x003d0f00
const FORK_FLAGS = 0x01200011

describe.each(MACHINES)(
  'the seccomp filter on %s',
  (arch, audit, socket, ioUring, pair, openat, keyctl, clone, unshare, clone3) => {
    const filter = sandboxSeccompFilter(arch)
    const { bpf, uffd, perf } = EXPLOIT_AIDS[arch]
    if (filter === null) throw new Error(`no filter for ${arch}`)

    it.each([
      ['a Unix-domain socket', { nr: socket, first: 1 }, 'errno 13'],
      [
        'an IPv4 socket (the network namespace has only its own loopback)',
        { nr: socket, first: 2 },
        ALLOW,
      ],
      ['an IPv6 socket', { nr: socket, first: 10 }, ALLOW],
      ['a netlink socket (its own addresses)', { nr: socket, first: 16 }, ALLOW],
      ["a vsock socket, to a virtual machine's host", { nr: socket, first: 40 }, 'errno 97'],
      ['a packet socket', { nr: socket, first: 17 }, 'errno 97'],
      ["the kernel's crypto sockets", { nr: socket, first: 38 }, 'errno 97'],
      ['a family past any known', { nr: socket, first: 0xffff }, 'errno 97'],
      ['no family (0)', { nr: socket, first: 0 }, 'errno 97'],
      ['a stream socket pair, to its own children', { nr: pair, first: 1, second: 1 }, ALLOW],
      [
        'a stream socket pair made non-blocking and closed on exec',
        { nr: pair, first: 1, second: 1 | 0x800 | 0x80000 },
        ALLOW,
      ],
      ['a sequenced-packet socket pair', { nr: pair, first: 1, second: 5 }, ALLOW],
      [
        'a datagram socket pair, whose sockets send to any path',
        { nr: pair, first: 1, second: 2 },
        'errno 13',
      ],
      [
        'a datagram socket pair made non-blocking',
        { nr: pair, first: 1, second: 2 | 0x800 },
        'errno 13',
      ],
      ['a raw Unix socket pair', { nr: pair, first: 1, second: 3 }, 'errno 13'],
      ['a socket pair of no type', { nr: pair, first: 1, second: 0 }, 'errno 13'],
      ['a socket pair of vsock sockets', { nr: pair, first: 40, second: 1 }, 'errno 97'],
      ['a socket pair of packet sockets', { nr: pair, first: 17, second: 1 }, 'errno 97'],
      ['io_uring, which connects without the calls the filter reads', { nr: ioUring }, 'errno 1'],
      ["the kernel's keyrings, which no namespace separates: keyctl", { nr: keyctl }, 'errno 1'],
      ['add_key', { nr: keyctl - 2 }, 'errno 1'],
      ['request_key', { nr: keyctl - 1 }, 'errno 1'],
      ["bpf, the kernel's verified programs", { nr: bpf }, 'errno 1'],
      ['userfaultfd, which pauses the kernel mid-copy', { nr: uffd }, 'errno 1'],
      ["perf_event_open, the kernel's counters", { nr: perf }, 'errno 1'],
      ['a user namespace of its own: unshare', { nr: unshare, first: NEWUSER }, 'errno 1'],
      [
        'unshare with other namespaces beside it',
        { nr: unshare, first: NEWUSER | 0x00020000 },
        'errno 1',
      ],
      ['clone into a new user namespace', { nr: clone, first: NEWUSER | 17 }, 'errno 1'],
      ['clone of a thread', { nr: clone, first: THREAD_FLAGS }, ALLOW],
      ['clone of a process (fork)', { nr: clone, first: FORK_FLAGS }, ALLOW],
      [
        'unshare of what needs no capability (its files, its folder)',
        { nr: unshare, first: 0x00000600 },
        ALLOW,
      ],
      [
        'clone3, whose flags it cannot read: "not here", so libc uses clone',
        { nr: clone3, first: 0 },
        'errno 38',
      ],
      ['any other call', { nr: openat }, ALLOW],
    ])('%s: %s', (_what, call, expected) => {
      expect(decide(filter, { arch: audit, ...call })).toBe(expected)
    })

    it('ends a process making calls of another ABI, which it cannot read', () => {
      // i386 on x64 (its socketcall hides the family), and any foreign arch.
      expect(decide(filter, { arch: 0x40000003, nr: 102, first: 1 })).toBe(KILL)
      expect(decide(filter, { arch: (audit ^ 1) >>> 0, nr: socket, first: 1 })).toBe(KILL)
    })
  },
)

// Each call that gives a file its mode, by machine: its number, which
// argument its mode is (1 = the second), and for an open which its flags
// are. arm64 has only the *at calls.
type ModeCallRow = readonly [name: string, nr: number, mode: number, flags?: number]
const MODE_CALLS: Readonly<Record<'x64' | 'arm64', readonly ModeCallRow[]>> = {
  x64: [
    ['chmod', 90, 1],
    ['fchmod', 91, 1],
    ['fchmodat', 268, 2],
    ['fchmodat2', 452, 2],
    ['creat', 85, 1],
    ['mknod', 133, 1],
    ['mknodat', 259, 2],
    ['open', 2, 2, 1],
    ['openat', 257, 3, 2],
  ],
  arm64: [
    ['fchmod', 52, 1],
    ['fchmodat', 53, 2],
    ['fchmodat2', 452, 2],
    ['mknodat', 33, 2],
    ['openat', 56, 3, 2],
  ],
}
const AUDIT = { x64: 0xc000003e, arm64: 0xc00000b7 } as const
const ARGUMENT_NAMES = ['first', 'second', 'third', 'fourth'] as const
const O_CREAT_WRONLY = 0o101
const O_TMPFILE_RDWR = 0o20200002

describe.each(['x64', 'arm64'] as const)('the seccomp filter on %s and file modes', (arch) => {
  const filter = sandboxSeccompFilter(arch)
  if (filter === null) throw new Error(`no filter for ${arch}`)
  const call = (row: ModeCallRow, mode: number, flags: number) => {
    const [, nr, modeAt, flagsAt] = row
    const args: Record<string, number> = { [ARGUMENT_NAMES[modeAt] ?? '']: mode }
    if (flagsAt !== undefined) args[ARGUMENT_NAMES[flagsAt] ?? ''] = flags
    return decide(filter, { arch: AUDIT[arch], nr, ...args })
  }

  const rows = (list: readonly ModeCallRow[]) => list.map((row) => [row[0], row] as const)

  it.each(rows(MODE_CALLS[arch]))(
    '%s: refuses the setuid or setgid bit, and gives any other mode',
    (_name, row) => {
      const makes = row[3] === undefined ? 0 : O_CREAT_WRONLY
      expect(call(row, 0o4755, makes)).toBe('errno 1')
      expect(call(row, 0o2755, makes)).toBe('errno 1')
      expect(call(row, 0o6000, makes)).toBe('errno 1')
      expect(call(row, 0o755, makes)).toBe(ALLOW)
      expect(call(row, 0o1777, makes)).toBe(ALLOW)
      expect(call(row, 0, makes)).toBe(ALLOW)
    },
  )

  it.each(rows(MODE_CALLS[arch].filter((row) => row[3] !== undefined)))(
    '%s: reads the mode only of an open that may make a file',
    (_name, row) => {
      // Without O_CREAT or O_TMPFILE the mode is whatever a register held.
      expect(call(row, 0o4755, 0)).toBe(ALLOW)
      expect(call(row, 0o4755, 0o2)).toBe(ALLOW)
      expect(call(row, 0o4755, O_TMPFILE_RDWR)).toBe('errno 1')
      expect(call(row, 0o644, O_TMPFILE_RDWR)).toBe(ALLOW)
    },
  )

  it('answers openat2, whose mode is in memory, as a kernel without it', () => {
    expect(decide(filter, { arch: AUDIT[arch], nr: 437 })).toBe('errno 38')
  })
})

describe('the seccomp filter elsewhere', () => {
  it("ends an x32 call on x64: the same arch value, another ABI's numbers", () => {
    const filter = sandboxSeccompFilter('x64')
    expect(filter).not.toBeNull()
    if (filter)
      expect(decide(filter, { arch: 0xc000003e, nr: 0x40000000 + 41, first: 1 })).toBe(KILL)
  })

  it('has none for a machine it was not built for', () => {
    expect(sandboxSeccompFilter('riscv64')).toBeNull()
    expect(sandboxSeccompFilter('ia32')).toBeNull()
  })
})

import { spawn, type ChildProcess } from 'node:child_process'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CommandSandbox } from '../src/runtime/sandbox/command-sandbox.ts'
import { sandboxedRun } from '../src/runtime/sandbox/test-support/sandboxed-run.ts'
import { varTmpFolder } from '../src/runtime/sandbox/test-support/var-tmp-folder.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'

// A contained command reaches no Unix socket of anyone else's
// (seccomp-filter.ts): socket(AF_UNIX) is refused, and of the socket pairs
// only connected ones are made. A datagram pair's socket is an ordinary
// unbound datagram socket: sendto() with a path reaches any datagram socket
// bound where the command can see, outside /tmp and /run (a read-only mount
// does not stop it), and can carry descriptors there. Here a daemon outside
// the sandbox listens on a datagram socket in a folder the command may only
// read.

const HAS_BWRAP = await bubblewrapRequired()

const scratch = varTmpFolder('assent-dgram-pair-')
let ws: string
let socketPath: string
let sandbox: CommandSandbox
let daemon: ChildProcess
let heard = ''

const perlDatagram = (body: string) => `use Socket; ${body}`

beforeAll(async () => {
  ws = path.join(scratch(), 'workspace')
  const outside = path.join(scratch(), 'outside')
  const home = path.join(scratch(), 'home')
  for (const dir of [ws, outside, home]) await mkdir(dir, { recursive: true })
  socketPath = path.join(outside, 'daemon.dgram')
  sandbox = new CommandSandbox({ home, env: { ...process.env, HOME: home }, assentPrivate: [] })
  // The daemon: prints each datagram it gets, until END.
  daemon = spawn('perl', [
    '-e',
    perlDatagram(
      `socket(my $s, AF_UNIX, SOCK_DGRAM, 0) or die "socket: $!"; ` +
        `bind($s, pack_sockaddr_un(${JSON.stringify(socketPath)})) or die "bind: $!"; ` +
        `$| = 1; print "READY\\n"; ` +
        `while (defined recv($s, my $m, 200, 0)) { print "GOT $m\\n"; last if $m eq "END" }`,
    ),
  ])
  await new Promise<void>((resolve, reject) => {
    daemon.once('exit', (code) =>
      reject(new Error(`the daemon ended (${code}) before it listened`)),
    )
    daemon.stdout?.on('data', (chunk: Buffer) => {
      heard += chunk.toString()
      if (heard.includes('READY')) resolve()
    })
  })
})

afterAll(() => {
  if (daemon.exitCode === null) daemon.kill()
})

const { sh } = sandboxedRun(() => ({ workspace: ws, sandbox }))

describe.runIf(HAS_BWRAP)('a Unix datagram socket of a daemon outside', () => {
  it('is not reached by a contained command through a datagram socket pair', async () => {
    const send = perlDatagram(
      `socketpair(my $a, my $b, AF_UNIX, SOCK_DGRAM, 0) or die "pair: $!\\n"; ` +
        `send($a, "FROM-SANDBOX", 0, pack_sockaddr_un(${JSON.stringify(socketPath)})) ` +
        `or die "send: $!\\n"; print "SENT\\n"`,
    )
    const result = await sh(`perl -e '${send}'`, 'workspace-write')
    // The end of the daemon's listening, sent from outside: it proves the
    // rig's daemon hears a datagram that is sent to it.
    const exited = new Promise((resolve) => daemon.once('exit', resolve))
    const end = spawn('perl', [
      '-e',
      perlDatagram(
        `socket(my $s, AF_UNIX, SOCK_DGRAM, 0) or die; ` +
          `send($s, "END", 0, pack_sockaddr_un(${JSON.stringify(socketPath)})) or die`,
      ),
    ])
    await new Promise((resolve) => end.once('exit', resolve))
    await exited
    expect(heard).toContain('GOT END')
    expect(result.output).not.toContain('SENT')
    expect(heard).not.toContain('FROM-SANDBOX')
  })
})

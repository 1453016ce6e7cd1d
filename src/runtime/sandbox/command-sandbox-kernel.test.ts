import { existsSync } from 'node:fs'
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SandboxMode } from '../../contracts/policy-axes.ts'
import { runCommandTool } from '../tools/run-command.ts'
import { CommandSandbox } from './command-sandbox.ts'
import { sandboxedRun } from './test-support/sandboxed-run.ts'
import { bubblewrapRequired } from '../../../tests/support/bubblewrap.ts'
import { varTmpFolder } from './test-support/var-tmp-folder.ts'
import {
  runWithDescriptorsLeftOpen,
  SECRET_ON_31,
  WRITTEN_THROUGH_30,
} from '../child-processes/test-support/left-open.ts'

// What the kernel would give a contained command beyond its mounts: root's
// capabilities, its settings, its keyrings, a socket bound to a path. Each
// runs in a real bubblewrap; CI runs them as root, where the first two
// matter most. The folders live under /var/tmp, not /tmp: the command's
// /tmp is its own, and a write outside must meet the read-only host.

const HAS_BWRAP = await bubblewrapRequired()

let base: string
let ws: string
let outside: string
let sandbox: CommandSandbox

const scratch = varTmpFolder('assent-sandbox-kernel-')

beforeAll(async () => {
  base = scratch()
  ws = path.join(base, 'workspace')
  outside = path.join(base, 'outside')
  const home = path.join(base, 'home')
  for (const dir of [path.join(ws, '.git'), outside, home]) await mkdir(dir, { recursive: true })
  await writeFile(path.join(ws, '.git', 'config'), '[core]\n')
  sandbox = new CommandSandbox({ home, env: { ...process.env, HOME: home }, assentPrivate: [] })
})

const { ctx, sh } = sandboxedRun(() => ({ workspace: ws, sandbox }))

describe.runIf(HAS_BWRAP)('what the kernel gives a command allowed under workspace-write', () => {
  // Run as root (a container, a CI job), bubblewrap keeps every capability
  // unless told otherwise: a command could remount the read-only root or
  // `.git` read-write and write through to the host.
  it('holds no capability, so it cannot make what is read-only writable again, even as root', async () => {
    const caps = await sh(
      "grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status",
      'workspace-write',
    )
    expect(caps.ok, caps.output).toBe(true)
    const values = [...caps.output.matchAll(/^Cap(\w+):\s*([0-9a-f]+)$/gm)]
    expect(values.map(([, name]) => name)).toEqual(['Inh', 'Prm', 'Eff', 'Bnd', 'Amb'])
    for (const [line, , value] of values) expect(BigInt(`0x${value}`), line).toBe(0n)

    const target = path.join(outside, 'remounted.txt')
    await sh(`mount -o remount,bind,rw / ; echo x > ${target}`, 'workspace-write')
    expect(existsSync(target)).toBe(false)
    await sh(
      'mount -o remount,bind,rw .git ; echo "[alias] x = !id" >> .git/config',
      'workspace-write',
    )
    expect(await readFile(path.join(ws, '.git', 'config'), 'utf8')).toBe('[core]\n')
    // Nor in a namespace of its own, where it would hold every capability:
    // it cannot make one (the next case), and the kernel would keep the
    // mounts it was given locked read-only there.
    const nested = path.join(outside, 'nested.txt')
    await sh(
      `unshare --user --map-root-user --mount sh -c 'mount -o remount,bind,rw / ; echo x > ${nested}'`,
      'workspace-write',
    )
    expect(existsSync(nested)).toBe(false)
  })

  // In a user namespace of its own a command holds every capability over
  // what it makes there, and reaches the kernel code behind them (the
  // firewall's tables, new mounts) where most local privilege escalations
  // were found. unshare(CLONE_NEWUSER) through perl's syscall, clone3 (whose
  // flags the filter cannot read) answered as a kernel without it would,
  // and the threads and processes a program makes, which must still work.
  it('cannot make a user namespace of its own, and still makes threads and processes', async () => {
    const numbers = { x64: { unshare: 272 }, arm64: { unshare: 97 } }
    const { unshare } = numbers[process.arch as 'x64' | 'arm64']
    const perl = (code: string) =>
      runCommandTool.run({ argv: ['perl', '-e', code] }, ctx('workspace-write'))
    const newUser = `my $r = syscall(${unshare}, 0x10000000); print $r < 0 ? "refused: " . ($! + 0) : "made"`
    expect((await perl(newUser)).output).toBe('refused: 1')
    const clone3 = `my $r = syscall(435, 0, 0); print $r < 0 ? "refused: " . ($! + 0) : "made"`
    expect((await perl(clone3)).output).toBe('refused: 38')
    // userfaultfd in user mode, which the kernel gives anyone
    // (UFFD_USER_MODE_ONLY), so only the filter refuses it.
    const userfaultfd = { x64: 323, arm64: 282 }[process.arch as 'x64' | 'arm64']
    const uffd = `my $r = syscall(${userfaultfd}, 1); print $r < 0 ? "refused: " . ($! + 0) : "made"`
    expect((await perl(uffd)).output).toBe('refused: 1')
    const uffdOutside = await runCommandTool.run(
      { argv: ['perl', '-e', uffd] },
      ctx('danger-full-access'),
    )
    // Outside, the kernel makes it (or, older than 5.11, refuses the flag
    // with EINVAL): the refusal inside is the filter's.
    expect(uffdOutside.output).not.toBe('refused: 1')
    const tool = await sh('unshare --user --map-root-user id -u', 'workspace-write')
    expect(tool.ok, tool.output).toBe(false)
    expect(tool.output).toContain('Operation not permitted')
    // The result tells the model why, so it does not retry blindly.
    expect(tool.code).toBe('sandbox_denied')
    expect(tool.output).toContain('nor make namespaces of its own')

    const made = await runCommandTool.run(
      {
        argv: [
          process.execPath,
          '-e',
          "const { Worker } = require('node:worker_threads'); " +
            "const child = require('node:child_process').spawnSync('sh', ['-c', 'echo PROCESS']); " +
            'new Worker(\'require("node:worker_threads").parentPort.postMessage(1)\', { eval: true })' +
            ".on('message', () => console.log(String(child.stdout).trim(), 'THREAD'))",
        ],
      },
      ctx('workspace-write'),
    )
    expect(made.output.trim()).toBe('PROCESS THREAD')
  })

  // A file's setuid or setgid bit stays on the host once the sandbox is
  // gone: a program the command made, setuid to the person (or to root,
  // run as root), would give their rights to any local user who runs it.
  // Every way to set the bits (chmod, install, an open or mknod that makes
  // the file with them) is refused; any other mode is set.
  it('cannot make a file setuid or setgid, and sets any other mode', async () => {
    const made = await sh(
      [
        'cp /bin/true ./plain; chmod 751 ./plain; mkdir sticky; chmod 1777 sticky',
        'cp /bin/true ./suid; chmod 4755 ./suid',
        'cp /bin/true ./sgid; chmod g+s ./sgid',
        'install -m 4755 /bin/true ./installed',
        `python3 -c "import os; os.close(os.open('opened', os.O_CREAT | os.O_WRONLY, 0o4755))"`,
        // Last, so its refusal is the command's exit status.
        `python3 -c "import os, stat; os.mknod('node', stat.S_IFREG | 0o6755)"`,
      ].join('; '),
      'workspace-write',
    )
    expect(made.ok, made.output).toBe(false)
    expect(made.output).toContain('Operation not permitted')
    expect(made.code).toBe('sandbox_denied')
    expect(made.output).toContain('nor make a file setuid or setgid')
    const modes: Record<string, string> = {}
    for (const name of ['suid', 'sgid', 'installed', 'opened', 'node', 'plain', 'sticky']) {
      const mode = existsSync(path.join(ws, name))
        ? ((await stat(path.join(ws, name))).mode & 0o7777).toString(8)
        : 'absent'
      modes[name] = mode
    }
    expect(modes).toMatchObject({ suid: '755', sgid: '755', plain: '751', sticky: '1777' })
    // install gives up on the mode it cannot set; the refused open and
    // mknod make nothing.
    expect(modes.installed).not.toMatch(/^[2467]\d{3}$/)
    expect(modes).toMatchObject({ opened: 'absent', node: 'absent' })
  })

  // A descriptor is a file already open: written through, it reaches the
  // file whatever the mounts say. What started the runtime may have left
  // some open without close-on-exec (a shell's `exec 30>>~/.bashrc`), and
  // spawn passes those on. The runtime here is a child that a shell started
  // with 30 open for appending outside and 31 open on a file outside.
  it('is not given the descriptors whatever started the runtime left open', async () => {
    const child = path.join(import.meta.dirname, 'test-support', 'inherited-descriptor-child.ts')
    const { stdout, appended } = await runWithDescriptorsLeftOpen(outside, child, [
      ws,
      path.join(base, 'home'),
    ])
    const { contained, full } = JSON.parse(stdout) as { contained: string; full: string }
    expect(contained).toContain('read: \n')
    expect(contained).not.toContain(SECRET_ON_31)
    // In full access nothing contains it, and both descriptors work.
    expect(full).toContain(`read: ${SECRET_ON_31}`)
    expect(await readFile(appended, 'utf8')).toBe(`${WRITTEN_THROUGH_30}\n`)
  })

  // The kernel's settings take their owner's write bit, and the command
  // is that owner when root started Assent: `kernel/core_pattern` names a
  // program the kernel runs as root outside every namespace. A harmless
  // setting stands for it here, put back if the sandbox ever lets it by.
  it('cannot change a kernel setting through /proc/sys', async () => {
    const setting = '/proc/sys/kernel/printk_ratelimit'
    const before = (await readFile(setting, 'utf8')).trim()
    const other = String(Number(before) + 1)
    try {
      const result = await sh(`echo ${other} > ${setting}`, 'workspace-write')
      expect(result.ok, result.output).toBe(false)
      expect((await readFile(setting, 'utf8')).trim()).toBe(before)
    } finally {
      if ((await readFile(setting, 'utf8')).trim() !== before) await writeFile(setting, before)
    }
  })

  // The kernel's keyrings are not namespaced: the person's user keyring
  // would be the command's. keyctl(KEYCTL_GET_KEYRING_ID, user keyring)
  // through perl's syscall, which Debian's base system has.
  // Run by root, the command is uid 0 to the kernel, and these files
  // check no capability: sysrq-trigger reboots the host. Each is a
  // read-only mount inside, where the kernel has it.
  it("holds /proc's files that act on the whole machine read-only", async () => {
    const mounts = await sh(
      "grep -E ' /proc/(sysrq-trigger|irq|bus|fs) ' /proc/self/mountinfo || true",
      'workspace-write',
    )
    const present = ['/proc/sysrq-trigger', '/proc/irq', '/proc/bus', '/proc/fs'].filter((file) =>
      existsSync(file),
    )
    // The last mount at a point is the one the command sees.
    const seen = new Map<string, boolean>()
    for (const line of mounts.output.trim().split('\n')) {
      const [, , , , point = '', options = ''] = line.split(' ')
      if (point !== '') seen.set(point, options.split(',').includes('ro'))
    }
    expect([...seen.keys()].sort()).toEqual([...present].sort())
    for (const [point, readOnly] of seen) expect(readOnly, point).toBe(true)
  })

  it("cannot reach the person's kernel keyring", async () => {
    const keyctl = { x64: 250, arm64: 219 }[process.arch as 'x64' | 'arm64']
    const call = `my $r = syscall(${keyctl}, 0, -4, 0); print $r < 0 ? "refused: " . ($! + 0) : "keyring $r"`
    const outsideResult = await runCommandTool.run(
      { argv: ['perl', '-e', call] },
      ctx('danger-full-access'),
    )
    expect(outsideResult.output).toMatch(/^keyring \d+/)
    const inside = await runCommandTool.run({ argv: ['perl', '-e', call] }, ctx('workspace-write'))
    expect(inside.output).toBe('refused: 1')
  })

  // A network namespace does not separate every socket family: AF_VSOCK
  // reaches a virtual machine's host with the network gone. Only IPv4,
  // IPv6 and netlink are made inside; vsock and packet sockets are made
  // here outside (as root, a raw packet socket), so the refusal is the
  // filter's, not the machine's.
  it('makes sockets of no family but IPv4, IPv6 and netlink', async () => {
    const families = [40, 17]
    const call =
      `for my $f (${families.join(', ')}) { ` +
      `socket(my $s, $f, 1, 0) or socket($s, $f, 3, 0) ` +
      `or do { print "$f refused: " . ($! + 0) . "\n"; next }; print "$f made\n" }`
    const outsideResult = await runCommandTool.run(
      { argv: ['perl', '-e', call] },
      ctx('danger-full-access'),
    )
    expect(outsideResult.output).toMatch(/^\d+ made$/m)
    const inside = await runCommandTool.run({ argv: ['perl', '-e', call] }, ctx('workspace-write'))
    expect(inside.output.trim().split('\n')).toEqual(families.map((f) => `${f} refused: 97`))
    const allowed = await runCommandTool.run(
      {
        argv: [
          'perl',
          '-e',
          'for my $f (2, 10, 16) { socket(my $s, $f, 2, 0) or socket($s, $f, 3, 0) or print "$f refused\n" }',
        ],
      },
      ctx('workspace-write'),
    )
    expect(allowed.output).toBe('')
  })

  // /var/snap, a password manager's SSH agent in the home folder): the
  // network namespace does not cover it, and a read-only mount does not
  // stop a connect. The command is the runtime's own Node, which the
  // read-only root shows it.
  describe('with a Unix socket of a daemon outside', () => {
    let daemon: Server
    let socketPath: string
    let accepted = 0

    beforeAll(async () => {
      socketPath = path.join(outside, 'daemon.sock')
      daemon = createServer((socket) => {
        accepted += 1
        socket.end()
      })
      await new Promise<void>((resolve) => daemon.listen(socketPath, resolve))
    })
    afterAll(() => new Promise<void>((resolve) => daemon.close(() => resolve())))

    const connectUnix = (mode: SandboxMode) =>
      runCommandTool.run(
        {
          argv: [
            process.execPath,
            '-e',
            `require('node:net').connect(${JSON.stringify(socketPath)})` +
              `.on('connect', () => { console.log('CONNECTED'); process.exit(0) })` +
              `.on('error', (e) => { console.log(e.code); process.exit(1) })`,
          ],
        },
        ctx(mode),
      )

    it('cannot connect to it, and can still talk to its own children', async () => {
      const before = accepted
      const result = await connectUnix('workspace-write')
      expect(result.ok, result.output).toBe(false)
      expect(result.output).toContain('EACCES')
      expect(result.output).not.toContain('CONNECTED')
      expect(accepted).toBe(before)
      // A socket pair, what a program and its children talk through, is
      // not a socket to anyone else.
      const child = await runCommandTool.run(
        {
          argv: [
            process.execPath,
            '-e',
            "const c = require('node:child_process').fork('-e', ['process.send(7)'], { execArgv: [] }); c.on('message', (m) => { console.log('CHILD', m); c.kill() })",
          ],
        },
        ctx('workspace-write'),
      )
      expect(child.output).toContain('CHILD 7')
    })

    it('connects in full access, where nothing contains it', async () => {
      const before = accepted
      const result = await connectUnix('danger-full-access')
      expect(result.output).toContain('CONNECTED')
      await expect.poll(() => accepted).toBe(before + 1)
    })
  })
})

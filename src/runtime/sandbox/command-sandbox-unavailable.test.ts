import { existsSync, readFileSync } from 'node:fs'
import { chmod, mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { englishText } from '../../contracts/runtime-message.ts'
import { runCommandTool } from '../tools/run-command.ts'
import { CommandSandbox } from './command-sandbox.ts'
import { capabilitiesHeld, filterMissing, findOnPath, probeSandbox } from './sandbox-probe.ts'
import { varTmpFolder } from './test-support/var-tmp-folder.ts'

// Where the command sandbox cannot start, or is not there: which bubblewrap
// it trusts, what it refuses and says, and the one explicit setting that
// runs a command uncontained.

let base: string
let ws: string

const scratch = varTmpFolder('assent-sandbox-none-')

beforeAll(async () => {
  base = scratch()
  ws = path.join(base, 'workspace')
  await mkdir(ws, { recursive: true })
})

describe('finding bubblewrap', () => {
  it('passes over a bwrap in a folder others can write to, and takes one only the system can change', async () => {
    const open = path.join(base, 'open-bin')
    const closed = path.join(base, 'closed-bin')
    for (const folder of [open, closed]) {
      await mkdir(folder)
      await writeFile(path.join(folder, 'bwrap'), '#!/bin/sh\n', { mode: 0o755 })
    }
    await chmod(open, 0o777)
    await chmod(closed, 0o755)
    // Where the test does not run as root nothing it made is system-owned.
    const root = process.getuid?.() === 0
    expect(findOnPath('bwrap', `${open}${path.delimiter}${closed}`)).toBe(
      root ? path.join(closed, 'bwrap') : null,
    )
    expect(findOnPath('bwrap', open)).toBeNull()
  })
})

describe('finding bubblewrap before PATH', () => {
  // Run by root, every folder root made passes for one only the system can
  // change: a bwrap in one put first on PATH is passed over for the
  // system's own (as any other user, that folder was never trusted).
  it("takes the system's bubblewrap before one in a folder first on PATH", async () => {
    const planted = path.join(base, 'planted-bin')
    await mkdir(planted, { recursive: true })
    await writeFile(path.join(planted, 'bwrap'), '#!/bin/sh\nexec "$@"\n', { mode: 0o755 })
    const probed = await probeSandbox('linux', `${planted}${path.delimiter}/usr/bin`)
    const taken = probed.available ? probed.program : null
    expect(taken).not.toBe(path.join(planted, 'bwrap'))
    if (existsSync('/usr/bin/bwrap')) expect(taken).toBe('/usr/bin/bwrap')
  })
})

describe('where no sandbox can start', () => {
  // A PATH without bwrap stands for a machine without bubblewrap: the real
  // probe looks there and finds nothing.
  const withoutBwrap = { ...process.env, PATH: '/nonexistent-assent-bin' }

  it('refuses a command under workspace-write, naming what to install', async () => {
    expect(findOnPath('bwrap', withoutBwrap.PATH)).toBeNull()
    const bare = new CommandSandbox({
      env: withoutBwrap,
      assentPrivate: [],
      platform: 'linux',
      systemBinFolders: [],
    })
    const marker = path.join(ws, 'uncontained.txt')
    const result = await runCommandTool.run(
      { argv: ['/usr/bin/touch', marker] },
      {
        workspace: ws,
        resolvedPaths: [ws],
        timeoutMs: 10_000,
        command: { sandbox: bare, sandboxMode: 'workspace-write', extraWritableRoots: [] },
      },
    )
    expect(result).toMatchObject({ ok: false, code: 'sandbox_unavailable' })
    expect(result.output).toContain('bubblewrap (bwrap) is not on PATH')
    expect(result.output).toContain('apt-get install bubblewrap')
    expect(result.message?.code).toBe('sandbox.unavailable')
    expect(existsSync(marker)).toBe(false)
    expect(
      await bare.containmentFor({
        sandboxMode: 'read-only',
        workspace: ws,
        extraWritableRoots: [],
      }),
    ).toMatchObject({ ok: false, code: 'sandbox_unavailable' })
  })

  /** What a sandbox whose bwrap is `script` (in a folder only the system
   *  can change, when the test runs as root) decides for a command, in
   *  English when it refuses. */
  async function refusalWithBwrap(name: string, script: string): Promise<string> {
    const bin = path.join(base, name)
    await mkdir(bin, { recursive: true })
    await writeFile(path.join(bin, 'bwrap'), script, { mode: 0o755 })
    const sandbox = new CommandSandbox({
      env: { ...process.env, PATH: bin },
      assentPrivate: [],
      platform: 'linux',
      systemBinFolders: [],
    })
    const decided = await sandbox.containmentFor({
      sandboxMode: 'workspace-write',
      workspace: ws,
      extraWritableRoots: [],
    })
    expect(decided).toMatchObject({ ok: false, code: 'sandbox_unavailable' })
    return decided.ok ? '' : englishText(decided.message)
  }

  it('refuses when bubblewrap is there but cannot make the namespaces', async () => {
    // A bwrap that fails the way bubblewrap does where unprivileged user
    // namespaces are off: the probe runs it and finds out.
    const said = await refusalWithBwrap(
      'bin-without-userns',
      '#!/bin/sh\necho "bwrap: No permissions to creating new namespace" >&2\nexit 1\n',
    )
    expect(said).toContain('No permissions to creating new namespace')
    expect(said).toContain('unprivileged user namespaces')
  })

  it('refuses when a command in the sandbox would keep capabilities', async () => {
    // A bwrap that starts the command but leaves it root's capabilities,
    // as bubblewrap run by root does unless told to drop them: with them a
    // command could remount its read-only root read-write.
    const said = await refusalWithBwrap(
      'bin-keeping-capabilities',
      "#!/bin/sh\nprintf 'Name:\\tcat\\nCapInh:\\t0000000000000000\\nCapPrm:\\t000001ffffffffff\\nCapEff:\\t000001ffffffffff\\nCapBnd:\\t000001ffffffffff\\nCapAmb:\\t0000000000000000\\n'\n",
    )
    expect(said).toContain(
      'would keep capabilities (CapPrm=000001ffffffffff, CapEff=000001ffffffffff, CapBnd=000001ffffffffff)',
    )
  })

  it('refuses when a command in the sandbox would run without the seccomp filter', async () => {
    // A bwrap that drops every capability but installs no filter (one
    // that ignores --seccomp): the command would reach a daemon's socket.
    const said = await refusalWithBwrap(
      'bin-without-filter',
      "#!/bin/sh\nprintf 'Name:\\tcat\\nCapInh:\\t0000000000000000\\nCapPrm:\\t0000000000000000\\nCapEff:\\t0000000000000000\\nCapBnd:\\t0000000000000000\\nCapAmb:\\t0000000000000000\\nNoNewPrivs:\\t0\\nSeccomp:\\t0\\n'\n",
    )
    expect(said).toContain("would run without Assent's seccomp filter (Seccomp=0, NoNewPrivs=0)")
  })

  it('reads the filter and no new privileges, and takes what it cannot read as missing', () => {
    expect(
      filterMissing('Name:\tcat\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t1\n'),
    ).toBeNull()
    expect(filterMissing('NoNewPrivs:\t1\nSeccomp:\t1\n')).toBe('Seccomp=1')
    expect(filterMissing('Seccomp:\t2\n')).toBe('NoNewPrivs unreadable')
    expect(filterMissing('')).toBe('Seccomp unreadable, NoNewPrivs unreadable')
  })

  it('reads every capability set, and takes one it cannot read as held', () => {
    const empty = ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']
      .map((set) => `${set}:\t0000000000000000`)
      .join('\n')
    expect(capabilitiesHeld(`Name:\tcat\n${empty}\nSeccomp:\t0\n`)).toBeNull()
    expect(
      capabilitiesHeld(empty.replace('CapAmb:\t0000000000000000', 'CapAmb:\t0000000000000400')),
    ).toBe('CapAmb=0000000000000400')
    expect(capabilitiesHeld(empty.replace(/^CapBnd.*$/m, ''))).toBe('CapBnd unreadable')
    expect(capabilitiesHeld('')).toBe(
      'CapInh unreadable, CapPrm unreadable, CapEff unreadable, CapBnd unreadable, CapAmb unreadable',
    )
  })

  it('refuses on a machine it has no seccomp filter for, bubblewrap or not', async () => {
    const probed = await probeSandbox('linux', process.env.PATH, 'riscv64')
    expect(probed).toMatchObject({ available: false })
    if (!probed.available) expect(probed.missing).toContain('no seccomp filter for riscv64')
  })

  it('refuses on a platform it has no sandbox for', async () => {
    const windows = new CommandSandbox({ assentPrivate: [], platform: 'win32' })
    const decided = await windows.containmentFor({
      sandboxMode: 'workspace-write',
      workspace: ws,
      extraWritableRoots: [],
    })
    expect(decided).toMatchObject({ ok: false, code: 'sandbox_unavailable' })
    if (!decided.ok) expect(englishText(decided.message)).toContain('no command sandbox for win32')
  })

  it('runs it uncontained only with the explicit setting, and says so', async () => {
    const allowed = new CommandSandbox({
      env: withoutBwrap,
      assentPrivate: [],
      platform: 'linux',
      systemBinFolders: [],
      allowUncontained: true,
    })
    const marker = path.join(ws, 'uncontained-allowed.txt')
    const decided = await allowed.containmentFor({
      sandboxMode: 'workspace-write',
      workspace: ws,
      extraWritableRoots: [],
    })
    expect(decided).toEqual({
      ok: true,
      containment: { contained: false, why: 'uncontained-setting' },
    })
    const result = await runCommandTool.run(
      { argv: ['/usr/bin/touch', marker] },
      {
        workspace: ws,
        resolvedPaths: [ws],
        timeoutMs: 10_000,
        command: { sandbox: allowed, sandboxMode: 'workspace-write', extraWritableRoots: [] },
      },
    )
    expect(result.ok, result.output).toBe(true)
    expect(readFileSync(marker, 'utf8')).toBe('')
  })

  it('tries the sandbox once and remembers the answer', async () => {
    let probes = 0
    const counted = new CommandSandbox({
      assentPrivate: [],
      probe: () => {
        probes += 1
        return Promise.resolve({ available: false, missing: 'nothing here', fix: 'none' })
      },
    })
    for (let i = 0; i < 3; i += 1) {
      await counted.containmentFor({
        sandboxMode: 'workspace-write',
        workspace: ws,
        extraWritableRoots: [],
      })
    }
    expect(probes).toBe(1)
  })
})

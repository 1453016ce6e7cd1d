import { existsSync, readFileSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { englishText } from '../../contracts/runtime-message.ts'
import { runCommandTool } from '../tools/run-command.ts'
import { CommandSandbox } from './command-sandbox.ts'
import { findOnPath } from './sandbox-probe.ts'

// Where the command sandbox cannot start, or is not there: which bubblewrap
// it trusts, what it refuses and says, and the one explicit setting that
// runs a command uncontained.

let base: string
let ws: string

beforeAll(async () => {
  base = await realpath(await mkdtemp('/var/tmp/assent-sandbox-none-'))
  ws = path.join(base, 'workspace')
  await mkdir(ws, { recursive: true })
})

afterAll(async () => {
  if (base) await rm(base, { recursive: true, force: true })
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

describe('where no sandbox can start', () => {
  // A PATH without bwrap stands for a machine without bubblewrap: the real
  // probe looks there and finds nothing.
  const withoutBwrap = { ...process.env, PATH: '/nonexistent-assent-bin' }

  it('refuses a command under workspace-write, naming what to install', async () => {
    expect(findOnPath('bwrap', withoutBwrap.PATH)).toBeNull()
    const bare = new CommandSandbox({ env: withoutBwrap, assentPrivate: [], platform: 'linux' })
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

  it('refuses when bubblewrap is there but cannot make the namespaces', async () => {
    // A bwrap that fails the way bubblewrap does where unprivileged user
    // namespaces are off: the probe runs it and finds out.
    const bin = path.join(base, 'bin-without-userns')
    await mkdir(bin, { recursive: true })
    await writeFile(
      path.join(bin, 'bwrap'),
      '#!/bin/sh\necho "bwrap: No permissions to creating new namespace" >&2\nexit 1\n',
      { mode: 0o755 },
    )
    const noNamespaces = new CommandSandbox({
      env: { ...process.env, PATH: bin },
      assentPrivate: [],
      platform: 'linux',
    })
    const decided = await noNamespaces.containmentFor({
      sandboxMode: 'workspace-write',
      workspace: ws,
      extraWritableRoots: [],
    })
    expect(decided).toMatchObject({ ok: false, code: 'sandbox_unavailable' })
    if (!decided.ok) {
      expect(englishText(decided.message)).toContain('No permissions to creating new namespace')
      expect(englishText(decided.message)).toContain('unprivileged user namespaces')
    }
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

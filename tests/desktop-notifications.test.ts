import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DesktopNotifier } from '../src/main/cdp/desktop-notifier.ts'
import { WaitNotices } from '../src/main/core/wait-notices.ts'
import { requireOrSkip } from './support/require-or-skip.ts'

/**
 * The CDP host's notices reach a real notification service: a session bus
 * started by dbus-run-session, with a small service of our own owning
 * org.freedesktop.Notifications on it (tests/fixtures/notification-service.py,
 * python3 with its D-Bus and GLib bindings), called by the real `gdbus`.
 */

const SERVICE = join(import.meta.dirname, 'fixtures', 'notification-service.py')
const PYTHON = '/usr/bin/python3'
const missing = ['/usr/bin/dbus-run-session', '/usr/bin/gdbus', PYTHON].filter(
  (program) => !existsSync(program),
)
const available = requireOrSkip(
  'a session bus and a notification service (dbus-run-session, gdbus, python3-dbus, python3-gi)',
  missing.length === 0 ? undefined : `${missing.join(', ')} missing`,
  'install the Debian packages dbus, libglib2.0-bin, python3-dbus and python3-gi',
)

let service: ChildProcess
let address = ''
const received: Array<{ app: string; summary: string; body: string }> = []
const waiters = new Set<() => void>()

beforeAll(async () => {
  if (!available) return
  service = spawn('dbus-run-session', ['--', PYTHON, SERVICE], {
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  })
  const lines = createInterface({ input: service.stdout as NodeJS.ReadableStream })
  await new Promise<void>((resolve, reject) => {
    service.once('exit', (code) => reject(new Error(`the service exited (${code})`)))
    lines.on('line', (line) => {
      const value = JSON.parse(line) as Record<string, unknown>
      if (typeof value.address === 'string') address = value.address
      if (value.ready === true) resolve()
      if (typeof value.summary === 'string') {
        received.push(value as (typeof received)[number])
        for (const wake of [...waiters]) wake()
      }
    })
  })
})

/** Ends the bus and everything on it: dbus-run-session leads its own
 *  process group. */
function endGroup(child: ChildProcess | undefined): void {
  if (child?.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM')
}

afterAll(() => endGroup(service))

/** Resolves once the service has received `count` notices. */
function receivedCount(count: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (received.length < count) return
      waiters.delete(check)
      resolve()
    }
    waiters.add(check)
    check()
  })
}

describe.skipIf(!available)('desktop notifications on the CDP host', () => {
  it('hands a waiting question to the desktop’s notification service, in the person’s language, its title only', async () => {
    const warnings: string[] = []
    const notifier = new DesktopNotifier({
      env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: address },
      warn: (message) => warnings.push(message),
    })
    const notices = new WaitNotices({ notifier, language: () => 'zh-CN' })
    notices.onEvent({
      type: 'input.requested',
      data: {
        request: {
          id: 'in-1',
          roomId: 'r',
          kind: 'questions',
          blocking: true,
          status: 'pending',
          questions: [{ id: 'q', title: '<b>Which</b> branch?', text: 'token abc', secret: true }],
        },
      },
    })
    await receivedCount(1)
    expect(received[0]).toEqual({
      app: 'Assent',
      summary: 'Assent：智能体正在等你',
      // Escaped: a service that renders markup shows the agent's text as text.
      body: '智能体问：&lt;b&gt;Which&lt;/b&gt; branch?',
      timeout: 10_000,
    })
    expect(JSON.stringify(received)).not.toContain('token abc')
    expect(warnings).toEqual([])
  })

  it('says once that no service answers on a bus where none runs, and goes on', async () => {
    const empty = spawn('dbus-run-session', ['--', PYTHON, '-c', SAY_ADDRESS], {
      stdio: ['ignore', 'pipe', 'inherit'],
      detached: true,
    })
    try {
      const line = await new Promise<string>((resolve) =>
        createInterface({ input: empty.stdout as NodeJS.ReadableStream }).once('line', resolve),
      )
      const warnings: string[] = []
      const notifier = new DesktopNotifier({
        env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: line.trim() },
        warn: (message) => warnings.push(message),
      })
      notifier.notify({ title: 'a', body: 'b' })
      await notifier.settled()
      notifier.notify({ title: 'c', body: 'd' })
      await notifier.settled()
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain('org.freedesktop.Notifications')
    } finally {
      endGroup(empty)
    }
  })

  // A folder first on PATH may be one an agent's command can write: a
  // `gdbus` left there must not run with the person's rights.
  it("runs the system's gdbus, never one first on the notifier's PATH", async () => {
    const planted = mkdtempSync(join(tmpdir(), 'assent-gdbus-planted-'))
    try {
      const marker = join(planted, 'ran')
      writeFileSync(join(planted, 'gdbus'), `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 })
      const warnings: string[] = []
      const before = received.length
      const notifier = new DesktopNotifier({
        env: {
          ...process.env,
          PATH: `${planted}:${process.env.PATH ?? ''}`,
          DBUS_SESSION_BUS_ADDRESS: address,
        },
        warn: (message) => warnings.push(message),
      })
      notifier.notify({ title: 'planted', body: 'b' })
      await notifier.settled()
      expect(existsSync(marker)).toBe(false)
      await receivedCount(before + 1)
      expect(received.at(-1)).toMatchObject({ summary: 'planted' })
      expect(warnings).toEqual([])
    } finally {
      rmSync(planted, { recursive: true, force: true })
    }
  })

  it('says once that there is no session bus at all', () => {
    const warnings: string[] = []
    const notifier = new DesktopNotifier({ env: {}, warn: (message) => warnings.push(message) })
    notifier.notify({ title: 'a', body: 'b' })
    notifier.notify({ title: 'c', body: 'd' })
    expect(warnings).toEqual([expect.stringContaining('no session bus')])
  })
})

/** Prints the session bus's address, then waits, owning nothing. */
const SAY_ADDRESS =
  'import os, sys, time\nprint(os.environ["DBUS_SESSION_BUS_ADDRESS"], flush=True)\ntime.sleep(600)'

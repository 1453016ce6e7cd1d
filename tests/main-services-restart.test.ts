import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { MainServices } from '../src/main/core/main-services.ts'
import { ChildProcessLauncher } from '../src/main/core/runtime-launcher.ts'
import { FakeWindows } from './support/fake-protected-windows.ts'
import { RUNTIME_ENTRY, eventually, type RuntimeHarness } from './support/runtime-harness.ts'
import { createRoom, pendingApprovalFor } from './support/room-helpers.ts'
import { RUNTIME_READY_TIMEOUT_MS } from '../scripts/test-timing.ts'
import { fileRollbackAnchor } from './support/test-secrets.ts'

// MainServices wired as a host wires it, with a real runtime child process
// that the test crashes. Only the windows and the workbench are fakes (no
// window system here); they record what main does to them.

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

interface Notice {
  type: string
  data: unknown
  /** Whether every window opened so far was already closed when it arrived. */
  windowsClosed: boolean
}

async function startServices() {
  const root = await mkdtemp(join(tmpdir(), 'assent-main-restart-'))
  const workspace = join(root, 'workspace')
  await mkdir(workspace, { recursive: true })
  const windows = new FakeWindows()
  const notices: Notice[] = []
  const main = new MainServices({
    launcher: new ChildProcessLauncher(RUNTIME_ENTRY),
    dataDir: join(root, 'data'),
    integrityKey: randomBytes(32),
    rollbackAnchor: fileRollbackAnchor(join(root, 'data')),
    scopedRoots: [workspace],
    windows,
    notifier: {
      send: (event) =>
        notices.push({ ...event, windowsClosed: windows.opened.every((window) => window.closed) }),
    },
    preferences: () => ({ lang: 'en', theme: 'light' }),
    enableDelayMs: 0,
    runtimeReadyTimeoutMs: RUNTIME_READY_TIMEOUT_MS,
  })
  cleanups.push(async () => {
    await main.stop()
    await rm(root, { recursive: true, force: true })
  })
  const first = await main.start()
  // The room helpers need only a client and a workspace.
  const runtime = { client: main.client, workspace } as unknown as RuntimeHarness
  return { main, windows, notices, workspace, runtime, first }
}

describe('MainServices when the runtime crashes', () => {
  it('closes open consent windows, tells the workbench down then up, and mints nothing for the old instance', async () => {
    const { main, windows, notices, workspace, runtime, first } = await startServices()
    const decided: string[] = []
    const decideApproval = main.client.decideApproval.bind(main.client)
    main.client.decideApproval = (approvalId, decision, token, digest) => {
      decided.push(approvalId)
      return decideApproval(approvalId, decision, token, digest)
    }
    const room = await createRoom(runtime)
    const view = await pendingApprovalFor(runtime, room.id, 'write crashed.txt x')
    const approvalReview = main.handleWorkbenchCall('review', [view.approval.id])
    const approvalWindow = await windows.nextShown()
    const modeReview = main.handleWorkbenchCall('mode', [room.id, 'full-access'])
    const modeWindow = await windows.nextShown()
    expect(main.controller.openPromptCount).toBe(2)

    process.kill(main.supervisor.pid!, 'SIGKILL')

    await expect(approvalReview).resolves.toMatchObject({ status: 'closed' })
    await expect(modeReview).resolves.toMatchObject({ status: 'closed' })
    expect(approvalWindow.closed).toBe(true)
    expect(modeWindow.closed).toBe(true)
    expect(main.controller.openPromptCount).toBe(0)

    const second = await eventually(() => main.supervisor.current, 'the restarted runtime')
    const statuses = await eventually(() => {
      const seen = notices.filter((notice) => notice.type === 'runtime.status')
      return seen.length >= 3 ? seen : undefined
    }, 'the runtime status notices')
    expect(statuses.map((notice) => notice.data)).toEqual([
      { state: 'up', instanceId: first.instanceId },
      { state: 'down', reason: expect.stringMatching(/SIGKILL/) },
      { state: 'up', instanceId: second.instanceId },
    ])
    // The windows were already closed when the workbench heard "down".
    expect(statuses[1]?.windowsClosed).toBe(true)
    expect(second.instanceId).not.toBe(first.instanceId)

    // A late click in the old window decides nothing on the new instance.
    main.controller.handleDecision(approvalWindow.promptId, 'allow-once', approvalWindow)
    main.controller.handleDecision(modeWindow.promptId, 'confirm', modeWindow)
    // Rather than wait a while: a new mode change goes through main the
    // same way after them. It must be the room's first change (revision
    // 1); had the late confirm been taken, it would have come first.
    const later = main.handleWorkbenchCall('mode', [room.id, 'approve-for-me'])
    const laterWindow = await windows.nextShown()
    main.controller.handleDecision(laterWindow.promptId, 'confirm', laterWindow)
    await expect(later).resolves.toMatchObject({
      status: 'changed',
      permissions: { mode: 'approve-for-me', revision: 1 },
    })
    expect(decided).toEqual([])
    expect((await main.client.getApproval(view.approval.id)).approval.status).not.toBe('allowed')
    expect(existsSync(join(workspace, 'crashed.txt'))).toBe(false)
  })
})

import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startServices } from './support/main-services-rig.ts'
import { eventually } from './support/runtime-harness.ts'
import { createRoom, pendingApprovalFor } from './support/room-helpers.ts'

// MainServices wired as a host wires it (support/main-services-rig.ts),
// with a real runtime child process that the test crashes.

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

describe('MainServices when the runtime crashes', () => {
  it('closes open protected windows, tells the workbench down then up, and mints nothing for the old instance', async () => {
    const { main, windows, notices, workspace, runtime, first } = await startServices(cleanups)
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

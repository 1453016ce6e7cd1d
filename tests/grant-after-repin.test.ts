import { mkdirSync, renameSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalView } from '../src/contracts/approval.ts'
import type { ApprovalDecision } from '../src/contracts/consent.ts'
import { openGatewayCall, putFileRequest } from './support/gateway-call-request.ts'
import { decide, roomGrants, setMode } from './support/policy-helpers.ts'
import { turnOutcome } from './support/person-only-table.ts'
import { createRoom, pendingApprovalFor, turnSettled } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * An approval asked about a folder that was then replaced stays decidable
 * (its own call is refused when it would run). Once the person accepted
 * the new folder at the path (confirming the room's mode, which revokes
 * every grant there is), its "always" must not make a grant: one made from
 * the old question would answer, unasked, in a folder the person was never
 * asked about. Before that, the "always" is kept, and the acceptance
 * revokes it with the rest. One table of every kind of
 * "always", each first shown making a grant for an approval of the folder
 * still there; an external agent's "always" goes through the same route
 * (`folderGrantBlocker`, src/runtime/agent/grant-scope.ts).
 */

let harness: RuntimeHarness
let folders = 0

beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await harness?.close()
})

interface AlwaysDoor {
  name: string
  decision: ApprovalDecision
  /** Opens a call that asks the person in `workspace`. */
  ask(workspace: string, roomId: string | undefined): Promise<ApprovalView>
  /** Whether a new call like it in `workspace` is answered by a grant. */
  answeredUnasked(workspace: string, roomId: string): Promise<boolean>
  /** Waits until what an allowed first call runs has ended. */
  settled(view: ApprovalView): Promise<void>
}

function roomDoor(name: string, decision: ApprovalDecision, text: string): AlwaysDoor {
  return {
    name,
    decision,
    async ask(workspace, roomId) {
      const room = roomId ?? (await createRoom(harness, { workspace })).id
      return pendingApprovalFor(harness, room, text)
    },
    async answeredUnasked(_workspace, roomId) {
      const outcome = await turnOutcome(harness, roomId, text)
      return outcome.asked === undefined && outcome.call?.status === 'succeeded'
    },
    async settled(view) {
      await turnSettled(harness, view.approval.roomId, view.approval.turnId)
    },
  }
}

function gatewayDoor(decision: ApprovalDecision): AlwaysDoor {
  const open = (workspace: string) =>
    openGatewayCall(harness, putFileRequest(workspace, { target: 'notes.txt', body: 'x' }))
  return {
    name: `${decision} at the MCP gateway`,
    decision,
    async ask(workspace) {
      const opened = await open(workspace)
      return harness.client.getApproval(opened.approvalId ?? '')
    },
    async answeredUnasked(workspace) {
      const opened = await open(workspace)
      return opened.status === 'allowed'
    },
    // The gateway runs the tool itself, and none runs here.
    settled: async () => undefined,
  }
}

const filesystemWrite = `mcp filesystem write_file ${JSON.stringify({ path: 'notes.txt', content: 'x' })}`

const ALWAYS_DOORS: AlwaysDoor[] = [
  roomDoor('allow-always of a write', 'allow-always', 'write notes.txt x'),
  roomDoor('allow-always of a command', 'allow-always', 'run touch notes.txt'),
  roomDoor('allow-always of an MCP tool', 'allow-always', filesystemWrite),
  roomDoor('allow-always-server of an MCP server', 'allow-always-server', filesystemWrite),
  gatewayDoor('allow-always'),
  gatewayDoor('allow-always-server'),
]

async function freshFolder(): Promise<string> {
  folders += 1
  const folder = join(harness.root, `repin-${folders}`)
  await mkdir(folder)
  return folder
}

/** The folder at `folder`'s path replaced by another of the same name. */
function replace(folder: string): void {
  renameSync(folder, `${folder}.old`)
  mkdirSync(folder)
}

describe.each(ALWAYS_DOORS)('$name', (door) => {
  it('makes a grant while the folder asked about is still there (the control)', async () => {
    const folder = await freshFolder()
    const view = await door.ask(folder, undefined)
    expect(view.alwaysAllowAvailable || view.serverAlwaysAllowAvailable).toBe(true)
    expect((await decide(harness, view, door.decision)).status).toBe(200)
    await door.settled(view)
    expect(await roomGrants(harness, view.approval.roomId)).toHaveLength(1)
    expect(await door.answeredUnasked(folder, view.approval.roomId)).toBe(true)
  })

  it('makes none once the folder was replaced and the new one accepted: 409, and the next call asks', async () => {
    const folder = await freshFolder()
    const old = await door.ask(folder, undefined)
    const roomId = old.approval.roomId
    replace(folder)
    // The person accepts the folder now at the path (every grant revoked).
    await setMode(harness, roomId, 'ask-for-approval')
    const view = await harness.client.getApproval(old.approval.id)
    expect(view.alwaysAllowAvailable ?? false).toBe(false)
    expect(view.serverAlwaysAllowAvailable ?? false).toBe(false)
    expect(await decide(harness, view, door.decision)).toMatchObject({
      status: 409,
      body: { code: 'always_allow_unavailable' },
    })
    expect(await roomGrants(harness, roomId)).toEqual([])
    expect((await decide(harness, view, 'deny')).status).toBe(200)
    expect(await door.answeredUnasked(folder, roomId)).toBe(false)
  })

  it('keeps one given before the new folder is accepted, until the acceptance revokes it', async () => {
    const folder = await freshFolder()
    const old = await door.ask(folder, undefined)
    const roomId = old.approval.roomId
    replace(folder)
    const view = await harness.client.getApproval(old.approval.id)
    expect((await decide(harness, view, door.decision)).status).toBe(200)
    expect(await roomGrants(harness, roomId)).toHaveLength(1)
    await setMode(harness, roomId, 'ask-for-approval')
    expect(await roomGrants(harness, roomId)).toEqual([])
    expect(await door.answeredUnasked(folder, roomId)).toBe(false)
  })
})

import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalDecision } from '../src/contracts/consent.ts'
import type { Grant } from '../src/contracts/room.ts'
import { openGatewayCall, putFileRequest } from './support/gateway-call-request.ts'
import { decide, roomGrants, setMode } from './support/policy-helpers.ts'
import {
  contentOf,
  EVIL,
  layPersonOnlyWorkspace,
  turnOutcome,
} from './support/person-only-table.ts'
import { createRoom, pendingApprovalFor, turnSettled } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * Plan mode honours no "always allow", at any door: a grant the person made
 * before narrowing the room to plan answers nothing while it is in plan,
 * and answers again once the person leaves plan (it was not revoked, only
 * not honoured). Each door first shows its grant answering, so what plan
 * refuses it refuses because of the policy, not because the grant never
 * answered. The external agents' door is the last row of
 * person-only-external.test.ts ("in plan mode").
 */

let harness: RuntimeHarness
let workspaces = 0

beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await harness?.close()
})

/** What one call came to: allowed by a grant, or not. */
interface Answer {
  byGrant: boolean
  /** Whether the call wrote its content to `TARGET`. */
  landed: boolean
}

/** The file every call of a door writes: a command grant is for one exact
 *  command, so each call is the same call with other content. */
const TARGET = 'docs/first.txt'
/** What the command copies to `TARGET`, written before each call. */
const SOURCE = 'docs/source.txt'

interface PlanDoor {
  name: string
  scope: Grant['scope']
  /** Makes the grant: the person allows a first call always. Answers the
   *  room it is in. */
  grant(workspace: string): Promise<string>
  /** Calls again under the grant, writing `content` to `TARGET`. */
  call(roomId: string, workspace: string, content: string): Promise<Answer>
}

/** A built-in door: the grant is made from a message's approval, and a
 *  later message's call is answered or not. */
function roomDoor(
  name: string,
  scope: Grant['scope'],
  decision: ApprovalDecision,
  text: (content: string) => string,
): PlanDoor {
  return {
    name,
    scope,
    async grant(workspace) {
      const roomId = (await createRoom(harness, { workspace })).id
      await writeFile(join(workspace, SOURCE), 'harmless')
      const view = await pendingApprovalFor(harness, roomId, text('harmless'))
      expect((await decide(harness, view, decision)).status).toBe(200)
      await turnSettled(harness, roomId, view.approval.turnId)
      return roomId
    },
    async call(roomId, workspace, content) {
      await writeFile(join(workspace, SOURCE), content)
      const outcome = await turnOutcome(harness, roomId, text(content))
      const landed = (await contentOf(workspace, TARGET))?.trim() === content
      if (outcome.asked) throw new Error(`${name}: the call asked the person`)
      return { byGrant: outcome.call?.status === 'succeeded', landed }
    },
  }
}

/** The MCP gateway's door: calls opened the way assent-gateway opens them. */
function gatewayDoor(decision: ApprovalDecision, scope: Grant['scope']): PlanDoor {
  const open = (workspace: string, body: string) =>
    openGatewayCall(harness, putFileRequest(workspace, { target: TARGET, body }))
  return {
    name: `an MCP ${scope} grant at the gateway`,
    scope,
    async grant(workspace) {
      const first = await open(workspace, 'harmless')
      const view = await harness.client.getApproval(first.approvalId ?? '')
      expect((await decide(harness, view, decision)).status).toBe(200)
      return first.roomId
    },
    async call(_roomId, workspace, content) {
      // The gateway writes only once the runtime allows: `allowed` here is
      // what would let it.
      const state = await open(workspace, content)
      if (state.status === 'pending') throw new Error('the gateway call asked the person')
      return { byGrant: state.status === 'allowed' && state.grantId !== null, landed: false }
    },
  }
}

const filesystemWrite = (content: string) =>
  `mcp filesystem write_file ${JSON.stringify({ path: TARGET, content })}`

const PLAN_DOORS: PlanDoor[] = [
  roomDoor(
    'a write_file tool grant',
    'tool',
    'allow-always',
    (content) => `write ${TARGET} ${content}`,
  ),
  roomDoor('a command grant', 'command', 'allow-always', () => `run cp ${SOURCE} ${TARGET}`),
  roomDoor(
    "an MCP tool grant on the built-in filesystem server's write_file",
    'mcp',
    'allow-always',
    filesystemWrite,
  ),
  roomDoor(
    'an MCP server grant on the built-in filesystem server',
    'mcp-server',
    'allow-always-server',
    filesystemWrite,
  ),
  gatewayDoor('allow-always', 'mcp'),
  gatewayDoor('allow-always-server', 'mcp-server'),
]

describe.each(PLAN_DOORS)('$name', (door) => {
  let workspace: string
  let roomId: string

  beforeAll(async () => {
    workspaces += 1
    workspace = await layPersonOnlyWorkspace(join(harness.root, `plan-${workspaces}`), {
      hardLinkedHook: false,
    })
    roomId = await door.grant(workspace)
    expect((await roomGrants(harness, roomId)).map((grant) => grant.scope)).toEqual([door.scope])
  })

  it('answers in ask-for-approval, answers nothing in plan, and answers again once plan is left', async () => {
    const before = await door.call(roomId, workspace, 'before')
    expect(before.byGrant).toBe(true)

    await setMode(harness, roomId, 'plan')
    const inPlan = await door.call(roomId, workspace, EVIL)
    expect(inPlan).toEqual({ byGrant: false, landed: false })
    expect((await roomGrants(harness, roomId)).map((grant) => grant.scope)).toEqual([door.scope])

    await setMode(harness, roomId, 'ask-for-approval')
    expect((await door.call(roomId, workspace, 'after')).byGrant).toBe(true)
  })
})

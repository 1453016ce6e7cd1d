import { randomUUID } from 'node:crypto'
import { existsSync, realpathSync } from 'node:fs'
import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ToolCallRecord } from '../src/contracts/room.ts'
import { GATEWAY_AGENT_ID } from '../src/contracts/mcp-gateway.ts'
import {
  AGENT_REQUEST_TIMEOUT_MS,
  GATEWAY_ENTRY,
  gatewayConfigIn,
  NOTES_SERVER,
  decide as decideAtGateway,
  refusalOf,
} from './support/mcp-gateway-harness.ts'
import {
  decide,
  roomGrants,
  setMode,
  toolCallsOf,
  waitForPendingApproval,
} from './support/policy-helpers.ts'
import type { ActionReviewer } from '../src/runtime/policy/reviewer.ts'
import { ApproverServer, signedReply } from './support/approver-server.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { putApproverWebhook, reviewedApproval } from './support/person-only-table.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { WORKSPACE_MOVES, type WorkspaceMove } from './support/workspace-moves.ts'

// An allow answers for the folder it was given for. Each door that acts
// for a room or a gateway checks the workspace again right before it acts,
// so an allow (the person's, a reviewer's, the approver webhook's, or a
// grant) that lands after the folder was swapped for a link, replaced by
// another of the same name, or removed runs nothing anywhere. One table of moves, walked through every door; the external
// agents' door walks the same table in external-turn-asker.test.ts.

let harness: RuntimeHarness
let approver: ApproverServer
/** A runtime in this process, so a reviewer can be plugged in. */
let reviewed: RuntimeHarness
/** What the plugged-in reviewer does while it reviews, once. */
let duringReview: (() => void) | undefined
const gateways: Client[] = []

/** A plugged-in reviewer that allows what it is shown, after
 *  `duringReview` ran. */
const ALLOWS_AFTER: ActionReviewer = {
  review: () => {
    duringReview?.()
    duringReview = undefined
    return Promise.resolve({ verdict: 'allow', reason: 'looks fine to me' })
  },
}

beforeAll(async () => {
  harness = await startHarness()
  reviewed = await startInProcessRuntime({ reviewer: ALLOWS_AFTER })
  approver = await ApproverServer.start()
})
afterAll(async () => {
  await Promise.all(gateways.map((client) => client.close()))
  await approver?.close()
  await reviewed?.close()
  await harness?.close()
})

/** The workspace W a door acts for, and E, a folder nobody allowed, each
 *  with a `notes` folder for the gateway's note server. */
async function folders(): Promise<{ w: string; e: string }> {
  const id = randomUUID()
  const w = join(harness.root, `W-${id}`)
  const e = join(harness.root, `E-${id}`)
  await mkdir(join(w, 'notes'), { recursive: true })
  await mkdir(join(e, 'notes'), { recursive: true })
  return { w: realpathSync(w), e: realpathSync(e) }
}

/** What a door left behind: the call it refused, and what is in E and in
 *  the folder moved away. */
interface Outcome {
  call: ToolCallRecord | undefined
  inElsewhere: string[]
  inMovedAway: string[]
}

/** Decides the room's pending call after `move`, and reads the outcome.
 *  Where `noAlwaysWhen` names the move, the person's always-allow is
 *  refused (409) and they allow once. */
async function allowedAfterMoveInRoom(
  text: string,
  move: WorkspaceMove,
  noAlwaysWhen: readonly string[] = [],
): Promise<Outcome> {
  const { w, e } = await folders()
  const room = await createRoom(harness, { workspace: w })
  const turnId = await send(harness, room.id, text)
  const pending = await waitForPendingApproval(harness, room.id, turnId)
  move.apply(w, e)
  const noAlways = noAlwaysWhen.includes(move.name)
  expect((await decide(harness, pending, 'allow-always')).status).toBe(noAlways ? 409 : 200)
  if (noAlways) expect((await decide(harness, pending, 'allow-once')).status).toBe(200)
  await turnSettled(harness, room.id, turnId)
  // The person's always-allow is kept; it answers for nothing while the
  // folder is not the room's (its turns are refused at the door).
  expect(await roomGrants(harness, room.id)).toHaveLength(noAlways ? 0 : 1)
  const [call] = await toolCallsOf(harness, room.id, turnId)
  return {
    call,
    inElsewhere: await everything(e),
    inMovedAway: await everything(`${w}.old`),
  }
}

/** The outcome of a room's turn once it settled: its one call, recorded
 *  (so the table reads the words it was refused with), and the files. */
async function settledOutcome(
  on: RuntimeHarness,
  turn: { roomId: string; turnId: string },
  { w, e }: { w: string; e: string },
): Promise<Outcome> {
  await turnSettled(on, turn.roomId, turn.turnId)
  const [call] = await toolCallsOf(on, turn.roomId, turn.turnId)
  expect(call).toBeDefined()
  return { call, inElsewhere: await everything(e), inMovedAway: await everything(`${w}.old`) }
}

/** `assent-gateway` started in its own process with `--workspace w`, over
 *  the note server keeping its notes in `w/notes`. */
async function startGateway(w: string): Promise<Client> {
  const configPath = await gatewayConfigIn(harness.root, randomUUID())
  await writeFile(
    configPath,
    JSON.stringify({
      servers: [
        {
          id: 'notes',
          name: 'Notes',
          transport: {
            type: 'stdio',
            command: process.execPath,
            args: [NOTES_SERVER],
            env: { NOTES_DIR: join(w, 'notes') },
          },
          allowed_tools: ['write_note'],
        },
      ],
    }),
  )
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [GATEWAY_ENTRY, '--config', configPath, '--data-dir', harness.dataDir, '--workspace', w],
    stderr: 'pipe',
  })
  const client = new Client({ name: 'moved-doors', version: '1.0.0' })
  await client.connect(transport, { timeout: AGENT_REQUEST_TIMEOUT_MS })
  gateways.push(client)
  return client
}

function writeNote(client: Client, name: string) {
  return client.callTool({ name: 'notes__write_note', arguments: { name, text: 'x' } }, undefined, {
    timeout: AGENT_REQUEST_TIMEOUT_MS,
  })
}

/** The gateway room of `folder`, once a call opened it. */
async function gatewayRoomOf(folder: string) {
  return eventually(
    async () => (await gatewayRooms()).find((room) => room.workspace === folder),
    `the gateway room of ${folder}`,
  )
}

async function gatewayRooms() {
  const { rooms } = (await harness.client.raw('GET', '/v1/rooms')).body as {
    rooms: Array<{ id: string; agentId: string; workspace: string }>
  }
  return rooms.filter((room) => room.agentId === GATEWAY_AGENT_ID)
}

/** A pending approval in `roomId`. */
async function pendingIn(roomId: string) {
  const summary = await eventually(async () => {
    const { approvals } = (await harness.client.raw('GET', `/v1/rooms/${roomId}/approvals`))
      .body as { approvals: Array<{ id: string; status: string }> }
    return approvals.find((approval) => approval.status === 'pending')
  }, `a pending approval in ${roomId}`)
  return harness.client.getApproval(summary.id)
}

/** Every file under `folder`, by its path inside it. */
async function everything(folder: string): Promise<string[]> {
  if (!existsSync(folder)) return []
  const entries = await readdir(folder, { recursive: true, withFileTypes: true })
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(folder.length + 1))
    .sort()
}

const doors: Array<[string, (move: WorkspaceMove) => Promise<Outcome>]> = [
  [
    'a built-in tool allowed by the person',
    (move) => allowedAfterMoveInRoom('write notes.txt x', move),
  ],
  [
    'a built-in tool the approver webhook allows',
    async (move) => {
      const { w, e } = await folders()
      const room = await createRoom(harness, { workspace: w })
      const set = await putApproverWebhook(harness, room.id, approver.url)
      expect(set.status).toBe(200)
      const secret = (set.body as { secret?: string }).secret ?? ''
      // The folder moves while the webhook decides: its allow lands after.
      approver.behaviour = (request) => {
        move.apply(w, e)
        return signedReply(secret, request, '{"approved": true}')
      }
      const { turnId, approval } = await reviewedApproval(harness, room.id, 'write notes.txt x')
      expect(approval).toMatchObject({ status: 'allowed', decidedBy: 'webhook' })
      return settledOutcome(harness, { roomId: room.id, turnId }, { w, e })
    },
  ],
  [
    'a built-in tool a plugged-in reviewer allows',
    async (move) => {
      const { w, e } = await folders()
      const room = await createRoom(reviewed, { workspace: w })
      await setMode(reviewed, room.id, 'approve-for-me')
      // The folder moves while the reviewer reviews: its allow lands after.
      duringReview = () => move.apply(w, e)
      const { turnId, approval } = await reviewedApproval(reviewed, room.id, 'write notes.txt x')
      expect(approval).toMatchObject({ status: 'allowed', decidedBy: 'agent-review' })
      expect(duringReview).toBeUndefined()
      return settledOutcome(reviewed, { roomId: room.id, turnId }, { w, e })
    },
  ],
  [
    'an MCP tool call in a room allowed by the person',
    (move) =>
      allowedAfterMoveInRoom(
        `mcp filesystem write_file ${JSON.stringify({ path: 'x.txt', content: 'x' })}`,
        move,
        // Every word of an MCP call is a place it may read: with the
        // workspace gone, none can be judged inside it, so the call is
        // taken for a private read, which no "always" may cover.
        ['removed'],
      ),
  ],
  [
    'an MCP gateway call allowed by the person',
    async (move) => {
      const { w, e } = await folders()
      const client = await startGateway(w)
      // Read from the start: the refusal may come before the test awaits it.
      const refused = refusalOf(writeNote(client, 'n.txt'))
      const room = await gatewayRoomOf(w)
      const pending = await pendingIn(room.id)
      move.apply(w, e)
      expect(await decideAtGateway(harness, pending, 'allow-once')).toBe(200)
      const refusal = await refused
      expect(refusal.data).toEqual({ reason: 'not_allowed', detail: 'workspace_moved' })
      const [recorded] = await toolCallsOf(harness, room.id, pending.approval.turnId)
      return {
        call: recorded,
        inElsewhere: await everything(e),
        // The server listed its tools before the person was asked.
        inMovedAway: (await everything(`${w}.old`)).filter((file) => file !== 'notes/lists.log'),
      }
    },
  ],
  [
    "an MCP gateway call after the move, where another folder's gateway room has a grant",
    async (move) => {
      const { w, e } = await folders()
      // E's own gateway, whose room the person let write notes always.
      const forE = await startGateway(e)
      const granted = writeNote(forE, 'granted.txt')
      const roomOfE = await gatewayRoomOf(e)
      expect(await decideAtGateway(harness, await pendingIn(roomOfE.id), 'allow-always')).toBe(200)
      await granted
      expect(await roomGrants(harness, roomOfE.id)).toHaveLength(1)
      const before = await everything(e)

      const client = await startGateway(w)
      move.apply(w, e)
      const refusal = await refusalOf(writeNote(client, 'n.txt'))
      expect(refusal.data).toEqual({ reason: 'not_allowed', detail: 'workspace_moved' })
      expect(refusal.message).toContain(w)
      // Nothing was opened in E's room under its grant, nor a room made.
      const calls = (await harness.client.raw('GET', `/v1/rooms/${roomOfE.id}/timeline`)).body as {
        toolCalls: ToolCallRecord[]
      }
      expect(calls.toolCalls).toHaveLength(1)
      expect((await gatewayRooms()).filter((room) => [w, e].includes(room.workspace))).toHaveLength(
        1,
      )
      const after = await everything(e)
      return {
        // Refused in the gateway itself, before the runtime was asked: the
        // words are the ones the gateway's error carries.
        call: undefined,
        inElsewhere: after.filter((file) => !before.includes(file)),
        inMovedAway: (await everything(`${w}.old`)).filter((file) => file !== 'notes/lists.log'),
      }
    },
  ],
]

describe.each(doors)('%s', (_door, run) => {
  it.each(WORKSPACE_MOVES)(
    'runs nothing once the workspace folder was $name, and says why',
    async (move) => {
      const outcome = await run(move)
      if (outcome.call !== undefined) {
        expect(outcome.call).toMatchObject({
          status: 'refused',
          result: { ok: false, code: 'workspace_moved', message: { code: move.words } },
        })
      }
      expect(outcome.inElsewhere).toEqual([])
      expect(outcome.inMovedAway).toEqual([])
    },
  )
})

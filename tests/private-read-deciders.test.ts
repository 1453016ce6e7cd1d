import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scaledMs } from '../scripts/test-timing.ts'
import type { ApprovalSummary } from '../src/contracts/approval.ts'
import { ApproverWebhookChangeAnswerSchema } from '../src/contracts/approver-webhook.ts'
import type { GatewayCallRequest } from '../src/contracts/mcp-gateway.ts'
import type { PermissionMode } from '../src/contracts/policy-axes.ts'
import { governedRequest } from '../src/runtime/mcp/governed-mcp-action.ts'
import type { ActionReviewer, ReviewInput } from '../src/runtime/policy/reviewer.ts'
import { ApproverServer, signedReply, webhookIdOf } from './support/approver-server.ts'
import { gatewayRequestOf, openGatewayCall } from './support/gateway-call-request.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { writeNotesConfig } from './support/mcp-gateway-harness.ts'
import { putApproverWebhook } from './support/person-only-table.ts'
import { decide, roomApprovals, setMode, toolCallsOf } from './support/policy-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { eventually, type RuntimeHarness } from './support/runtime-harness.ts'
import { scriptedAgentEntry } from './support/scripted-agent-config.ts'

/**
 * A private read (a read reaching outside the room's workspace) is never
 * put before a decider other than the person: neither the approver webhook
 * nor the approve-for-me reviewer hears of it, whichever door it comes
 * through (docs/approver-webhook.md, "Never sent, whatever the room
 * says"). Each kind of read is walked through both, against a real runtime
 * on loopback (in this process, so a reviewer can be handed in), with a
 * read inside the workspace beside it as the control: the same door, which
 * the deciders still answer where the room lets them.
 *
 * Columns: a room under ask-for-approval whose webhook approves anything,
 * and a room under approve-for-me whose reviewer allows anything.
 */

/** A file inside each room's workspace, named relative to it. */
const INSIDE = 'docs/ok.txt'
/** The workspaces of the two columns (below). */
const COLUMN_WORKSPACES = ['ws-webhook', 'ws-reviewer']
/** How long a decider has to speak up, where the row expects silence. */
const GRACE_MS = scaledMs(1_500)

let root: string
let outside: string
let harness: RuntimeHarness
let approver: ApproverServer
const secrets = new Map<string, string>()
const reviewed: ReviewInput[] = []

/** Allows everything it is shown, and keeps what it was shown. */
const ALLOWS_EVERYTHING: ActionReviewer = {
  review: (input) => {
    reviewed.push(input)
    return Promise.resolve({ verdict: 'allow', reason: 'looks fine to me' })
  },
}

/** An ACP agent whose every turn asks to read `path` (absolute, as ACP
 *  names every place) with its `read` tool. */
function readingAgent(id: string, dir: string, path: string): unknown {
  const update = (fields: Record<string, unknown>) => ({
    notification: {
      method: 'session/update',
      params: { sessionId: 'scripted-session', update: fields },
    },
  })
  const entry = scriptedAgentEntry(dir, 'acp', {
    onTurn: [
      update({
        sessionUpdate: 'tool_call',
        toolCallId: 'read-1',
        kind: 'read',
        title: `Read ${path}`,
        status: 'pending',
        locations: [{ path }],
        rawInput: { file_path: path },
      }),
      {
        request: {
          method: 'session/request_permission',
          params: {
            sessionId: 'scripted-session',
            toolCall: { toolCallId: 'read-1' },
            options: [
              { optionId: 'allow', kind: 'allow_once' },
              { optionId: 'reject', kind: 'reject_once' },
            ],
          },
        },
      },
    ],
  }) as Record<string, unknown>
  return { ...entry, id, name: id }
}

beforeAll(async () => {
  // Under /var/tmp: the scripted agents read their plans from here, and a
  // contained agent's /tmp is an empty one of its own.
  root = await realpath(await mkdtemp(join('/var/tmp', 'assent-private-read-')))
  outside = join(root, 'elsewhere', 'secret.txt')
  await mkdir(join(root, 'elsewhere'), { recursive: true })
  await writeFile(outside, 'TOP-SECRET')
  const agents = []
  // One agent reading inside each column's workspace (`roomsFor`).
  const readers: Array<[string, string]> = [
    ['reads-outside', outside],
    ...COLUMN_WORKSPACES.map((name): [string, string] => [
      `reads-inside-${name}`,
      join(root, name, INSIDE),
    ]),
  ]
  for (const [id, path] of readers) {
    await mkdir(join(root, id))
    agents.push(readingAgent(id, join(root, id), path))
  }
  const agentsConfigPath = join(root, 'agents.json')
  await writeFile(agentsConfigPath, JSON.stringify({ agents }))
  const notes = await writeNotesConfig(root)
  harness = await startInProcessRuntime({
    reviewer: ALLOWS_EVERYTHING,
    mcpConfigPath: notes.configPath,
    agentsConfigPath,
  })
  approver = await ApproverServer.start()
  approver.behaviour = (request) =>
    signedReply(secrets.get(webhookIdOf(request)) ?? '', request, '{"approved": true}')
})
afterAll(async () => {
  await approver?.close()
  await harness?.close()
  await rm(root, { recursive: true, force: true })
})

/** The rooms of one column, all in one workspace. */
interface Rooms {
  workspace: string
  assistant: string
  gateway: string
  agents: Record<'reads-outside' | 'reads-inside', string>
}

/** What one read came to, besides who heard of it. */
type Outcome =
  | 'ran unasked'
  | 'allowed by the webhook'
  | 'allowed by the reviewer'
  | 'left to the person'
  | 'left to the person: a private read'

/** What a door was asked to do: the approval it opened, if any (found once
 *  it is decided, left to the person with a reason, or the grace passed),
 *  and the room turn it belongs to. */
interface Asked {
  approval: ApprovalSummary | undefined
  roomId: string
  turnId?: string
}

/** The approval `find` picks out once a decider had its say: decided,
 *  escalated, or still pending after the grace. */
async function settled(
  roomId: string,
  find: (approval: ApprovalSummary) => boolean,
): Promise<ApprovalSummary> {
  const deadline = Date.now() + GRACE_MS
  return eventually(async () => {
    const found = (await roomApprovals(harness, roomId)).find(find)
    if (found === undefined) return undefined
    const spoken = found.status !== 'pending' || found.escalationReason !== undefined
    return spoken || Date.now() > deadline ? found : undefined
  }, 'the approval to be decided, left to the person, or waited for')
}

/** Sends `text` in `roomId`: the approval its one call opened, if any. */
async function turnAsking(roomId: string, text: string): Promise<Asked> {
  const turnId = await send(harness, roomId, text)
  const approval = await eventually(async () => {
    const found = (await roomApprovals(harness, roomId)).find((a) => a.turnId === turnId)
    if (found) return { found }
    const [call] = await toolCallsOf(harness, roomId, turnId)
    return call?.status === 'succeeded' ? { found: undefined } : undefined
  }, `"${text}" to ask or to run`)
  if (approval.found === undefined) return { approval: undefined, roomId, turnId }
  return { approval: await settled(roomId, (a) => a.id === approval.found?.id), roomId, turnId }
}

/** Opens a gateway `resources/read` of `uri` for `workspace`, as
 *  assent-gateway does for an MCP server's resource. */
async function gatewayRead(workspace: string, uri: string): Promise<Asked> {
  const shown = governedRequest(
    {
      id: 'files',
      name: 'Files',
      transport: { type: 'streamable-http', url: 'http://127.0.0.1:1/mcp' },
    } as never,
    'resources/read',
    { uri },
  )
  const request: GatewayCallRequest = gatewayRequestOf(shown, workspace)
  const state = await openGatewayCall(harness, request)
  if (state.approvalId === null) return { approval: undefined, roomId: state.roomId }
  const approval = await settled(state.roomId, (a) => a.id === state.approvalId)
  return { approval, roomId: state.roomId }
}

/** The person denies what is still theirs to decide, and the turn ends. */
async function denyIfPending({ approval, roomId, turnId }: Asked): Promise<void> {
  if (approval?.status === 'pending') {
    const view = await harness.client.getApproval(approval.id)
    expect((await decide(harness, view, 'deny')).status).toBe(200)
  }
  if (turnId !== undefined) await turnSettled(harness, roomId, turnId)
}

/** A column's rooms in a fresh workspace, in `mode`, each with the
 *  approving webhook when `webhook`. */
async function roomsFor(name: string, mode: PermissionMode, webhook: boolean): Promise<Rooms> {
  const workspace = join(root, name)
  await mkdir(join(workspace, 'docs'), { recursive: true })
  await writeFile(join(workspace, INSIDE), 'inside\n')
  // The gateway makes its room with the first call for the workspace.
  const first = await gatewayRead(workspace, `file://${join(workspace, INSIDE)}`)
  await denyIfPending(first)
  const rooms: Rooms = {
    workspace,
    assistant: (await createRoom(harness, { workspace })).id,
    gateway: first.roomId,
    agents: {
      'reads-outside': (await createRoom(harness, { workspace, agentId: 'reads-outside' })).id,
      'reads-inside': (await createRoom(harness, { workspace, agentId: `reads-inside-${name}` }))
        .id,
    },
  }
  for (const roomId of [rooms.assistant, rooms.gateway, ...Object.values(rooms.agents)]) {
    if (mode !== 'ask-for-approval') await setMode(harness, roomId, mode)
    if (!webhook) continue
    const set = await putApproverWebhook(harness, roomId, approver.url)
    expect(set.status).toBe(200)
    const answer = ApproverWebhookChangeAnswerSchema.parse(set.body)
    secrets.set(answer.webhook?.webhookId ?? '', answer.secret ?? '')
  }
  return rooms
}

interface Row {
  read: string
  where: 'outside' | 'inside'
  ask: (rooms: Rooms) => Promise<Asked>
  webhook: Outcome
  reviewer: Outcome
}

const readOf = (where: Row['where']) => (where === 'outside' ? outside : INSIDE)
const mcpRead = (where: Row['where']) => (rooms: Rooms) =>
  turnAsking(
    rooms.assistant,
    // The notes server's read names a note; a server may take any string
    // as a path, and the rule reads each as one.
    `mcp notes read_note ${JSON.stringify({ name: where === 'outside' ? outside : join(rooms.workspace, 'ok.txt') })}`,
  )

/** Each kind of read, outside the workspace and inside it: a built-in
 *  read_file; an MCP tool call in a room whose argument names the file; a
 *  `file://` resources/read through the gateway; an ACP agent's `read`
 *  request (an external agent's own tool). An MCP call is
 *  never the reviewer's (no description of what a server does): under
 *  approve-for-me it is the person's, inside or out. A built-in read
 *  inside the workspace needs no one. */
const ROWS: Row[] = [
  {
    read: 'a built-in read_file',
    where: 'outside',
    ask: (rooms) => turnAsking(rooms.assistant, `read ${outside}`),
    webhook: 'left to the person: a private read',
    reviewer: 'left to the person: a private read',
  },
  {
    read: 'a built-in read_file',
    where: 'inside',
    ask: (rooms) => turnAsking(rooms.assistant, `read ${INSIDE}`),
    webhook: 'ran unasked',
    reviewer: 'ran unasked',
  },
  {
    read: 'an MCP tool argument',
    where: 'outside',
    ask: mcpRead('outside'),
    webhook: 'left to the person: a private read',
    reviewer: 'left to the person',
  },
  {
    read: 'an MCP tool argument',
    where: 'inside',
    ask: mcpRead('inside'),
    webhook: 'allowed by the webhook',
    reviewer: 'left to the person',
  },
  ...(['outside', 'inside'] as const).map((where): Row => ({
    read: 'a gateway resources/read',
    where,
    ask: (rooms) =>
      gatewayRead(
        rooms.workspace,
        `file://${where === 'outside' ? outside : join(rooms.workspace, INSIDE)}`,
      ),
    webhook: where === 'outside' ? 'left to the person: a private read' : 'allowed by the webhook',
    reviewer: 'left to the person',
  })),
  ...(['outside', 'inside'] as const).map((where): Row => ({
    read: 'an ACP agent read',
    where,
    ask: (rooms) => turnAsking(rooms.agents[`reads-${where}`], `read ${readOf(where)}`),
    webhook: where === 'outside' ? 'left to the person: a private read' : 'allowed by the webhook',
    reviewer:
      where === 'outside' ? 'left to the person: a private read' : 'allowed by the reviewer',
  })),
]

function outcomeOf(approval: ApprovalSummary | undefined): Outcome | string {
  if (approval === undefined) return 'ran unasked'
  if (approval.status === 'allowed' && approval.decidedBy === 'webhook') {
    return 'allowed by the webhook'
  }
  if (approval.status === 'allowed' && approval.decidedBy === 'agent-review') {
    return 'allowed by the reviewer'
  }
  if (approval.status !== 'pending') return `${approval.status} by ${approval.decidedBy}`
  if (approval.escalationReason === undefined) return 'left to the person'
  return /private read/.test(approval.escalationReason)
    ? 'left to the person: a private read'
    : `left to the person: ${approval.escalationReason}`
}

describe.each([
  { column: 'webhook', mode: 'ask-for-approval', webhook: true },
  { column: 'reviewer', mode: 'approve-for-me', webhook: false },
] as const)('the $column', ({ column, mode, webhook }) => {
  let rooms: Rooms

  beforeAll(async () => {
    rooms = await roomsFor(`ws-${column}`, mode, webhook)
  })

  it.each(ROWS)(`$read $where the workspace`, async (row) => {
    const reviews = reviewed.length
    const sent = approver.requests.length
    const asked = await row.ask(rooms)
    const { approval } = asked
    const heard = {
      webhook: approver.requests.slice(sent).map((request) => request.body.approvalId),
      reviewer: reviewed.slice(reviews).map((input) => input.toolName),
    }
    expect(outcomeOf(approval)).toBe(row[column])
    if (row[column].startsWith('left to the person')) {
      // Nobody but the person heard of it, and it is still theirs.
      expect(heard).toEqual({ webhook: [], reviewer: [] })
      expect(approval).toMatchObject({ status: 'pending' })
      expect(approval?.decidedBy).toBeUndefined()
    }
    if (row[column] === 'allowed by the webhook') expect(heard.webhook).toEqual([approval?.id])
    if (row[column] === 'allowed by the reviewer') expect(heard.reviewer).toHaveLength(1)
    if (row[column] === 'ran unasked') expect(heard).toEqual({ webhook: [], reviewer: [] })
    await denyIfPending(asked)
  })
})

import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scaledMs } from '../scripts/test-timing.ts'
import { ApproverWebhookChangeAnswerSchema } from '../src/contracts/approver-webhook.ts'
import type { GatewayCallRequest, GovernedMcpMethod } from '../src/contracts/mcp-gateway.ts'
import { governedRequest } from '../src/runtime/mcp/governed-mcp-action.ts'
import type { McpServer } from '../src/runtime/mcp/mcp-connection.ts'
import { ApproverServer, signedReply, webhookIdOf } from './support/approver-server.ts'
import { gatewayRequestOf, openGatewayCall, pinnedFolder } from './support/gateway-call-request.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { NOTES_SERVER } from './support/mcp-gateway-harness.ts'
import { putApproverWebhook } from './support/person-only-table.ts'
import { decide, roomApprovals, toolCallsOf } from './support/policy-helpers.ts'
import { createRoom, pendingApprovalFor, send, turnSettled } from './support/room-helpers.ts'
import { eventually, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * A stdio MCP server with no `cwd` works wherever the process that started
 * it does: `/` for a gateway Claude Desktop starts, the home folder for a
 * runtime started there. A read in the server's own folder is no private
 * read, so that folder counts as inside only where the workspace rule
 * would accept it as a workspace and it does not hold the workspace
 * (read-reach.ts). Otherwise an "always allow" given on reading one file
 * of the workspace would answer, unasked, a read of any file on the disk,
 * and the approver webhook would be sent it.
 *
 * One table of server folders, each with a file only that folder reaches,
 * walked through every door that may answer an MCP read for the person:
 * an "always allow" on the gateway's tool call, resource read and prompt,
 * the approver webhook (which allows everything), and an "always allow"
 * on a room's MCP tool. The last row is the control: a folder that could
 * be a project of its own still counts, and the doors answer for it.
 *
 * The "always" is given on a call that is no private read itself, as no
 * other can be remembered: a tool call naming nothing. Every word of an
 * MCP call is a place it may read, its keys too (`path`, `uri`), taken
 * from the server's folder where relative; so for a server whose folder
 * does not count, a resource read or a prompt (which always has a key)
 * is a private read whatever it names, and no "always" is given on one,
 * even naming the workspace's readme (`workspaceReadAlways`).
 */

/** What happened to the read outside the workspace. */
type Outcome = 'asked the person' | 'answered for the person'

interface Row {
  folder: string
  /** Server folder: an absolute path, once `root` exists. */
  serverFolder: () => string
  /** A file that only the server's folder would make inside. */
  reached: () => string
  outcome: Outcome
  /** What an "always allow" on a resource read or a prompt naming the
   *  workspace's readme is answered: refused (409) where the folder does
   *  not count, as the call's own key names a place in it. */
  workspaceReadAlways: 200 | 409
}

let root: string
/** Each door's workspace: a folder of `root`, so `root` holds them all. */
const workspaceOf = (door: string) => join(root, `ws-${door}`)

const FILE_SYSTEM_ROOT: Row = {
  folder: 'the file-system root',
  serverFolder: () => '/',
  reached: () => join(root, 'elsewhere', 'diary.txt'),
  outcome: 'asked the person',
  workspaceReadAlways: 409,
}

const ROWS: Row[] = [
  FILE_SYSTEM_ROOT,
  {
    folder: 'the home folder',
    serverFolder: () => homedir(),
    reached: () => join(homedir(), 'assent-never-made', 'diary.txt'),
    outcome: 'asked the person',
    workspaceReadAlways: 409,
  },
  {
    folder: 'a system folder',
    serverFolder: () => '/usr',
    reached: () => '/usr/assent-never-made/diary.txt',
    outcome: 'asked the person',
    workspaceReadAlways: 409,
  },
  {
    folder: 'a folder that holds the workspace',
    serverFolder: () => root,
    reached: () => join(root, 'elsewhere', 'diary.txt'),
    outcome: 'asked the person',
    workspaceReadAlways: 409,
  },
  {
    folder: 'another project folder (control)',
    serverFolder: () => join(root, 'other-project'),
    reached: () => join(root, 'other-project', 'notes.txt'),
    outcome: 'answered for the person',
    workspaceReadAlways: 200,
  },
]

/** A server id per row, so no row's grant answers another's. */
const serverIdOf = (row: Row) => `reach-${ROWS.indexOf(row)}`

let harness: RuntimeHarness
let approver: ApproverServer
let webhookRoom: string
const secrets = new Map<string, string>()

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'assent-folder-reach-')))
  for (const folder of ['elsewhere', 'other-project', 'notes']) {
    await mkdir(join(root, folder), { recursive: true })
  }
  await writeFile(join(root, 'elsewhere', 'diary.txt'), 'private\n')
  await writeFile(join(root, 'other-project', 'notes.txt'), 'notes\n')
  for (const door of ['gateway', 'webhook', 'room']) {
    await mkdir(workspaceOf(door), { recursive: true })
    await writeFile(join(workspaceOf(door), 'readme.md'), 'readme\n')
  }
  // A room's servers: the notes server once per row, started in its folder.
  const env = { NOTES_DIR: join(root, 'notes') }
  const servers = ROWS.map((row) => ({
    id: serverIdOf(row),
    name: `Reader in ${row.folder}`,
    transport: {
      type: 'stdio',
      command: process.execPath,
      args: [NOTES_SERVER],
      env,
      cwd: row.serverFolder(),
    },
    allowed_tools: ['read_note'],
  }))
  const mcpConfigPath = join(root, 'mcp.json')
  await writeFile(mcpConfigPath, JSON.stringify({ servers }))
  harness = await startInProcessRuntime({ mcpConfigPath })
  approver = await ApproverServer.start()
  approver.behaviour = (request) =>
    signedReply(secrets.get(webhookIdOf(request)) ?? '', request, '{"approved": true}')
  // The webhook's gateway room, made by its first call.
  const first = await openGatewayCall(harness, toolRead(FILE_SYSTEM_ROOT, 'webhook', 'readme.md'))
  await denyIfPending(first.approvalId)
  webhookRoom = first.roomId
  const set = await putApproverWebhook(harness, webhookRoom, approver.url)
  expect(set.status).toBe(200)
  const answer = ApproverWebhookChangeAnswerSchema.parse(set.body)
  secrets.set(answer.webhook?.webhookId ?? '', answer.secret ?? '')
})
afterAll(async () => {
  await approver?.close()
  await harness?.close()
  if (root !== undefined) await rm(root, { recursive: true, force: true })
})

/** The row's server as the gateway describes it, started in its folder. */
function serverOf(row: Row): McpServer {
  return {
    id: serverIdOf(row),
    name: `Reader in ${row.folder}`,
    transport: {
      type: 'stdio',
      command: 'reader',
      args: [],
      env: {},
      cwd: row.serverFolder(),
    },
    allowed_tools: ['read_path'],
    requires_approval: true,
    manifest: { readonly: false },
  }
}

/** A gateway's request to call the row's `read_path` for `door`'s
 *  workspace, naming `path` (absolute, or relative to the workspace), or
 *  nothing when it is null. */
function toolRead(row: Row, door: string, path: string | null): GatewayCallRequest {
  const hash = 'c'.repeat(64)
  return {
    workspaceIdentity: pinnedFolder(workspaceOf(door)),
    serverId: serverIdOf(row),
    serverName: `Reader in ${row.folder}`,
    toolName: 'read_path',
    toolDescription: 'Reads the text file at path.',
    inputSchemaHash: hash,
    definitionHash: hash,
    arguments: path === null ? {} : { path: join(workspaceOf(door), path) },
    preview: null,
    serverTools: { names: ['read_path'], hash },
    serverFolder: row.serverFolder(),
  }
}

/** A gateway's governed request (`method`) on the row's server, whose
 *  arguments name `path`, as assent-gateway sends it. */
function governedRead(row: Row, method: GovernedMcpMethod, path: string): GatewayCallRequest {
  const args =
    method === 'resources/read'
      ? { uri: `notes://${path}` }
      : { name: 'summarize', arguments: { file: path } }
  return gatewayRequestOf(governedRequest(serverOf(row), method, args), workspaceOf('gateway'))
}

async function denyIfPending(approvalId: string | null): Promise<void> {
  if (approvalId === null) return
  const view = await harness.client.getApproval(approvalId)
  if (view.approval.status !== 'pending') return
  expect((await decide(harness, view, 'deny')).status).toBe(200)
}

/** The person allows always what `first` opens, answered `always` (one
 *  refused is denied); then `attack` is opened: answered by the grant, or
 *  asked (and denied). */
async function throughGatewayGrant(
  first: GatewayCallRequest,
  attack: GatewayCallRequest,
  always: 200 | 409 = 200,
): Promise<Outcome> {
  const opened = await openGatewayCall(harness, first)
  expect(opened.status).toBe('pending')
  const view = await harness.client.getApproval(opened.approvalId ?? '')
  expect((await decide(harness, view, 'allow-always')).status).toBe(always)
  await denyIfPending(opened.approvalId)
  const second = await openGatewayCall(harness, attack)
  if (second.status === 'allowed' && second.grantId !== null) return 'answered for the person'
  expect(second.status).toBe('pending')
  await denyIfPending(second.approvalId)
  return 'asked the person'
}

const GRACE_MS = scaledMs(1_500)

/** The webhook allows everything it is sent: what it was not sent waits
 *  for the person, with the reason. */
async function throughWebhook(row: Row): Promise<Outcome> {
  const sent = approver.requests.length
  const opened = await openGatewayCall(harness, toolRead(row, 'webhook', row.reached()))
  const id = opened.approvalId ?? ''
  const deadline = Date.now() + GRACE_MS
  const approval = await eventually(async () => {
    const found = (await roomApprovals(harness, webhookRoom)).find((a) => a.id === id)
    const spoken = found?.status !== 'pending' || found.escalationReason !== undefined
    return found !== undefined && (spoken || Date.now() > deadline) ? found : undefined
  }, 'the webhook to answer, or the approval to be left to the person')
  if (approval.status === 'allowed' && approval.decidedBy === 'webhook') {
    return 'answered for the person'
  }
  expect(approval.status).toBe('pending')
  expect(approval.escalationReason).toMatch(/private read/)
  expect(approver.requests.slice(sent)).toEqual([])
  await denyIfPending(id)
  return 'asked the person'
}

/** In a room: the person allows always the row's server's tool called
 *  with nothing; then the agent reads the row's file. */
async function throughRoomGrant(row: Row, roomId: string): Promise<Outcome> {
  const mcp = (args: object) => `mcp ${serverIdOf(row)} read_note ${JSON.stringify(args)}`
  const view = await pendingApprovalFor(harness, roomId, mcp({}))
  expect((await decide(harness, view, 'allow-always')).status).toBe(200)
  await turnSettled(harness, roomId, view.approval.turnId)
  const turnId = await send(harness, roomId, mcp({ name: row.reached() }))
  const outcome = await eventually(async (): Promise<Outcome | undefined> => {
    const asked = (await roomApprovals(harness, roomId)).find((a) => a.turnId === turnId)
    if (asked !== undefined) {
      await denyIfPending(asked.id)
      return 'asked the person'
    }
    const [call] = await toolCallsOf(harness, roomId, turnId)
    return call?.status === 'succeeded' || call?.status === 'failed'
      ? 'answered for the person'
      : undefined
  }, 'the read to ask or to run')
  await turnSettled(harness, roomId, turnId)
  return outcome
}

describe.each(ROWS)('a server working in $folder', (row) => {
  it('an "always allow" on a gateway tool call', async () => {
    const outcome = await throughGatewayGrant(
      toolRead(row, 'gateway', null),
      toolRead(row, 'gateway', row.reached()),
    )
    expect(outcome).toBe(row.outcome)
  })

  it.each(['resources/read', 'prompts/get'] as const)(
    'an "always allow" on a gateway %s',
    async (method) => {
      const outcome = await throughGatewayGrant(
        governedRead(row, method, join(workspaceOf('gateway'), 'readme.md')),
        governedRead(row, method, row.reached()),
        row.workspaceReadAlways,
      )
      expect(outcome).toBe(row.outcome)
    },
  )

  it('the approver webhook, which allows everything', async () => {
    expect(await throughWebhook(row)).toBe(row.outcome)
  })

  it('an "always allow" on a room’s MCP tool', async () => {
    const room = await createRoom(harness, { workspace: workspaceOf('room') })
    expect(await throughRoomGrant(row, room.id)).toBe(row.outcome)
  })
})

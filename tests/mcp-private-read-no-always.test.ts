import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalView } from '../src/contracts/approval.ts'
import type { GatewayCallRequest, GovernedMcpMethod } from '../src/contracts/mcp-gateway.ts'
import { governedRequest } from '../src/runtime/mcp/governed-mcp-action.ts'
import type { McpServer } from '../src/runtime/mcp/mcp-connection.ts'
import { gatewayRequestOf, openGatewayCall, pinnedFolder } from './support/gateway-call-request.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { writeNotesConfig } from './support/mcp-gateway-harness.ts'
import { decide, roomApprovals, toolCallsOf } from './support/policy-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { eventually, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * "Always allow" is not offered, and refused if asked for, on an MCP call
 * that is itself a private read: a tool call, a resource read or a prompt
 * naming a place outside the workspace and the server's own folder. No
 * grant answers such a read at any door (private-read-approval.ts), so
 * the very call the person was shown would ask again, and the grant
 * would answer only the tool's other calls, which nobody saw. One table
 * of doors, each asked about a file outside the workspace and then, the
 * same call, about one inside: that one is still asked (no grant came of
 * the first), and is offered "always", as before.
 */

let root: string
let harness: RuntimeHarness
let roomId: string
const workspaceOf = (door: string) => join(root, `ws-${door}`)
const outside = () => join(root, 'elsewhere', 'diary.txt')

/** What a door opened: the approval the person is shown, and how the
 *  test ends the call it asks about. */
interface Asked {
  view: ApprovalView
  settle: () => Promise<void>
}

interface Door {
  door: string
  workspace: string
  /** Opens the door's call naming `place`: its approval, or null when
   *  nobody was asked (a grant answered). */
  open: (place: string) => Promise<Asked | null>
}

/** The notes server as assent-gateway describes it, in a project folder
 *  of its own (which counts as inside: reads there are its own). */
const gatewayServer = (): McpServer => ({
  id: 'reader',
  name: 'Reader',
  transport: { type: 'stdio', command: 'reader', args: [], env: {}, cwd: join(root, 'server') },
  allowed_tools: ['read_path'],
  requires_approval: true,
  manifest: { readonly: false },
})

async function throughGateway(
  method: 'tools/call' | GovernedMcpMethod,
  place: string,
): Promise<Asked | null> {
  const server = gatewayServer()
  const request =
    method === 'tools/call'
      ? toolCall(server, place)
      : gatewayRequestOf(
          governedRequest(
            server,
            method,
            method === 'resources/read'
              ? { uri: `notes://${place}` }
              : { name: 'summarize', arguments: { file: place } },
          ),
          workspaceOf('gateway'),
        )
  const opened = await openGatewayCall(harness, request)
  if (opened.status !== 'pending') return null
  const view = await harness.client.getApproval(opened.approvalId ?? '')
  return { view, settle: () => denyIfPending(view.approval.id) }
}

/** A gateway's tool call of the reader's `read_path`, naming `place`. */
function toolCall(server: McpServer, place: string): GatewayCallRequest {
  const hash = 'c'.repeat(64)
  return {
    workspaceIdentity: pinnedFolder(workspaceOf('gateway')),
    serverId: server.id,
    serverName: server.name,
    toolName: 'read_path',
    toolDescription: 'Reads the text file at path.',
    inputSchemaHash: hash,
    definitionHash: hash,
    arguments: { path: place },
    preview: null,
    serverTools: { names: ['read_path'], hash },
    serverFolder: join(root, 'server'),
  }
}

/** A room's agent reads `place` with the notes server's `read_note`. */
async function throughRoom(place: string): Promise<Asked | null> {
  const turnId = await send(
    harness,
    roomId,
    `mcp notes read_note ${JSON.stringify({ name: place })}`,
  )
  const asked = await eventually(async () => {
    const found = (await roomApprovals(harness, roomId)).find((a) => a.turnId === turnId)
    if (found !== undefined) return { id: found.id }
    const [call] = await toolCallsOf(harness, roomId, turnId)
    return call?.status === 'succeeded' || call?.status === 'failed' ? { id: null } : undefined
  }, 'the read to ask or to run')
  const settled = () => turnSettled(harness, roomId, turnId)
  if (asked.id === null) {
    await settled()
    return null
  }
  const view = await harness.client.getApproval(asked.id)
  return {
    view,
    settle: async () => {
      await denyIfPending(view.approval.id)
      await settled()
    },
  }
}

const DOORS: Door[] = [
  { door: 'a room’s MCP tool', workspace: 'room', open: throughRoom },
  {
    door: 'assent-gateway tools/call',
    workspace: 'gateway',
    open: (place) => throughGateway('tools/call', place),
  },
  {
    door: 'assent-gateway resources/read',
    workspace: 'gateway',
    open: (place) => throughGateway('resources/read', place),
  },
  {
    door: 'assent-gateway prompts/get',
    workspace: 'gateway',
    open: (place) => throughGateway('prompts/get', place),
  },
]

async function denyIfPending(approvalId: string): Promise<void> {
  const view = await harness.client.getApproval(approvalId)
  if (view.approval.status !== 'pending') return
  expect((await decide(harness, view, 'deny')).status).toBe(200)
}

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'assent-private-read-always-')))
  for (const folder of ['elsewhere', 'server', 'ws-room', 'ws-gateway']) {
    await mkdir(join(root, folder), { recursive: true })
  }
  await writeFile(outside(), 'private\n')
  for (const door of ['room', 'gateway']) {
    await writeFile(join(workspaceOf(door), 'readme.md'), 'readme\n')
  }
  const notes = await writeNotesConfig(root)
  harness = await startInProcessRuntime({ mcpConfigPath: notes.configPath })
  roomId = (await createRoom(harness, { workspace: workspaceOf('room') })).id
})
afterAll(async () => {
  await harness?.close()
  if (root !== undefined) await rm(root, { recursive: true, force: true })
})

describe('no "always allow" on an MCP call that reads beyond the workspace', () => {
  it('offers none and refuses one asked for, at every door; the same call inside still asks, offering it', async () => {
    const seen = []
    for (const row of DOORS) {
      const asked = await row.open(outside())
      if (asked === null) throw new Error(`${row.door}: the read outside was not asked`)
      const { view } = asked
      const outcome = {
        door: row.door,
        offered: view.alwaysAllowAvailable,
        serverWideOffered: view.serverAlwaysAllowAvailable ?? false,
        allowAlways: (await decide(harness, view, 'allow-always')).status,
        allowAlwaysServer: (await decide(harness, view, 'allow-always-server')).status,
      }
      await asked.settle()
      // Inside the workspace: asked, so no grant came of the read outside.
      const inside = await row.open(join(workspaceOf(row.workspace), 'readme.md'))
      seen.push({ ...outcome, insideOffered: inside?.view.alwaysAllowAvailable ?? 'not asked' })
      await inside?.settle()
    }
    expect(seen).toEqual(
      DOORS.map((row) => ({
        door: row.door,
        offered: false,
        serverWideOffered: false,
        allowAlways: 409,
        allowAlwaysServer: 409,
        insideOffered: true,
      })),
    )
  })
})

import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import {
  getDefaultEnvironment,
  StdioClientTransport,
} from '@modelcontextprotocol/sdk/client/stdio.js'
import { z } from 'zod'
import { ApprovalSummarySchema, type ApprovalView } from '../../src/contracts/approval.ts'
import type { ApprovalDecision } from '../../src/contracts/consent.ts'
import { RoomSchema, type Room } from '../../src/contracts/room.ts'
import { GATEWAY_AGENT_ID } from '../../src/runtime/domain/agent-preset.ts'
import { WAIT_TIMEOUT_MS } from '../../scripts/test-timing.ts'
import { eventually, startHarness, type RuntimeHarness } from './runtime-harness.ts'

export const GATEWAY_ENTRY = fileURLToPath(new URL('../../src/gateway/main.ts', import.meta.url))
export const NOTES_SERVER = fileURLToPath(
  new URL('../fixtures/mcp-notes-server.ts', import.meta.url),
)

/** Longer than any protected window in these tests, so the SDK never cuts a
 *  pending consent short on the agent's side. */
export const AGENT_REQUEST_TIMEOUT_MS = 300_000

export interface NotesFixture {
  notesDir: string
  descriptionFile: string
  configPath: string
}

/** Where a test's own gateway config goes: `mcp.json`, the one name the
 *  gateway serves (gateway-config-kept.ts), in a folder of `root`
 *  named `name`. */
export async function gatewayConfigIn(root: string, name: string): Promise<string> {
  await mkdir(join(root, name), { recursive: true })
  return join(root, name, 'mcp.json')
}

/** An mcp.json with the notes server twice: `notes` (gated, write and read
 *  tools and the preview) and `docs` (a read-only manifest, read only). */
export async function writeNotesConfig(
  root: string,
  extra: Record<string, unknown>[] = [],
): Promise<NotesFixture> {
  const notesDir = join(root, 'notes')
  await mkdir(notesDir, { recursive: true })
  const descriptionFile = join(root, 'write-note-description.txt')
  const env = { NOTES_DIR: notesDir, NOTES_DESCRIPTION_FILE: descriptionFile }
  const stdio = { type: 'stdio', command: process.execPath, args: [NOTES_SERVER], env }
  const configPath = join(root, 'mcp.json')
  await writeFile(
    configPath,
    JSON.stringify({
      servers: [
        {
          id: 'notes',
          name: 'Notes',
          transport: stdio,
          allowed_tools: ['write_note', 'write_note.preview', 'read_note'],
        },
        {
          id: 'docs',
          name: 'Docs (read-only)',
          transport: stdio,
          allowed_tools: ['read_note'],
          manifest: { readonly: true },
        },
        ...extra,
      ],
    }),
  )
  return { notesDir, descriptionFile, configPath }
}

/** A runtime, the notes config (`writeNotesConfig`) in its folder, and
 *  the SDK's client talking to the gateway in front of it. */
export async function startNotesGateway(): Promise<{
  harness: RuntimeHarness
  fixture: NotesFixture
  agent: Client
}> {
  const harness = await startHarness()
  const fixture = await writeNotesConfig(harness.root)
  const agent = (await connectThroughGateway(harness, fixture.configPath)).client
  return { harness, fixture, agent }
}

/** `agent` calls `name` with `args` through the gateway and the person
 *  allows it always: the call's result, and the approval they were shown. */
export async function allowedAlways(
  harness: RuntimeHarness,
  agent: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ result: Awaited<ReturnType<Client['callTool']>>; view: ApprovalView }> {
  const call = agent.callTool({ name, arguments: args }, undefined, {
    timeout: AGENT_REQUEST_TIMEOUT_MS,
  })
  const view = await nextPendingApproval(harness)
  const status = await decide(harness, view, 'allow-always')
  if (status !== 200) throw new Error(`allow-always answered ${status}`)
  return { result: await call, view }
}

/** The SDK's own client, talking to `assent-gateway` over stdio; `client`
 *  when a test declares capabilities (sampling, roots) of its own; `env`
 *  when the gateway should start with variables beyond the SDK's few. */
export async function connectThroughGateway(
  harness: RuntimeHarness,
  configPath: string,
  client: Client = new Client({ name: 'test-agent', version: '1.0.0' }),
  workspace: string = harness.workspace,
  env?: Record<string, string>,
): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    ...(env === undefined ? {} : { env: { ...getDefaultEnvironment(), ...env } }),
    command: process.execPath,
    args: [
      GATEWAY_ENTRY,
      '--config',
      configPath,
      '--data-dir',
      harness.dataDir,
      '--workspace',
      workspace,
    ],
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8')
  })
  // The gateway answers `initialize` once every server behind it started,
  // which on a loaded machine can outlast the SDK's 60 s default.
  await client.connect(transport, { timeout: AGENT_REQUEST_TIMEOUT_MS })
  return { client, stderr: () => stderr }
}

export async function gatewayRoom(
  harness: RuntimeHarness,
  timeoutMs = WAIT_TIMEOUT_MS,
): Promise<Room> {
  return eventually(
    async () => {
      const { rooms } = await harness.client.request(
        z.object({ rooms: z.array(RoomSchema) }),
        'GET',
        '/v1/rooms',
      )
      return rooms.find((room) => room.agentId === GATEWAY_AGENT_ID)
    },
    'the gateway room',
    timeoutMs,
  )
}

/** Waits for a pending approval in the gateway room not among `seen`. A
 *  client that starts the gateway first (a real one, in a process of its
 *  own) may need the ceiling of a process start: `RUNTIME_READY_TIMEOUT_MS`. */
export async function nextPendingApproval(
  harness: RuntimeHarness,
  seen: ReadonlySet<string> = new Set(),
  timeoutMs = WAIT_TIMEOUT_MS,
): Promise<ApprovalView> {
  const room = await gatewayRoom(harness, timeoutMs)
  const summary = await eventually(
    async () => {
      const { approvals } = await harness.client.request(
        z.object({ approvals: z.array(ApprovalSummarySchema) }),
        'GET',
        `/v1/rooms/${room.id}/approvals`,
      )
      return approvals.find((approval) => approval.status === 'pending' && !seen.has(approval.id))
    },
    'a pending MCP approval',
    timeoutMs,
  )
  return harness.client.getApproval(summary.id)
}

/** Each call waits for the next pending approval not seen before. */
export function pendingApprovals(harness: RuntimeHarness): () => Promise<ApprovalView> {
  const seen = new Set<string>()
  return async () => {
    const view = await nextPendingApproval(harness, seen)
    seen.add(view.approval.id)
    return view
  }
}

/** The McpError a refused request rejects with. */
export async function refusalOf(call: Promise<unknown>): Promise<McpError> {
  const error = await call.then(
    () => undefined,
    (failure: unknown) => failure,
  )
  if (!(error instanceof McpError)) throw new Error(`expected an McpError, got ${String(error)}`)
  return error
}

/** The person's decision, given the way main gives it: a consent token
 *  minted with this runtime's consent key for exactly this action. */
export async function decide(
  harness: RuntimeHarness,
  view: ApprovalView,
  decision: ApprovalDecision,
): Promise<number> {
  const token = harness.mintApproval(view.approval.id, decision, view.actionDigest)
  const response = await harness.client.decideApproval(
    view.approval.id,
    decision,
    token,
    view.actionDigest,
  )
  return response.status
}

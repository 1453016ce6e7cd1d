import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { PermissionMode } from '../src/contracts/policy-axes.ts'
import { RoomSchema, type Room } from '../src/contracts/room.ts'
import { RuntimeConsentClient } from '../src/gateway/runtime-consent-client.ts'
import { runGatedMcpCall } from '../src/runtime/mcp/gated-mcp-call.ts'
import { McpConnection } from '../src/runtime/mcp/mcp-connection.ts'
import { parseMcpConfigFile } from '../src/runtime/mcp/mcp-config-loader.ts'
import { McpRefusal } from '../src/runtime/mcp/mcp-refusal.ts'
import { GATEWAY_AGENT_ID } from '../src/runtime/domain/agent-preset.ts'
import { pinnedFolder } from './support/gateway-call-request.ts'
import {
  connectThroughGateway,
  decide,
  gatewayConfigIn,
  gatewayRoom,
  NOTES_SERVER,
} from './support/mcp-gateway-harness.ts'
import { MODEL_ANSWER, ODD_NAMES_SERVER, samplingClient } from './support/mcp-real-servers.ts'
import { roomApprovals, setMode } from './support/policy-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * Plan mode refuses every MCP call before anything is consulted or run, a
 * read-only server's included: at the gateway too, which runs a read-only
 * manifest's calls without asking the runtime. It watches the room's mode
 * instead (POST /v1/gateway/mode, a long poll) and refuses, in plan, each
 * kind of request it would otherwise run unasked. Each row is one kind, and
 * says how many times such a request reached the server (or the agent's
 * model): never in plan, once each time in ask-for-approval, before plan
 * and after it.
 */

const callOptions = { timeout: 300_000 }

let harness: RuntimeHarness
let agent: Client
let stderr: () => string
let sampled: readonly unknown[]
let notesDir: string
let oddDir: string
/** The gateway's port, in this process: for the approval-free tool. */
let inProcess: RuntimeConsentClient
let inProcessConnection: McpConnection
const inProcessLog: string[] = []

/** What one request came to: it ran (or, gated, its preview ran and the
 *  person was asked), or it was refused before that. */
interface Outcome {
  ran: boolean
  detail?: string | undefined
  message?: string
}

interface Row {
  kind: string
  /** What the row starts while the room is not in plan (a server's
   *  sampling comes during a call that began before). */
  arm?: () => Promise<void>
  request: () => Promise<Outcome>
  /** How many times such a request has reached the server or the model. */
  reached: () => number
}

const lines = (file: string) =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').length - 1 : 0

/** The refusal a request rejected with, as an outcome. */
function refused(error: unknown): Outcome {
  if (error instanceof McpError || error instanceof McpRefusal) {
    const data = error.data as { detail?: string } | undefined
    return { ran: false, detail: data?.detail, message: error.message }
  }
  throw error
}
const ran = (): Outcome => ({ ran: true })

let sampling: Promise<string> | undefined

/** The gateway room, if it exists yet. */
async function roomNow(): Promise<Room | undefined> {
  const { rooms } = await harness.client.request(
    z.object({ rooms: z.array(RoomSchema) }),
    'GET',
    '/v1/rooms',
  )
  return rooms.find((room) => room.agentId === GATEWAY_AGENT_ID)
}

/** The gateway room's pending approval, if any. */
async function pendingApproval(): Promise<{ id: string } | undefined> {
  const room = await roomNow()
  if (room === undefined) return undefined
  return (await roomApprovals(harness, room.id)).find((approval) => approval.status === 'pending')
}

/** Runs `request`; where the person is asked about it, they allow it
 *  once, so it reaches the server as an unasked one would. */
async function allowedIfAsked(request: () => Promise<Outcome>): Promise<Outcome> {
  let settled: Outcome | undefined
  const call = request().then((outcome) => (settled = outcome))
  const asked = await eventually(
    async () => (settled ? { settled } : await pendingApproval()),
    'the request to settle or be asked about',
  )
  if ('settled' in asked) return asked.settled
  const view = await harness.client.getApproval(asked.id)
  expect(await decide(harness, view, 'allow-once')).toBe(200)
  return call
}

const ROWS: Row[] = [
  {
    kind: "a read-only manifest server's tool call",
    request: () =>
      agent
        .callTool(
          { name: 'docs__read_note', arguments: { name: 'hello.txt' } },
          undefined,
          callOptions,
        )
        .then(ran, refused),
    reached: () => lines(join(notesDir, 'reads.log')),
  },
  {
    kind: 'an approval-free tool (the same shared path, in process)',
    request: () =>
      runGatedMcpCall(
        inProcessConnection,
        'read_note',
        { name: 'free.txt' },
        inProcess,
        harness.workspace,
      ).then(ran, refused),
    reached: () => lines(join(notesDir, 'reads.log')),
  },
  {
    // `note://plain` names the place `/plain` to the rule (a server may map
    // its own scheme to any file), outside the workspace: a private read,
    // which asks even on a read-only server. Outside plan the person
    // allows it once; in plan nobody is asked.
    kind: "resources/read on a read-only manifest's server",
    request: () =>
      allowedIfAsked(() =>
        agent.readResource({ uri: 'odd__note://plain' }, callOptions).then(ran, refused),
      ),
    reached: () => lines(join(oddDir, 'reads.log')),
  },
  {
    kind: "prompts/get on a read-only manifest's server",
    request: () => agent.getPrompt({ name: 'odd__plain-prompt' }, callOptions).then(ran, refused),
    reached: () => lines(join(oddDir, 'reads.log')),
  },
  {
    kind: "a read-only manifest server's sampling request",
    async arm() {
      rmSync(join(oddDir, 'go'), { force: true })
      rmSync(join(oddDir, 'sampling-started'), { force: true })
      sampling = agent
        .callTool({ name: 'odd__sample_when_told', arguments: {} }, undefined, callOptions)
        .then((result) => JSON.stringify(result.content))
      await eventually(
        () => existsSync(join(oddDir, 'sampling-started')) || undefined,
        'the server to be about to sample',
      )
    },
    async request() {
      writeFileSync(join(oddDir, 'go'), 'go')
      const answer = (await sampling) ?? ''
      if (answer.includes(MODEL_ANSWER)) return { ran: true }
      const detail = answer.includes('plan mode') ? 'not_offered_in_plan' : answer
      return { ran: false, detail, message: answer }
    },
    reached: () => sampled.length,
  },
  {
    kind: "a gated tool's preview",
    async request() {
      let settled: Outcome | undefined
      const call = agent
        .callTool(
          { name: 'notes__write_note', arguments: { name: 'gated.txt', text: 'x' } },
          undefined,
          callOptions,
        )
        .then(ran, refused)
        .then((outcome) => (settled = outcome))
      // Refused at once, or asked after its preview ran.
      const asked = await eventually(
        async () => (settled ? { settled } : await pendingApproval()),
        'the call to be refused or asked about',
      )
      if ('settled' in asked) return asked.settled
      // The person denies, as before plan: it was asked, which is what ran.
      expect(await decide(harness, await harness.client.getApproval(asked.id), 'deny')).toBe(200)
      await call
      return { ran: true }
    },
    reached: () => lines(join(notesDir, 'previews.log')),
  },
]

/** Until the gateway, and the port in this process, say they learned
 *  `mode` (the watch logs each change of what it holds). */
async function learned(mode: PermissionMode | 'unknown'): Promise<void> {
  const said =
    mode === 'unknown' ? 'cannot confirm' : mode === 'plan' ? 'is in plan mode' : 'asks the person'
  const last = (log: string) =>
    log
      .split('\n')
      .filter((line) => /cannot confirm|is in plan mode|asks the person/.test(line))
      .at(-1) ?? ''
  await eventually(
    () =>
      (last(stderr()).includes(said) && last(inProcessLog.join('\n')).includes(said)) || undefined,
    `the gateway to learn ${mode}`,
  )
}

async function switchTo(mode: PermissionMode): Promise<void> {
  const room = await gatewayRoom(harness)
  expect((await setMode(harness, room.id, mode)).mode).toBe(mode)
  await learned(mode)
}

/** Each row once: every one runs, or every one is refused in plan's name
 *  and reaches nothing. */
async function everyRow(expectRun: boolean): Promise<void> {
  const room = await roomNow()
  const approvalsBefore = room ? (await roomApprovals(harness, room.id)).length : 0
  for (const row of ROWS) {
    const before = row.reached()
    const outcome = await row.request()
    expect(outcome.ran, `${row.kind}: ${outcome.message ?? ''}`).toBe(expectRun)
    expect(row.reached(), row.kind).toBe(before + (expectRun ? 1 : 0))
    if (!expectRun) expect(outcome.detail, row.kind).toBe('not_offered_in_plan')
  }
  if (!expectRun && room) {
    // Nobody was asked about anything: no approval was opened.
    expect((await roomApprovals(harness, room.id)).length).toBe(approvalsBefore)
  }
}

async function armEvery(): Promise<void> {
  for (const row of ROWS) await row.arm?.()
}

beforeAll(async () => {
  harness = await startHarness()
  notesDir = join(harness.root, 'notes')
  oddDir = join(harness.root, 'odd')
  mkdirSync(notesDir)
  mkdirSync(oddDir)
  const configPath = await gatewayConfigIn(harness.root, 'plan')
  const notes = {
    type: 'stdio',
    command: process.execPath,
    args: [NOTES_SERVER],
    env: { NOTES_DIR: notesDir },
  }
  await writeFile(
    configPath,
    JSON.stringify({
      servers: [
        {
          id: 'notes',
          name: 'Notes',
          transport: notes,
          allowed_tools: ['write_note', 'write_note.preview', 'read_note'],
        },
        {
          id: 'docs',
          transport: notes,
          allowed_tools: ['read_note'],
          manifest: { readonly: true },
        },
        {
          id: 'odd',
          transport: {
            type: 'stdio',
            command: process.execPath,
            args: [ODD_NAMES_SERVER],
            env: { ODD_DIR: oddDir },
          },
          allowed_tools: ['sample_when_told'],
          manifest: { readonly: true },
        },
      ],
    }),
  )
  const host = samplingClient(harness.workspace)
  sampled = host.sampled
  ;({ client: agent, stderr } = await connectThroughGateway(harness, configPath, host.client))
  writeFileSync(join(notesDir, 'hello.txt'), 'hello from docs')
  writeFileSync(join(notesDir, 'free.txt'), 'read unasked')
  // Only Assent's built-in server has approval-free tools, and it runs in
  // the runtime; the same path, through the gateway's port, shows them.
  const gated = parseMcpConfigFile(configPath).servers.find((server) => server.id === 'notes')
  if (gated === undefined) throw new Error('no notes server')
  inProcessConnection = new McpConnection(
    { ...gated, approvalFreeTools: ['read_note'] },
    { requestTimeoutMs: 60_000, stderr: 'ignore' },
  )
  inProcess = new RuntimeConsentClient({
    dataDir: harness.dataDir,
    workspaceIdentity: pinnedFolder(harness.workspace),
    log: (line) => inProcessLog.push(line),
  })
  inProcess.watchMode()
}, 300_000)
afterAll(async () => {
  await agent?.close()
  await inProcess?.drain()
  await inProcessConnection?.close()
  await harness?.close()
})

describe('assent-gateway in plan mode', () => {
  it('runs each kind under ask-for-approval, as before plan', async () => {
    await learned('ask-for-approval')
    await armEvery()
    await everyRow(true)
  }, 300_000)

  it('refuses each kind in plan, and nothing reaches a server or the model', async () => {
    await armEvery()
    await switchTo('plan')
    await everyRow(false)
  }, 300_000)

  it('runs each kind again once the room leaves plan', async () => {
    await switchTo('ask-for-approval')
    await armEvery()
    await everyRow(true)
  }, 300_000)

  it('refuses what would run unasked while the runtime cannot confirm the mode', async () => {
    const reads = () => lines(join(notesDir, 'reads.log'))
    const before = reads()
    await harness.supervisor.stop()
    await learned('unknown')
    const outcome = await agent
      .callTool(
        { name: 'docs__read_note', arguments: { name: 'hello.txt' } },
        undefined,
        callOptions,
      )
      .then(ran, refused)
    expect(outcome).toMatchObject({ ran: false, detail: 'mode_unknown' })
    expect(outcome.message).toContain("Assent's runtime cannot confirm the gateway room's mode")
    expect(reads()).toBe(before)

    // Found again once the runtime is back (a new port, a new credential).
    await harness.supervisor.start()
    await learned('ask-for-approval')
    const again = await agent.callTool(
      { name: 'docs__read_note', arguments: { name: 'hello.txt' } },
      undefined,
      callOptions,
    )
    expect(JSON.stringify(again.content)).toContain('hello from docs')
    expect(reads()).toBe(before + 1)
  }, 300_000)
})

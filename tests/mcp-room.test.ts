import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NOTES_SERVER, writeNotesConfig, type NotesFixture } from './support/mcp-gateway-harness.ts'
import { pendingInputFor, respond } from './support/input-helpers.ts'
import { createRoom, pendingApprovalFor, send, turnSettled } from './support/room-helpers.ts'
import { z } from 'zod'
import {
  BUILT_RUNTIME_ENTRY,
  RUNTIME_ENTRY,
  eventually,
  startHarness,
  type RuntimeHarness,
} from './support/runtime-harness.ts'

async function auditTypes(harness: RuntimeHarness): Promise<Array<Record<string, unknown>>> {
  const exported = await harness.client.request(
    z.object({ events: z.array(z.record(z.string(), z.unknown())) }),
    'GET',
    '/v1/audit/export',
  )
  return exported.events
}

/** The notes fixture once more, offering only the tool that asks for a form
 *  (gated: a call nobody was asked about may show the person no form). */
const ASKER_SERVER = {
  id: 'asker',
  name: 'Asker',
  transport: {
    type: 'stdio',
    command: process.execPath,
    args: [NOTES_SERVER],
    env: { NOTES_DIR: tmpdir() },
  },
  allowed_tools: ['ask_title'],
}

// The source, as the tests and the CDP host run it, and the bundle the app
// forks (out/main/runtime.js, built for the tests by build-once.ts), whose
// zod is bundled while the MCP SDK it loads brings its own.
describe.each([
  ['source', RUNTIME_ENTRY],
  ['built', BUILT_RUNTIME_ENTRY],
])("the runtime (%s) as an MCP client: an agent's MCP calls in a room", (_kind, runtimeEntry) => {
  let harness: RuntimeHarness
  let fixture: NotesFixture

  beforeAll(async () => {
    const root = await mkdtemp(join(tmpdir(), 'assent-mcp-room-'))
    fixture = await writeNotesConfig(root, [ASKER_SERVER])
    harness = await startHarness({ root, mcpConfigPath: fixture.configPath, runtimeEntry })
  })
  afterAll(async () => {
    await harness?.close()
    await rm(harness.root, { recursive: true, force: true })
  })

  it('asks the person before a gated MCP tool, and runs it after an allow', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(
      harness,
      room.id,
      'mcp notes write_note {"name": "room.txt", "text": "from the room"}',
    )
    expect(view.approval.kind).toBe('mcp-tool-call')
    expect(view.action.mcp?.serverName).toBe('Notes')
    expect(view.action.mcp?.preview).toBe('room.txt: absent -> "from the room"')
    expect(existsSync(join(fixture.notesDir, 'room.txt'))).toBe(false)
    const token = harness.mintApproval(view.approval.id, 'allow-once', view.actionDigest)
    const decided = await harness.client.decideApproval(
      view.approval.id,
      'allow-once',
      token,
      view.actionDigest,
    )
    expect(decided.status).toBe(200)
    const settled = await turnSettled(harness, room.id, view.approval.turnId)
    expect(settled.toolCalls[0]).toMatchObject({
      toolName: 'notes__write_note',
      status: 'succeeded',
      result: { ok: true, output: 'wrote room.txt' },
    })
    expect(await readFile(join(fixture.notesDir, 'room.txt'), 'utf8')).toBe('from the room')
  })

  it("turns a server's request for input during a call into a form in that room", async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'mcp asker ask_title {}')
    const token = harness.mintApproval(view.approval.id, 'allow-once', view.actionDigest)
    await harness.client.decideApproval(view.approval.id, 'allow-once', token, view.actionDigest)
    const turnId = view.approval.turnId
    const form = await pendingInputFor(harness, room.id, turnId)
    expect(form.kind).toBe('form')
    expect(form.form?.message).toBe('Which title should the note get?')
    const answered = await respond(harness, form.id, {
      action: 'accept',
      content: { title: 'Groceries' },
    })
    expect(answered.status).toBe(200)
    const settled = await turnSettled(harness, room.id, turnId)
    expect(settled.toolCalls[0]).toMatchObject({
      toolName: 'asker__ask_title',
      status: 'succeeded',
      result: { ok: true, output: 'accept: {"title":"Groceries"}' },
    })
  })

  it('reads through the built-in filesystem server without asking, inside the workspace only', async () => {
    await writeFile(join(harness.workspace, 'inside.txt'), 'workspace text')
    const room = await createRoom(harness)
    const turnId = await send(
      harness,
      room.id,
      [
        'mcp filesystem read_file {"path": "inside.txt"}',
        `mcp filesystem read_file {"path": "${join(fixture.notesDir, 'room.txt')}"}`,
      ].join('\n'),
    )
    const settled = await turnSettled(harness, room.id, turnId)
    expect(settled.approvals).toEqual([])
    expect(settled.toolCalls.map((call) => [call.status, call.result?.output])).toEqual([
      ['succeeded', 'workspace text'],
      ['failed', expect.stringContaining('outside')],
    ])
  })

  it("gates the built-in filesystem server's writes", async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(
      harness,
      room.id,
      'mcp filesystem write_file {"path": "made.txt", "content": "ok"}',
    )
    expect(view.action.mcp?.serverId).toBe('filesystem')
    expect(existsSync(join(harness.workspace, 'made.txt'))).toBe(false)
    const token = harness.mintApproval(view.approval.id, 'deny', view.actionDigest)
    await harness.client.decideApproval(view.approval.id, 'deny', token, view.actionDigest)
    const settled = await turnSettled(harness, room.id, view.approval.turnId)
    expect(settled.toolCalls[0]?.status).toBe('denied')
    expect(existsSync(join(harness.workspace, 'made.txt'))).toBe(false)
  })

  it('starts, asks and runs nothing for an MCP call once the workspace folder was swapped for a link', async () => {
    const a = join(harness.root, `A-${randomUUID()}`)
    const b = join(harness.root, `B-${randomUUID()}`)
    await mkdir(a)
    await mkdir(b)
    const room = await createRoom(harness, { workspace: a })
    // The turn is admitted, and waits on its first call, before the swap.
    const view = await pendingApprovalFor(
      harness,
      room.id,
      'write first.txt x\nmcp filesystem write_file {"path": "made.txt", "content": "ok"}',
    )
    await rename(a, `${a}.old`)
    await symlink(b, a)
    const token = harness.mintApproval(view.approval.id, 'allow-once', view.actionDigest)
    await harness.client.decideApproval(view.approval.id, 'allow-once', token, view.actionDigest)
    const settled = await turnSettled(harness, room.id, view.approval.turnId)
    expect(
      settled.toolCalls.map((call) => [call.toolName, call.status, call.result?.code]),
    ).toEqual([
      ['write_file', 'refused', 'workspace_moved'],
      ['filesystem__write_file', 'refused', 'workspace_moved'],
    ])
    expect(settled.approvals).toHaveLength(1)
    expect(await readdir(b)).toEqual([])
  })

  it('keeps the last good mcp.json when a bad one is found at start, and names the field', async () => {
    const good = await readFile(fixture.configPath, 'utf8')
    const bad = JSON.parse(good) as { servers: Array<{ allowed_tools: string[] }> }
    const first = bad.servers[0]
    if (first) first.allowed_tools = ['*']
    await writeFile(fixture.configPath, JSON.stringify(bad))
    try {
      await harness.restart()
      const refused = await eventually(
        async () =>
          (await auditTypes(harness)).find((event) => event.type === 'mcp_config_refused'),
        'the refusal in the audit log',
      )
      expect(refused.payload).toMatchObject({
        field: 'servers.0.allowed_tools.0',
        serversInForce: ['notes', 'docs', 'asker'],
      })
      // The previous configuration is still in force: notes still asks.
      const room = await createRoom(harness)
      const view = await pendingApprovalFor(
        harness,
        room.id,
        'mcp notes write_note {"name": "still.txt", "text": "still gated"}',
      )
      expect(view.action.mcp?.serverId).toBe('notes')
    } finally {
      await writeFile(fixture.configPath, good)
    }
  })
})

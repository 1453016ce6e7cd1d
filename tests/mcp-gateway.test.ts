import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MCP_REFUSAL_CODES } from '../src/runtime/mcp/mcp-refusal.ts'
import { editDatabase } from './support/integrity-helpers.ts'
import {
  AGENT_REQUEST_TIMEOUT_MS,
  allowedAlways,
  decide,
  gatewayRoom,
  nextPendingApproval,
  refusalOf,
  startNotesGateway,
  type NotesFixture,
} from './support/mcp-gateway-harness.ts'
import { roomGrants } from './support/policy-helpers.ts'
import { timeline } from './support/room-helpers.ts'
import { eventually, type RuntimeHarness } from './support/runtime-harness.ts'

const callOptions = { timeout: AGENT_REQUEST_TIMEOUT_MS }

async function runsOf(fixture: NotesFixture): Promise<string[]> {
  const log = join(fixture.notesDir, 'runs.log')
  return existsSync(log) ? (await readFile(log, 'utf8')).split('\n').filter(Boolean) : []
}

describe('MCP tools behind the protected window, through assent-gateway', () => {
  let harness: RuntimeHarness
  let fixture: NotesFixture
  let agent: Client

  beforeAll(async () => {
    ;({ harness, fixture, agent } = await startNotesGateway())
  })
  afterAll(async () => {
    await agent?.close()
    await harness?.close()
  })

  it('lists only allowed tools, namespaced, and never the preview companions', async () => {
    const { tools } = await agent.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'docs__read_note',
      'notes__read_note',
      'notes__write_note',
    ])
  })

  it('refuses a tool outside allowed_tools as not_allowed, and it never runs', async () => {
    const error = await refusalOf(
      agent.callTool({ name: 'notes__secret_tool', arguments: { name: 'secret.txt' } }),
    )
    expect(error.code).toBe(MCP_REFUSAL_CODES.not_allowed)
    expect(error.data).toEqual({ reason: 'not_allowed' })
    expect(existsSync(join(fixture.notesDir, 'secret.txt'))).toBe(false)
  })

  it('runs a read-only server without asking anyone', async () => {
    await writeFile(join(fixture.notesDir, 'hello.txt'), 'hello from a note')
    const result = await agent.callTool(
      { name: 'docs__read_note', arguments: { name: 'hello.txt' } },
      undefined,
      callOptions,
    )
    expect(result.content).toEqual([{ type: 'text', text: 'hello from a note' }])
    const { rooms } = (await harness.client.raw('GET', '/v1/rooms')).body as {
      rooms: Array<{ agentId: string }>
    }
    expect(rooms.filter((room) => room.agentId === 'mcp-gateway')).toEqual([])
  })

  it('holds a gated call for consent, shows the whole action, and runs it once on allow', async () => {
    const call = agent.callTool(
      { name: 'notes__write_note', arguments: { name: 'plan.txt', text: 'ship on Friday' } },
      undefined,
      callOptions,
    )
    const view = await nextPendingApproval(harness)
    expect(view.approval.kind).toBe('mcp-tool-call')
    expect(view.action.arguments).toEqual({ name: 'plan.txt', text: 'ship on Friday' })
    expect(view.action.mcp).toMatchObject({
      serverId: 'notes',
      serverName: 'Notes',
      toolDescription: 'Writes a note to the notes folder, replacing any note of that name.',
      preview: 'plan.txt: absent -> "ship on Friday"',
    })
    expect(view.action.mcp?.inputSchemaHash).toMatch(/^[0-9a-f]{64}$/)
    // Nothing has run while the person reads.
    expect(existsSync(join(fixture.notesDir, 'plan.txt'))).toBe(false)

    expect(await decide(harness, view, 'allow-once')).toBe(200)
    const result = await call
    expect(result.content).toEqual([{ type: 'text', text: 'wrote plan.txt' }])
    expect(await readFile(join(fixture.notesDir, 'plan.txt'), 'utf8')).toBe('ship on Friday')
    expect(await runsOf(fixture)).toEqual(['plan.txt'])

    const room = await gatewayRoom(harness)
    const settled = await eventually(async () => {
      const current = await timeline(harness, room.id)
      const toolCall = current.toolCalls.find((item) => item.id === view.approval.toolCallId)
      return toolCall?.status === 'succeeded' ? toolCall : undefined
    }, 'the gateway call to be recorded as succeeded')
    expect(settled.result?.output).toBe('wrote plan.txt')
  })

  it('answers a denial with reason denied, and the tool never runs', async () => {
    const before = await runsOf(fixture)
    const call = refusalOf(
      agent.callTool(
        { name: 'notes__write_note', arguments: { name: 'denied.txt', text: 'no' } },
        undefined,
        callOptions,
      ),
    )
    const view = await nextPendingApproval(harness)
    expect(await decide(harness, view, 'deny')).toBe(200)
    const error = await call
    expect(error.code).toBe(MCP_REFUSAL_CODES.denied)
    expect(error.data).toEqual({ reason: 'denied' })
    expect(existsSync(join(fixture.notesDir, 'denied.txt'))).toBe(false)
    expect(await runsOf(fixture)).toEqual(before)
  })

  it('binds "always allow" to the tool definition: a changed definition asks again', async () => {
    const { view } = await allowedAlways(harness, agent, 'notes__write_note', {
      name: 'a.txt',
      text: 'one',
    })
    const room = await gatewayRoom(harness)
    const grants = await roomGrants(harness, room.id)
    expect(grants).toHaveLength(1)
    expect(grants[0]?.mcp).toEqual({
      serverId: 'notes',
      definitionHash: view.action.mcp?.definitionHash,
    })

    // The same definition: the grant answers, nobody is asked.
    const granted = await agent.callTool(
      { name: 'notes__write_note', arguments: { name: 'b.txt', text: 'two' } },
      undefined,
      callOptions,
    )
    expect(granted.content).toEqual([{ type: 'text', text: 'wrote b.txt' }])

    // The server changes what the tool says it does: the person is asked again.
    await writeFile(fixture.descriptionFile, 'Writes a note and also mails it to everyone.')
    // Handled from the start: the denial below rejects it before it is awaited.
    const changed = refusalOf(
      agent.callTool(
        { name: 'notes__write_note', arguments: { name: 'c.txt', text: 'three' } },
        undefined,
        callOptions,
      ),
    )
    const again = await nextPendingApproval(harness, new Set([view.approval.id]))
    expect(again.action.mcp?.toolDescription).toBe('Writes a note and also mails it to everyone.')
    expect(again.action.mcp?.definitionHash).not.toBe(view.action.mcp?.definitionHash)
    expect(existsSync(join(fixture.notesDir, 'c.txt'))).toBe(false)
    expect(await decide(harness, again, 'deny')).toBe(200)
    expect((await changed).data).toEqual({ reason: 'denied' })

    // Grants are revocable per server.
    const revoked = await harness.client.raw(
      'DELETE',
      `/v1/rooms/${room.id}/mcp-servers/notes/grants`,
    )
    expect(revoked.body).toEqual({ revoked: [grants[0]?.id] })
    expect(await roomGrants(harness, room.id)).toEqual([])
  })

  it('refuses to run when the previewed state changed after the person allowed it', async () => {
    const note = join(fixture.notesDir, 'shared.txt')
    await writeFile(note, 'version 1')
    const before = await runsOf(fixture)
    const call = refusalOf(
      agent.callTool(
        { name: 'notes__write_note', arguments: { name: 'shared.txt', text: 'version 2' } },
        undefined,
        callOptions,
      ),
    )
    const view = await nextPendingApproval(harness)
    expect(view.action.mcp?.preview).toBe('shared.txt: "version 1" -> "version 2"')
    // Someone else changes the note while the person reads the preview.
    await writeFile(note, 'changed meanwhile')
    expect(await decide(harness, view, 'allow-once')).toBe(200)
    const error = await call
    expect(error.code).toBe(MCP_REFUSAL_CODES.not_allowed)
    expect(error.data).toEqual({ reason: 'not_allowed', detail: 'preview_changed' })
    expect(await readFile(note, 'utf8')).toBe('changed meanwhile')
    expect(await runsOf(fixture)).toEqual(before)
  })

  it('leaves a clear record when the server crashes in the middle of an allowed call', async () => {
    const call = agent.callTool(
      { name: 'notes__write_note', arguments: { name: 'crash.txt', text: '__crash__' } },
      undefined,
      callOptions,
    )
    const view = await nextPendingApproval(harness)
    expect(await decide(harness, view, 'allow-once')).toBe(200)
    const result = await call
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result.content)).toContain('notes failed during write_note')

    const room = await gatewayRoom(harness)
    const record = await eventually(async () => {
      const current = await timeline(harness, room.id)
      const toolCall = current.toolCalls.find((item) => item.id === view.approval.toolCallId)
      return toolCall?.status === 'failed' ? { current, toolCall } : undefined
    }, 'the crashed call to be recorded as failed')
    expect(record.current.approvals.find((a) => a.id === view.approval.id)?.status).toBe('allowed')
    expect(record.current.turns.find((t) => t.id === view.approval.turnId)?.status).toBe('done')
    expect(record.toolCall.result?.output).toContain('notes failed during write_note')
  })

  // The approval edited on disk, so the person is shown a harmless write:
  // the gate refuses the allow and withdraws the approval for that reason
  // (approval-row-edited.test.ts). The agent hears why, as in a room
  // (gated-mcp-call.test.ts), not that nobody confirmed in time: that
  // would send the person looking for a window that was never theirs.
  it('tells the agent why a call whose approval was withdrawn for a reason did not run', async () => {
    const call = agent.callTool(
      { name: 'notes__write_note', arguments: { name: 'edited.txt', text: 'PAYLOAD' } },
      undefined,
      callOptions,
    )
    const original = await nextPendingApproval(harness)
    editDatabase(harness.dataDir, (db) => {
      const row = db
        .prepare('SELECT arguments_json FROM approvals WHERE id = ?')
        .get(original.approval.id) as { arguments_json: string }
      db.prepare('UPDATE approvals SET arguments_json = ? WHERE id = ?').run(
        row.arguments_json.replaceAll('PAYLOAD', 'harmless'),
        original.approval.id,
      )
    })
    const shown = await harness.client.getApproval(original.approval.id)
    expect(shown.action.arguments).toMatchObject({ text: 'harmless' })
    expect(await decide(harness, shown, 'allow-once')).toBe(409)

    const refusal = await refusalOf(call)
    expect(refusal.message).toContain(
      'notes__write_note did not run: its stored action changed outside Assent',
    )
    expect(refusal.message).not.toContain('Nobody confirmed')
    expect(existsSync(join(fixture.notesDir, 'edited.txt'))).toBe(false)
  })
})

import { existsSync } from 'node:fs'
import { mkdtemp, readFile, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { Timeline } from '../src/contracts/room.ts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeNotesConfig, type NotesFixture } from './support/mcp-gateway-harness.ts'
import { auditEvents } from './support/policy-helpers.ts'
import { createRoom, pendingApprovalFor, send, turnSettled } from './support/room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

interface ServerEntry {
  id: string
  name?: string
  allowed_tools: string[]
}

const callOf = (timeline: Timeline, turnId: string) =>
  timeline.toolCalls.find((call) => call.turnId === turnId)

describe('mcp.json edits reach the running runtime without a restart', () => {
  let harness: RuntimeHarness
  let fixture: NotesFixture
  let original: string

  beforeAll(async () => {
    const root = await mkdtemp(join(tmpdir(), 'assent-mcp-reload-'))
    fixture = await writeNotesConfig(root)
    original = await readFile(fixture.configPath, 'utf8')
    harness = await startHarness({ root, mcpConfigPath: fixture.configPath })
  })
  afterAll(async () => {
    await harness?.close()
    await rm(harness.root, { recursive: true, force: true })
  })

  /** Rewrites mcp.json the way editors save it (a new file renamed over
   *  the old one), with `edit` applied to the original servers. */
  async function saveConfig(edit: (servers: ServerEntry[]) => unknown[]): Promise<void> {
    const config = JSON.parse(original) as { servers: ServerEntry[] }
    const temporary = `${fixture.configPath}.tmp`
    await writeFile(temporary, JSON.stringify({ servers: edit(config.servers) }))
    await rename(temporary, fixture.configPath)
  }

  /** Waits for the audit event of `type` after the first `after` events. */
  function nextAudit(type: string, after: number) {
    return eventually(async () => {
      const events = await auditEvents(harness)
      return events.slice(after).find((event) => event.type === type)
    }, `an ${type} audit event`)
  }

  const auditCount = async () => (await auditEvents(harness)).length

  it('calls a server added to mcp.json while running, and audits the new configuration', async () => {
    const room = await createRoom(harness)
    const before = await send(
      harness,
      room.id,
      'mcp extra write_note {"name": "a.txt", "text": "x"}',
    )
    const refused = await turnSettled(harness, room.id, before)
    expect(callOf(refused, before)?.result?.code).toBe('unknown_mcp_server')

    const after = await auditCount()
    await saveConfig((servers) => [...servers, { ...servers[0], id: 'extra', name: 'Extra' }])
    const applied = await nextAudit('mcp_config_applied', after)
    expect(applied.payload).toMatchObject({
      serversInForce: ['notes', 'docs', 'extra'],
      added: ['extra'],
      removed: [],
    })
    const view = await pendingApprovalFor(
      harness,
      room.id,
      'mcp extra write_note {"name": "extra.txt", "text": "from the new server"}',
    )
    expect(view.action.mcp).toMatchObject({ serverId: 'extra', serverName: 'Extra' })
    const token = harness.mintApproval(view.approval.id, 'deny', view.actionDigest)
    await harness.client.decideApproval(view.approval.id, 'deny', token, view.actionDigest)
    await turnSettled(harness, room.id, view.approval.turnId)
  })

  it('keeps the configuration in force when an edit is refused, naming the field', async () => {
    const restored = await auditCount()
    await saveConfig((servers) => servers)
    await nextAudit('mcp_config_applied', restored)
    const after = await auditCount()
    await saveConfig((servers) => [{ ...servers[0], allowed_tools: ['write_*'] }])
    const refused = await nextAudit('mcp_config_refused', after)
    expect(refused.payload).toMatchObject({
      field: 'servers.0.allowed_tools.0',
      serversInForce: ['notes', 'docs'],
    })
    // notes still asks, exactly as before the edit.
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(
      harness,
      room.id,
      'mcp notes write_note {"name": "kept.txt", "text": "still gated"}',
    )
    expect(view.action.mcp?.serverId).toBe('notes')
    const token = harness.mintApproval(view.approval.id, 'deny', view.actionDigest)
    await harness.client.decideApproval(view.approval.id, 'deny', token, view.actionDigest)
    await turnSettled(harness, room.id, view.approval.turnId)
  })

  it('lets a call the person is deciding on run on the server they were shown, after mcp.json removed it', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(
      harness,
      room.id,
      'mcp notes write_note {"name": "in-flight.txt", "text": "decided before the edit"}',
    )
    const after = await auditCount()
    await saveConfig((servers) => servers.filter((server) => server.id !== 'notes'))
    const applied = await nextAudit('mcp_config_applied', after)
    expect(applied.payload).toMatchObject({ removed: ['notes'] })

    const token = harness.mintApproval(view.approval.id, 'allow-once', view.actionDigest)
    await harness.client.decideApproval(view.approval.id, 'allow-once', token, view.actionDigest)
    const settled = await turnSettled(harness, room.id, view.approval.turnId)
    expect(callOf(settled, view.approval.turnId)).toMatchObject({ status: 'succeeded' })
    expect(await readFile(join(fixture.notesDir, 'in-flight.txt'), 'utf8')).toBe(
      'decided before the edit',
    )

    // A call that starts now finds no such server.
    const next = await send(harness, room.id, 'mcp notes write_note {"name": "b.txt", "text": "x"}')
    const refused = await turnSettled(harness, room.id, next)
    expect(callOf(refused, next)?.result?.code).toBe('unknown_mcp_server')
    expect(existsSync(join(fixture.notesDir, 'b.txt'))).toBe(false)
  })

  it('does not follow mcp.json once it is a link to a file under another name', async () => {
    const elsewhere = join(dirname(fixture.configPath), 'servers.json')
    const config = JSON.parse(original) as { servers: ServerEntry[] }
    await writeFile(
      elsewhere,
      JSON.stringify({ servers: [...config.servers, { ...config.servers[0], id: 'planted' }] }),
    )
    const after = await auditCount()
    try {
      await symlink(elsewhere, `${fixture.configPath}.link`)
      await rename(`${fixture.configPath}.link`, fixture.configPath)
      const refused = await nextAudit('mcp_config_refused', after)
      expect(refused.payload).toMatchObject({
        field: '(file)',
        serversInForce: expect.not.arrayContaining(['planted']),
      })
      expect(String((refused.payload as { message: string }).message)).toContain(
        `Assent starts whatever its MCP config names, so it reads one only from a file every door of Assent keeps for the person to change (it is ${await realpath(elsewhere)}). Name it mcp.json`,
      )
    } finally {
      await saveConfig((servers) => servers)
    }
  })
})

describe('an MCP config under another name', () => {
  it('is not read at start: the refusal is audited, and no server it names is served', async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'assent-mcp-named-')))
    const fixture = await writeNotesConfig(root)
    const servers = join(root, 'servers.json')
    await rename(fixture.configPath, servers)
    const harness = await startHarness({ root, mcpConfigPath: servers })
    try {
      const refused = (await auditEvents(harness)).find((e) => e.type === 'mcp_config_refused')
      expect(refused?.payload).toMatchObject({ field: '(file)', serversInForce: [] })
      expect(String((refused?.payload as { message: string }).message)).toBe(
        `${servers}: (file): Assent starts whatever its MCP config names, so it reads one only from a file every door of Assent keeps for the person to change. Name it mcp.json`,
      )
    } finally {
      await harness.close()
      await rm(root, { recursive: true, force: true })
    }
  })
})

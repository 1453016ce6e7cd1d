import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { editDatabase } from './support/integrity-helpers.ts'
import { writeNotesConfig, type NotesFixture } from './support/mcp-gateway-harness.ts'
import { auditEvents, decide, ranUnasked, roomGrants } from './support/policy-helpers.ts'
import { createRoom, pendingApprovalFor, turnSettled } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

describe('"Always allow every tool of <server>": a grant bound to the whole tool list', () => {
  let harness: RuntimeHarness
  let fixture: NotesFixture

  beforeAll(async () => {
    const root = await mkdtemp(join(tmpdir(), 'assent-mcp-server-grant-'))
    fixture = await writeNotesConfig(root)
    harness = await startHarness({ root, mcpConfigPath: fixture.configPath })
  })
  afterAll(async () => {
    await harness?.close()
    await rm(harness.root, { recursive: true, force: true })
  })

  /** A room where the person allowed every tool of `notes`. */
  async function roomWithServerGrant(name: string) {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(
      harness,
      room.id,
      `mcp notes write_note {"name": "${name}", "text": "first"}`,
    )
    expect(view.serverAlwaysAllowAvailable).toBe(true)
    expect((await decide(harness, view, 'allow-always-server')).status).toBe(200)
    await turnSettled(harness, room.id, view.approval.turnId)
    const grants = await roomGrants(harness, room.id)
    expect(grants).toHaveLength(1)
    return { room, view, grant: grants[0]! }
  }

  it("shows the server's whole tool list in the action the person is asked about", async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(
      harness,
      room.id,
      'mcp notes write_note {"name": "shown.txt", "text": "x"}',
    )
    expect(view.action.mcp?.serverTools?.names).toEqual([
      'read_note',
      'write_note',
      'write_note.preview',
    ])
    expect(view.action.mcp?.serverTools?.hash).toMatch(/^[0-9a-f]{64}$/)
    expect(view.approval.mcp?.serverTools).toEqual(view.action.mcp?.serverTools)
    expect((await decide(harness, view, 'deny')).status).toBe(200)
  })

  it('lets every tool of the server run unasked after one allow-always-server, and records the grant', async () => {
    const { room, view, grant } = await roomWithServerGrant('all.txt')
    expect(grant).toMatchObject({
      scope: 'mcp-server',
      toolName: 'write_note',
      mcp: { serverId: 'notes', toolListHash: view.action.mcp?.serverTools?.hash },
    })
    await writeFile(join(fixture.notesDir, 'read-me.txt'), 'read without asking')
    // Another tool of the same server, never asked about.
    expect(await ranUnasked(harness, room.id, 'mcp notes read_note {"name": "read-me.txt"}')).toBe(
      true,
    )
    expect(
      await ranUnasked(harness, room.id, 'mcp notes write_note {"name": "b.txt", "text": "b"}'),
    ).toBe(true)
    expect(await readFile(join(fixture.notesDir, 'b.txt'), 'utf8')).toBe('b')
    const created = (await auditEvents(harness)).find(
      (event) => event.type === 'grant_created' && event.subjectId === grant.id,
    )
    expect(created?.payload).toMatchObject({ scope: 'mcp-server' })
  })

  it('asks again once the server changes any of its tools, even for a tool that did not change', async () => {
    const { room } = await roomWithServerGrant('before-change.txt')
    await writeFile(fixture.descriptionFile, 'Writes a note, and now also mails it to someone.')
    try {
      await writeFile(join(fixture.notesDir, 'same.txt'), 'same')
      expect(await ranUnasked(harness, room.id, 'mcp notes read_note {"name": "same.txt"}')).toBe(
        false,
      )
    } finally {
      await rm(fixture.descriptionFile, { force: true })
    }
    // The list is back to what the person saw: the grant answers again.
    expect(await ranUnasked(harness, room.id, 'mcp notes read_note {"name": "same.txt"}')).toBe(
      true,
    )
  })

  it('never answers for another server, nor in another room', async () => {
    const { room } = await roomWithServerGrant('scoped.txt')
    const other = await createRoom(harness)
    expect(
      await ranUnasked(
        harness,
        other.id,
        'mcp notes write_note {"name": "other-room.txt", "text": "x"}',
      ),
    ).toBe(false)
    expect(
      await ranUnasked(
        harness,
        room.id,
        'mcp filesystem write_file {"path": "fs.txt", "content": "x"}',
      ),
    ).toBe(false)
    expect(existsSync(join(harness.workspace, 'fs.txt'))).toBe(false)
  })

  it('asks again after the server grant is revoked, and audits the revocation', async () => {
    const { room, grant } = await roomWithServerGrant('revoked.txt')
    const revoked = await harness.client.raw('DELETE', `/v1/rooms/${room.id}/grants/${grant.id}`)
    expect(revoked.status).toBe(200)
    expect(await roomGrants(harness, room.id)).toEqual([])
    expect(
      await ranUnasked(harness, room.id, 'mcp notes write_note {"name": "after.txt", "text": "x"}'),
    ).toBe(false)
    const events = await auditEvents(harness)
    expect(
      events.some((event) => event.type === 'grant_revoked' && event.subjectId === grant.id),
    ).toBe(true)
  })

  /** A room where the person allowed `write_note` always (that tool only). */
  async function roomWithToolGrant(name: string) {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(
      harness,
      room.id,
      `mcp notes write_note {"name": "${name}", "text": "x"}`,
    )
    expect((await decide(harness, view, 'allow-always')).status).toBe(200)
    await turnSettled(harness, room.id, view.approval.turnId)
    return room
  }

  it('does not let a per-tool grant answer for the rest of the server', async () => {
    const room = await roomWithToolGrant('one-tool.txt')
    expect((await roomGrants(harness, room.id)).map((grant) => grant.scope)).toEqual(['mcp'])
    await writeFile(join(fixture.notesDir, 'other-tool.txt'), 'x')
    expect(
      await ranUnasked(harness, room.id, 'mcp notes read_note {"name": "other-tool.txt"}'),
    ).toBe(false)
    expect(
      await ranUnasked(
        harness,
        room.id,
        'mcp notes write_note {"name": "same-tool.txt", "text": "y"}',
      ),
    ).toBe(true)
  })

  it('runs a call a grant answers against the tool list it fetched, as the gateway does: listed once, not again', async () => {
    const room = await roomWithToolGrant('listed-once.txt')
    const listings = async () =>
      (await readFile(join(fixture.notesDir, 'lists.log'), 'utf8')).split('\n').length
    const before = await listings()
    expect(
      await ranUnasked(
        harness,
        room.id,
        'mcp notes write_note {"name": "listed-once.txt", "text": "y"}',
      ),
    ).toBe(true)
    expect((await listings()) - before).toBe(1)
    expect(await readFile(join(fixture.notesDir, 'listed-once.txt'), 'utf8')).toBe('y')
  })

  it('refuses a token minted for one scope of always allow when spent as the other', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(
      harness,
      room.id,
      'mcp notes write_note {"name": "tokens.txt", "text": "x"}',
    )
    const perTool = harness.mintApproval(view.approval.id, 'allow-always', view.actionDigest)
    const asServer = await harness.client.decideApproval(
      view.approval.id,
      'allow-always-server',
      perTool,
      view.actionDigest,
    )
    expect(asServer.status).toBe(403)
    const serverWide = harness.mintApproval(
      view.approval.id,
      'allow-always-server',
      view.actionDigest,
    )
    const asTool = await harness.client.decideApproval(
      view.approval.id,
      'allow-always',
      serverWide,
      view.actionDigest,
    )
    expect(asTool.status).toBe(403)
    expect(await roomGrants(harness, room.id)).toEqual([])
    expect((await harness.client.getApproval(view.approval.id)).approval.status).toBe('pending')
    expect((await decide(harness, view, 'deny')).status).toBe(200)
  })

  it('refuses allow-always-server on an action that is not an MCP call, and offers it only for one', async () => {
    const room = await createRoom(harness)
    const view = await pendingApprovalFor(harness, room.id, 'run echo server-wide')
    expect(view.serverAlwaysAllowAvailable).toBe(false)
    const refused = await decide(harness, view, 'allow-always-server')
    expect(refused).toMatchObject({ status: 409, body: { code: 'always_allow_unavailable' } })
    expect(await roomGrants(harness, room.id)).toEqual([])
    expect((await decide(harness, view, 'deny')).status).toBe(200)
  })

  it('does not honour a server grant whose tool-list hash was edited on disk, and reports it', async () => {
    const { room, grant } = await roomWithServerGrant('tampered.txt')
    editDatabase(harness.dataDir, (db) => {
      db.prepare('UPDATE grants SET mcp_tool_list_hash = ? WHERE id = ?').run(
        'f'.repeat(64),
        grant.id,
      )
    })
    expect(await roomGrants(harness, room.id)).toEqual([])
    expect(
      await ranUnasked(
        harness,
        room.id,
        'mcp notes write_note {"name": "forged.txt", "text": "x"}',
      ),
    ).toBe(false)
    const reported = (await auditEvents(harness)).filter(
      (event) => event.type === 'integrity_error' && event.subjectId === grant.id,
    )
    expect(reported.length).toBeGreaterThan(0)
  })
})

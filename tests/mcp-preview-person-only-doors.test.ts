import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ApprovalSummarySchema, type ApprovalView } from '../src/contracts/approval.ts'
import {
  NOTES_SERVER,
  connectThroughGateway,
  decide,
  gatewayConfigIn,
  gatewayRoom,
} from './support/mcp-gateway-harness.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/** One door an MCP call comes through: `start` makes the call and
 *  resolves once it ended, however; `room` is where its approval is. */
interface Door {
  start(args: Record<string, unknown>): Promise<unknown>
  room(): Promise<string>
}

/** Calls of the notes server's gated `write_note` whose words name a
 *  person-only place: the server's `write_note.preview` would be sent
 *  them before anyone is asked. */
const PERSON_ONLY_ROWS = [
  { place: "a git hook, by the note's name", args: { name: '.git/hooks/pre-commit', text: 'x' } },
  { place: "git's config", args: { name: '.git/config', text: '[core]' } },
  { place: 'a credential in the home folder', args: { name: '~/.ssh/authorized_keys', text: 'k' } },
  { place: "an editor's task file", args: { name: '.vscode/tasks.json', text: '{}' } },
  { place: 'git internals, in the text', args: { name: 'note.txt', text: 'see .git/config' } },
]

/**
 * A gated call's preview runs before the person is asked, on the server's
 * word that it changes nothing, as a read-only manifest's call would. A
 * manifest's call naming a person-only place asks rather than runs; so no
 * preview of such a call is run either, at any door: the person is asked
 * with the arguments whole and no preview, and the server is sent nothing
 * until they allow. The control: a plain note's preview runs and is shown.
 */
describe('no preview of a call naming a person-only place runs before the person is asked', () => {
  let harness: RuntimeHarness
  let agent: Client
  let notesDir: string
  const doors: Record<string, Door> = {}

  beforeAll(async () => {
    const root = await mkdtemp(join(tmpdir(), 'assent-preview-'))
    notesDir = join(root, 'notes')
    await mkdir(notesDir, { recursive: true })
    const transport = {
      type: 'stdio',
      command: process.execPath,
      args: [NOTES_SERVER],
      env: { NOTES_DIR: notesDir },
    }
    const config = JSON.stringify({
      servers: [
        {
          id: 'notes',
          name: 'Notes',
          transport,
          allowed_tools: ['write_note', 'write_note.preview'],
        },
      ],
    })
    const roomConfig = join(root, 'mcp.json')
    await writeFile(roomConfig, config)
    const gatewayConfig = await gatewayConfigIn(root, 'gateway')
    await writeFile(gatewayConfig, config)
    harness = await startHarness({ root, mcpConfigPath: roomConfig })
    ;({ client: agent } = await connectThroughGateway(harness, gatewayConfig))
    const room = await createRoom(harness)
    doors['a room'] = {
      start: async (args) => {
        const turnId = await send(harness, room.id, `mcp notes write_note ${JSON.stringify(args)}`)
        return turnSettled(harness, room.id, turnId)
      },
      room: async () => room.id,
    }
    doors['assent-gateway'] = {
      start: (args) =>
        agent
          .callTool({ name: 'notes__write_note', arguments: args }, undefined, { timeout: 300_000 })
          .catch((error: unknown) => error),
      room: async () => (await gatewayRoom(harness)).id,
    }
  })
  afterAll(async () => {
    await agent?.close()
    await harness?.close()
    if (harness !== undefined) await rm(harness.root, { recursive: true, force: true })
  })

  async function previewsSent(): Promise<string[]> {
    const log = join(notesDir, 'previews.log')
    return existsSync(log) ? (await readFile(log, 'utf8')).split('\n').filter(Boolean) : []
  }

  /** The approval the call asks for, or the call's end if it asks none
   *  (the old way: the preview refused the name, and the call failed). */
  const seen = new Set<string>()
  async function askedOrEnded(
    door: Door,
    call: Promise<unknown>,
  ): Promise<{ approval: ApprovalView } | { ended: true }> {
    let ended = false
    void call.then(() => (ended = true))
    return eventually(async () => {
      const { approvals } = await harness.client.request(
        z.object({ approvals: z.array(ApprovalSummarySchema) }),
        'GET',
        `/v1/rooms/${await door.room()}/approvals`,
      )
      const approval = approvals.find((one) => one.status === 'pending' && !seen.has(one.id))
      if (approval !== undefined) {
        seen.add(approval.id)
        return { approval: await harness.client.getApproval(approval.id) }
      }
      return ended ? { ended: true as const } : undefined
    }, 'the person to be asked, or the call to end')
  }

  describe.each(['a room', 'assent-gateway'])('through %s', (doorName) => {
    // First: the gateway's room is made by its first call that asks.
    it("the control: a plain note's preview runs and is shown", async () => {
      const door = doors[doorName] as Door
      const name = `plain-${doorName === 'a room' ? 'room' : 'gateway'}.txt`
      const call = door.start({ name, text: 'x' })
      const asked = await askedOrEnded(door, call)
      if (!('approval' in asked)) throw new Error('the call ended without asking the person')
      expect(asked.approval.action.mcp?.preview).toBe(`${name}: absent -> "x"`)
      expect(await previewsSent()).toContain(name)
      expect(await decide(harness, asked.approval, 'deny')).toBe(200)
      await call
    })

    it.each(PERSON_ONLY_ROWS)(
      'a call naming $place is asked about with no preview, and none is sent',
      async ({ args }) => {
        const door = doors[doorName] as Door
        const before = (await previewsSent()).length
        const sent = async () => (await previewsSent()).slice(before)
        const call = door.start(args)
        const asked = await askedOrEnded(door, call)
        expect(await sent()).not.toContain(args.name)
        if (!('approval' in asked)) throw new Error('the call ended without asking the person')
        expect(asked.approval.action.mcp?.preview).toBeNull()
        expect(asked.approval.action.arguments).toEqual(args)
        expect(await decide(harness, asked.approval, 'deny')).toBe(200)
        await call
        expect(await sent()).not.toContain(args.name)
      },
    )
  })
})

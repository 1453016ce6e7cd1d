import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { ApprovalSummarySchema, type ApprovalView } from '../src/contracts/approval.ts'
import type { InputRequestRecord } from '../src/contracts/input-request.ts'
import {
  NOTES_SERVER,
  connectThroughGateway,
  decide,
  gatewayConfigIn,
  gatewayRoom,
} from './support/mcp-gateway-harness.ts'
import { inputRequests, respond } from './support/input-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

const callOptions = { timeout: 300_000 }

/** One door an MCP call comes through: `start` makes the call of `tool`
 *  on `server` (`notes` unless named) and gives what it returned (its
 *  output, or the error's message); `room` is the room its approval and
 *  any form of its server's are in. */
interface Door {
  start(tool: string, args: Record<string, unknown>, server?: string): Promise<string>
  room(): Promise<string>
}

/**
 * A server may ask the person for input (MCP elicitation) only during a
 * call that was allowed and runs: while its preview runs or the person is
 * still deciding whether it may run at all, what the person typed would
 * reach a server nobody let act. The notes server's preview asks for a
 * password; through every door the server is told `cancel` and no form
 * is shown, and the approval's preview says so. Nor during a call nobody
 * was asked about: `docs`, the same server under a read-only manifest,
 * runs unasked, and its form is told `cancel` at every door. The control:
 * the allowed call's own form is shown, and its answer reaches the server.
 */
describe('no MCP server asks the person for input before its call is allowed', () => {
  let harness: RuntimeHarness
  let agent: Client
  let notesDir: string
  const doors: Record<string, Door> = {}

  beforeAll(async () => {
    const root = await mkdtemp(join(tmpdir(), 'assent-elicit-'))
    notesDir = join(root, 'notes')
    await mkdir(notesDir, { recursive: true })
    const env = { NOTES_DIR: notesDir, NOTES_PREVIEW_ASKS: '1' }
    const transport = { type: 'stdio', command: process.execPath, args: [NOTES_SERVER], env }
    const config = JSON.stringify({
      servers: [
        {
          id: 'notes',
          name: 'Notes',
          transport,
          allowed_tools: [
            'write_note',
            'write_note.preview',
            'ask_title',
            'ask_and_go',
            'ask_then_cancel',
            'ask_many',
          ],
        },
        {
          id: 'docs',
          name: 'Docs (read-only)',
          transport,
          allowed_tools: ['ask_title'],
          manifest: { readonly: true },
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
      start: async (tool, args, server = 'notes') => {
        const turnId = await send(harness, room.id, `mcp ${server} ${tool} ${JSON.stringify(args)}`)
        const settled = await turnSettled(harness, room.id, turnId)
        return settled.toolCalls.find((call) => call.turnId === turnId)?.result?.output ?? ''
      },
      room: async () => room.id,
    }
    doors['assent-gateway'] = {
      start: (tool, args, server = 'notes') =>
        agent
          .callTool({ name: `${server}__${tool}`, arguments: args }, undefined, callOptions)
          .then(
            (result) =>
              (result.content as Array<{ type: string; text?: string }>)
                .map((part) => part.text ?? '')
                .join('\n'),
            (error: Error) => error.message,
          ),
      room: async () => (await gatewayRoom(harness)).id,
    }
  })
  afterAll(async () => {
    await agent?.close()
    await harness?.close()
  })

  /** What the person is first asked in `door`'s room that was not asked
   *  before: a form of the server's, or an approval. */
  const seen = new Set<string>()
  async function firstAsked(
    door: Door,
  ): Promise<{ form: InputRequestRecord } | { approval: ApprovalView }> {
    return eventually(async () => {
      const roomId = await door.room()
      const form = (await inputRequests(harness, roomId)).find(
        (request) => request.status === 'pending' && !seen.has(request.id),
      )
      if (form !== undefined) {
        seen.add(form.id)
        return { form }
      }
      const { approvals } = await harness.client.request(
        z.object({ approvals: z.array(ApprovalSummarySchema) }),
        'GET',
        `/v1/rooms/${roomId}/approvals`,
      )
      const approval = approvals.find((one) => one.status === 'pending' && !seen.has(one.id))
      if (approval === undefined) return undefined
      seen.add(approval.id)
      return { approval: await harness.client.getApproval(approval.id) }
    }, 'the person to be asked something')
  }

  it.each(['a room', 'assent-gateway'])(
    'through %s, a preview asking for a password is told cancel, and nobody sees its form',
    async (name) => {
      const door = doors[name] as Door
      const call = door.start('write_note', { name: 'a.txt', text: 'x' })
      const asked = await firstAsked(door)
      if ('form' in asked) throw new Error(`a form was shown: ${asked.form.form?.message}`)
      expect(asked.approval.action.mcp?.preview).toBe('asked: cancel; a.txt: absent -> "x"')
      expect(await decide(harness, asked.approval, 'deny')).toBe(200)
      await call
    },
  )

  it.each(['a room', 'assent-gateway'])(
    "through %s, an allowed call's own form is shown, and its answer reaches the server",
    async (name) => {
      const door = doors[name] as Door
      const call = door.start('ask_title', {})
      const asked = await firstAsked(door)
      if (!('approval' in asked)) throw new Error('a form was shown before the call was allowed')
      expect(await decide(harness, asked.approval, 'allow-once')).toBe(200)
      const form = await firstAsked(door)
      if (!('form' in form)) throw new Error('the allowed call asked for no form')
      expect(form.form.form?.message).toBe('Which title should the note get?')
      const answer = { action: 'accept', content: { title: 'Groceries' } }
      expect((await respond(harness, form.form.id, answer)).status).toBe(200)
      expect(await call).toBe('accept: {"title":"Groceries"}')
    },
  )

  it.each(['a room', 'assent-gateway'])(
    "through %s, a read-only manifest's call, which nobody was asked about, is told cancel, and nobody sees its form",
    async (name) => {
      const door = doors[name] as Door
      let output: string | undefined
      void door.start('ask_title', {}, 'docs').then((done) => (output = done))
      const roomId = await door.room()
      const outcome = await eventually<{ form: InputRequestRecord } | { output: string }>(
        async () => {
          const form = (await inputRequests(harness, roomId)).find(
            (request) => request.status === 'pending' && !seen.has(request.id),
          )
          if (form !== undefined) return { form }
          return output === undefined ? undefined : { output }
        },
        'the call to end, or a form to be shown',
      )
      if ('form' in outcome) {
        // Let the call end, then fail: the person was shown its form.
        seen.add(outcome.form.id)
        await respond(harness, outcome.form.id, { action: 'decline' })
        throw new Error(`a form was shown: ${outcome.form.form?.message}`)
      }
      expect(outcome).toEqual({ output: 'cancel: null' })
    },
  )

  it.each(['a room', 'assent-gateway'])(
    'through %s, the form of a call that ended is withdrawn: the person cannot answer it, and its server is told cancel',
    async (name) => {
      const door = doors[name] as Door
      const call = door.start('ask_and_go', {})
      const asked = await firstAsked(door)
      if (!('approval' in asked)) throw new Error('a form was shown before the call was allowed')
      expect(await decide(harness, asked.approval, 'allow-once')).toBe(200)
      expect(await call).toBe('done')
      const roomId = await door.room()
      const message = 'One more thing: your password, please'
      const form = await eventually(
        async () => {
          const found = (await inputRequests(harness, roomId)).find(
            (request) => request.form?.message === message && !seen.has(request.id),
          )
          return found === undefined || found.status === 'pending' ? undefined : found
        },
        'the form of the ended call to be withdrawn',
        5_000,
      )
      seen.add(form.id)
      expect(form.status).toBe('stale')
      const late = { action: 'accept', content: { password: 'hunter2' } }
      expect((await respond(harness, form.id, late)).status).toBe(409)
      const log = join(notesDir, 'late.log')
      await eventually(
        async () =>
          (await readFile(log, 'utf8').catch(() => '')).includes('cancel') ? true : undefined,
        'the server to be told cancel',
      )
      await rm(log)
    },
  )

  it.each(['a room', 'assent-gateway'])(
    'through %s, a form its server cancels is withdrawn while the call still runs: the person cannot answer it',
    async (name) => {
      const door = doors[name] as Door
      const call = door.start('ask_then_cancel', {})
      const asked = await firstAsked(door)
      if (!('approval' in asked)) throw new Error('a form was shown before the call was allowed')
      expect(await decide(harness, asked.approval, 'allow-once')).toBe(200)
      const shown = await firstAsked(door)
      if (!('form' in shown)) throw new Error('the allowed call asked for no form')
      expect(shown.form.form?.message).toBe('A title, though I may stop waiting for it')
      await writeFile(join(notesDir, 'cancel-form'), '')
      const roomId = await door.room()
      const form = await eventually(async () => {
        const found = (await inputRequests(harness, roomId)).find(
          (request) => request.id === shown.form.id,
        )
        return found?.status === 'pending' ? undefined : found
      }, 'the form its server cancelled to be withdrawn')
      expect(form?.status).toBe('stale')
      const late = { action: 'accept', content: { title: 'too late' } }
      expect((await respond(harness, shown.form.id, late)).status).toBe(409)
      // Its call still runs: the server's cancellation withdrew the form,
      // not the end of the call.
      const log = join(notesDir, 'cancelled.log')
      expect(await readFile(log, 'utf8')).toContain('cancelled: ')
      await writeFile(join(notesDir, 'end-call'), '')
      expect(await call).toBe('done')
      for (const file of ['cancel-form', 'end-call', 'cancelled.log'])
        await rm(join(notesDir, file))
    },
  )

  it.each(['a room', 'assent-gateway'])(
    "through %s, an allowed call's forms are shown one at a time: those its server sends while one waits are refused with the reason",
    async (name) => {
      const door = doors[name] as Door
      const call = door.start('ask_many', {})
      const asked = await firstAsked(door)
      if (!('approval' in asked)) throw new Error('a form was shown before the call was allowed')
      expect(await decide(harness, asked.approval, 'allow-once')).toBe(200)
      const roomId = await door.room()
      const log = join(notesDir, 'many.log')
      // Until two of the three failed with one form shown, or more than
      // one form was shown (as every one of them was before).
      const outcome = await eventually(async () => {
        const forms = (await inputRequests(harness, roomId)).filter(
          (request) => request.status === 'pending' && !seen.has(request.id),
        )
        const failed = (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean)
        return forms.length > 1 || (forms.length === 1 && failed.length === 2)
          ? { forms, failed }
          : undefined
      }, 'the forms to be shown or refused')
      // Every form shown is answered, so the call ends whatever came.
      for (const form of outcome.forms) {
        seen.add(form.id)
        const answer = { action: 'accept', content: { title: 'Groceries' } }
        expect((await respond(harness, form.id, answer)).status).toBe(200)
      }
      const lines = (await call).split('\n')
      await rm(log, { force: true })
      expect(outcome.forms).toHaveLength(1)
      const refused = expect.stringContaining(
        'notes already has a form waiting for the person; Assent shows a server',
      )
      expect(outcome.failed).toEqual([refused, refused])
      expect(lines.filter((line) => line.endsWith(': accept'))).toHaveLength(1)
      expect(lines.filter((line) => line.includes(': refused: '))).toHaveLength(2)
    },
  )
})

import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, realpath } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scaledMs } from '../scripts/test-timing.ts'
import { ApproverWebhookChangeAnswerSchema } from '../src/contracts/approver-webhook.ts'
import type { PermissionMode } from '../src/contracts/policy-axes.ts'
import { ApproverServer, signedReply } from './support/approver-server.ts'
import { hookToolDiskWait, type ToolDiskWait } from './support/tool-disk-wait.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { pendingInputFor, respond } from './support/input-helpers.ts'
import { writeNotesConfig } from './support/mcp-gateway-harness.ts'
import { putApproverWebhook } from './support/person-only-table.ts'
import {
  decide,
  outsideDir,
  roomApprovals,
  roomGrants,
  setMode,
  toolCallsOf,
  waitForPendingApproval,
} from './support/policy-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { eventually, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * A running turn is judged under the narrower of the policy it froze and
 * its room's policy now, and what allowed a call must still stand right
 * before it acts. One table, allower × narrowing, walked through the
 * runtime's doors as a person meets them: Assent's own tools, an MCP tool
 * in a room, and the approver webhook (which answers for external agents'
 * and the gateway's calls through the same requester; the external door's
 * own table is allower-stands-external.test.ts). Controls must still run.
 */

const WEBHOOK_DELAY_MS = 1_000
let harness: RuntimeHarness
let approver: ApproverServer
let diskWait: ToolDiskWait

beforeAll(async () => {
  diskWait = hookToolDiskWait()
  const root = await realpath(await mkdtemp(join(tmpdir(), 'assent-allower-doors-')))
  const notes = await writeNotesConfig(root)
  harness = await startInProcessRuntime({
    mcpConfigPath: notes.configPath,
    approverWebhookTimeoutMs: scaledMs(10_000),
  })
  approver = await ApproverServer.start()
})
afterAll(async () => {
  diskWait?.restore()
  await approver?.close()
  await harness?.close()
})

async function roomAt(mode: PermissionMode): Promise<string> {
  const roomId = (await createRoom(harness)).id
  if (mode !== 'ask-for-approval') await setMode(harness, roomId, mode)
  return roomId
}

/** A webhook that allows everything, after a while (so the person can
 *  take the decision back while it is asked). */
async function slowAllowingWebhook(roomId: string): Promise<void> {
  const set = await putApproverWebhook(harness, roomId, approver.url)
  expect(set.status).toBe(200)
  const secret = ApproverWebhookChangeAnswerSchema.parse(set.body).secret ?? ''
  approver.requests.length = 0
  approver.behaviour = (request) => ({
    ...signedReply(secret, request, '{"approved": true}'),
    delayMs: WEBHOOK_DELAY_MS,
  })
}

/** The person's "always allow" of a first write, in an earlier turn. */
async function grantWrites(roomId: string): Promise<string> {
  const first = await send(harness, roomId, 'write granted.txt first')
  const view = await waitForPendingApproval(harness, roomId, first)
  expect((await decide(harness, view, 'allow-always')).status).toBe(200)
  await turnSettled(harness, roomId, first)
  return (await roomGrants(harness, roomId))[0]!.id
}

/** A turn that asks the person a question first, narrowed while they read
 *  it (`narrow`), then makes `call`. */
async function afterQuestion(roomId: string, call: string, narrow: () => Promise<unknown>) {
  const turnId = await send(harness, roomId, `ask Wait | Shall I go on?\n${call}`)
  const question = await pendingInputFor(harness, roomId, turnId)
  await narrow()
  expect((await respond(harness, question.id, { action: 'dismiss' })).status).toBe(200)
  await turnSettled(harness, roomId, turnId)
  return turnId
}

/** Waits until the webhook was asked, then `narrow`s. */
async function whileWebhookAsked(narrow: () => Promise<unknown>): Promise<void> {
  await eventually(() => (approver.requests.length === 1 ? true : undefined), 'the webhook asked')
  await narrow()
}

const written = (name: string) => join(harness.workspace, name)
const approvalOf = async (roomId: string, turnId: string) =>
  eventually(async () => {
    const found = (await roomApprovals(harness, roomId)).find((a) => a.turnId === turnId)
    return found?.status === 'pending' && found.escalationReason === undefined ? undefined : found
  }, 'the approval decided, withdrawn or left to the person')

/** Denies an approval left to the person, so its turn ends. */
async function personDenies(roomId: string, turnId: string): Promise<void> {
  const approval = await eventually(
    async () => (await roomApprovals(harness, roomId)).find((a) => a.turnId === turnId),
    'the approval',
  )
  if (approval.status === 'pending') {
    const view = await harness.client.getApproval(approval.id)
    expect((await decide(harness, view, 'deny')).status).toBe(200)
  }
  await turnSettled(harness, roomId, turnId)
}

interface Row {
  door: string
  allower: string
  narrowing: string
  run: () => Promise<void>
}

const ROWS: Row[] = [
  {
    door: 'write_file',
    allower: 'grant',
    narrowing: 'plan, mid-turn',
    run: async () => {
      const roomId = await roomAt('ask-for-approval')
      await grantWrites(roomId)
      const turnId = await afterQuestion(roomId, 'write after-plan.txt EVIL', () =>
        setMode(harness, roomId, 'plan'),
      )
      const [call] = await toolCallsOf(harness, roomId, turnId)
      expect(call).toMatchObject({ status: 'refused' })
      expect(existsSync(written('after-plan.txt'))).toBe(false)
    },
  },
  {
    door: 'write_file',
    allower: 'full access',
    narrowing: 'plan, mid-turn',
    run: async () => {
      const roomId = await roomAt('full-access')
      const outside = await outsideDir(harness)
      await afterQuestion(roomId, `write ${outside}/x.txt EVIL`, () =>
        setMode(harness, roomId, 'plan'),
      )
      expect(existsSync(join(outside, 'x.txt'))).toBe(false)
    },
  },
  {
    door: 'write_file',
    allower: 'reviewer',
    narrowing: 'approve-for-me → ask-for-approval, mid-turn',
    run: async () => {
      const roomId = await roomAt('approve-for-me')
      const turnId = await send(
        harness,
        roomId,
        'ask Wait | Shall I go on?\nwrite reviewed.txt EVIL',
      )
      const question = await pendingInputFor(harness, roomId, turnId)
      await setMode(harness, roomId, 'ask-for-approval')
      expect((await respond(harness, question.id, { action: 'dismiss' })).status).toBe(200)
      const approval = await eventually(
        async () => (await roomApprovals(harness, roomId)).find((a) => a.turnId === turnId),
        'the write asks',
      )
      // Left to the person: the reviewer was never asked.
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(
        (await roomApprovals(harness, roomId)).find((a) => a.id === approval.id),
      ).toMatchObject({ status: 'pending' })
      await personDenies(roomId, turnId)
      expect(existsSync(written('reviewed.txt'))).toBe(false)
    },
  },
  {
    door: 'write_file',
    allower: 'grant',
    narrowing: 'revoked while the allow waits for the disk',
    run: async () => {
      const roomId = await roomAt('ask-for-approval')
      const grantId = await grantWrites(roomId)
      diskWait.once(async () => {
        const revoked = await harness.client.raw('DELETE', `/v1/rooms/${roomId}/grants/${grantId}`)
        expect(revoked.status).toBeLessThan(300)
      })
      const turnId = await send(harness, roomId, 'write revoked.txt EVIL')
      await turnSettled(harness, roomId, turnId)
      expect(diskWait.pending()).toBe(false)
      const [call] = await toolCallsOf(harness, roomId, turnId)
      expect(call).toMatchObject({ status: 'refused', result: { code: 'grant_revoked' } })
      expect(existsSync(written('revoked.txt'))).toBe(false)
    },
  },
  {
    door: 'write_file',
    allower: 'webhook',
    narrowing: 'removed ("Stop it") while it is asked',
    run: async () => {
      const roomId = await roomAt('ask-for-approval')
      await slowAllowingWebhook(roomId)
      const turnId = await send(harness, roomId, 'write after-removal.txt EVIL')
      await whileWebhookAsked(() => putApproverWebhook(harness, roomId, null))
      const approval = await approvalOf(roomId, turnId)
      expect(approval).toMatchObject({ status: 'pending' })
      expect(approval.decidedBy).toBeUndefined()
      await personDenies(roomId, turnId)
      expect(existsSync(written('after-removal.txt'))).toBe(false)
    },
  },
  {
    door: 'write_file',
    allower: 'webhook',
    narrowing: 'plan while it is asked',
    run: async () => {
      const roomId = await roomAt('ask-for-approval')
      await slowAllowingWebhook(roomId)
      const turnId = await send(harness, roomId, 'write after-plan-webhook.txt EVIL')
      await whileWebhookAsked(() => setMode(harness, roomId, 'plan'))
      await turnSettled(harness, roomId, turnId)
      expect(await approvalOf(roomId, turnId)).toMatchObject({ status: 'expired' })
      expect(existsSync(written('after-plan-webhook.txt'))).toBe(false)
    },
  },
  {
    door: 'MCP tool in a room',
    allower: 'webhook',
    narrowing: 'removed ("Stop it") while it is asked',
    run: async () => {
      const roomId = await roomAt('ask-for-approval')
      await slowAllowingWebhook(roomId)
      const turnId = await send(harness, roomId, 'mcp notes read_note {"name":"a"}')
      await whileWebhookAsked(() => putApproverWebhook(harness, roomId, null))
      const approval = await approvalOf(roomId, turnId)
      expect(approval).toMatchObject({ status: 'pending' })
      expect(approval.decidedBy).toBeUndefined()
      await personDenies(roomId, turnId)
      const [call] = await toolCallsOf(harness, roomId, turnId)
      expect(call?.status).not.toBe('succeeded')
    },
  },
  {
    door: 'MCP tool in a room',
    allower: 'person',
    narrowing: 'plan while they read',
    run: async () => {
      const roomId = await roomAt('ask-for-approval')
      const turnId = await send(harness, roomId, 'mcp notes read_note {"name":"a"}')
      const view = await waitForPendingApproval(harness, roomId, turnId)
      await setMode(harness, roomId, 'plan')
      expect((await decide(harness, view, 'allow-once')).status).toBe(200)
      await turnSettled(harness, roomId, turnId)
      const [call] = await toolCallsOf(harness, roomId, turnId)
      expect(call).toMatchObject({ status: 'refused', result: { code: 'room_narrowed' } })
    },
  },
  // Controls: nothing narrowed what allowed the call.
  {
    door: 'write_file',
    allower: 'grant',
    narrowing: 'none (control)',
    run: async () => {
      const roomId = await roomAt('ask-for-approval')
      await grantWrites(roomId)
      const turnId = await afterQuestion(roomId, 'write kept.txt FINE', async () => undefined)
      const [call] = await toolCallsOf(harness, roomId, turnId)
      expect(call).toMatchObject({ status: 'succeeded' })
      expect(readFileSync(written('kept.txt'), 'utf8')).toBe('FINE')
    },
  },
  {
    door: 'write_file',
    allower: 'webhook',
    narrowing: 'none (control)',
    run: async () => {
      const roomId = await roomAt('ask-for-approval')
      await slowAllowingWebhook(roomId)
      const turnId = await send(harness, roomId, 'write webhook-kept.txt FINE')
      await turnSettled(harness, roomId, turnId)
      expect(await approvalOf(roomId, turnId)).toMatchObject({
        status: 'allowed',
        decidedBy: 'webhook',
      })
      expect(readFileSync(written('webhook-kept.txt'), 'utf8')).toBe('FINE')
    },
  },
  {
    door: 'write_file',
    allower: 'person',
    narrowing: 'approve-for-me → ask-for-approval while they read (control)',
    run: async () => {
      const roomId = await roomAt('ask-for-approval')
      const turnId = await send(harness, roomId, 'write person-kept.txt FINE')
      const view = await waitForPendingApproval(harness, roomId, turnId)
      await setMode(harness, roomId, 'approve-for-me')
      await setMode(harness, roomId, 'ask-for-approval')
      expect((await decide(harness, view, 'allow-once')).status).toBe(200)
      await turnSettled(harness, roomId, turnId)
      expect(readFileSync(written('person-kept.txt'), 'utf8')).toBe('FINE')
    },
  },
]

describe('a running turn is judged under the narrower of its frozen policy and its room now', () => {
  it.each(ROWS)('$door: $allower × $narrowing', async (row) => {
    await row.run()
  })
})

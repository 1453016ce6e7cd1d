import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PermissionMode } from '../src/contracts/policy-axes.ts'
import { ApproverServer, signedReply } from './support/approver-server.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'
import { putApproverWebhook } from './support/person-only-table.ts'
import {
  decide,
  roomGrants,
  setMode,
  toolCallsOf,
  waitForPendingApproval,
} from './support/policy-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * What allowed a command must still stand under the room's mode right
 * before it acts, and a command acts for as long as it runs: narrowed (or
 * its grant revoked) while it runs so that its allow would not stand, it
 * is stopped, its process tree killed, and what it would have done next
 * never happens. One table, allower × narrowing, through a real runtime
 * (HTTP, the SQLite store, consent tokens) and, for the contained rows, a
 * real bubblewrap. Controls, where the allow still stands, run to the end.
 */

const HAS_BWRAP = await bubblewrapRequired()

let harness: RuntimeHarness
let approver: ApproverServer
beforeAll(async () => {
  harness = await startHarness()
  approver = await ApproverServer.start()
})
afterAll(async () => {
  await harness?.close()
  await approver?.close()
})

const inWorkspace = (name: string) => join(harness.workspace, name)

/** A command that marks its start, runs long enough to be narrowed under,
 *  then writes `after`. */
const slow = (tag: string) => `run sh -c 'touch started-${tag}; sleep 3; touch after-${tag}'`

async function roomAt(mode: PermissionMode): Promise<string> {
  const roomId = (await createRoom(harness)).id
  if (mode !== 'ask-for-approval') await setMode(harness, roomId, mode)
  return roomId
}

/** Sends the slow command; `allow` answers its approval, if it asks. */
async function started(
  roomId: string,
  tag: string,
  allow: ((turnId: string) => Promise<void>) | null,
): Promise<string> {
  const turnId = await send(harness, roomId, slow(tag))
  if (allow !== null) await allow(turnId)
  await eventually(
    () => (existsSync(inWorkspace(`started-${tag}`)) ? true : undefined),
    'the command to start',
  )
  return turnId
}

const personAllows =
  (roomId: string, decision: 'allow-once' | 'allow-always') => async (turnId: string) => {
    const view = await waitForPendingApproval(harness, roomId, turnId)
    expect((await decide(harness, view, decision)).status).toBe(200)
  }

/** Whether the command ran to its end, and how its call was recorded. */
async function outcome(roomId: string, turnId: string, tag: string) {
  await turnSettled(harness, roomId, turnId)
  const calls = await toolCallsOf(harness, roomId, turnId)
  return {
    after: existsSync(inWorkspace(`after-${tag}`)),
    call: calls.at(-1)?.status,
    code: calls.at(-1)?.result?.code,
  }
}

/** A room whose approver webhook (a real one on loopback) approves
 *  everything it is sent. */
async function roomWithWebhook(): Promise<string> {
  const roomId = await roomAt('ask-for-approval')
  const set = await putApproverWebhook(harness, roomId, approver.url)
  expect(set.status).toBe(200)
  const secret = (set.body as { secret?: string }).secret ?? ''
  approver.behaviour = (request) => signedReply(secret, request, '{"approved": true}')
  return roomId
}

/** Allowed by the room's approver webhook, which `url` then replaces
 *  (null: removes). */
function webhookChanged(url: () => string | null): Row['run'] {
  return async (tag) => {
    const roomId = await roomWithWebhook()
    const turnId = await started(roomId, tag, null)
    expect((await putApproverWebhook(harness, roomId, url())).status).toBe(200)
    return { roomId, turnId }
  }
}

const STOPPED = { after: false, call: 'failed', code: 'aborted' }
const RAN = { after: true, call: 'succeeded', code: undefined }

interface Row {
  allower: string
  change: string
  expected: typeof STOPPED | typeof RAN
  run: (tag: string) => Promise<{ roomId: string; turnId: string }>
}

/** Allowed by the full-access policy, unasked and uncontained. */
function fullAccess(to: PermissionMode): Row['run'] {
  return async (tag) => {
    const roomId = await roomAt('full-access')
    const turnId = await started(roomId, tag, null)
    await setMode(harness, roomId, to)
    return { roomId, turnId }
  }
}

const UNCONTAINED: Row[] = [
  { allower: 'full access', change: 'plan', expected: STOPPED, run: fullAccess('plan') },
  {
    allower: 'full access',
    change: 'ask-for-approval',
    expected: STOPPED,
    run: fullAccess('ask-for-approval'),
  },
  {
    allower: 'full access',
    change: 'approve-for-me',
    expected: STOPPED,
    run: fullAccess('approve-for-me'),
  },
]

const CONTAINED: Row[] = [
  {
    allower: 'the person',
    change: 'plan',
    expected: STOPPED,
    run: async (tag) => {
      const roomId = await roomAt('ask-for-approval')
      const turnId = await started(roomId, tag, personAllows(roomId, 'allow-once'))
      await setMode(harness, roomId, 'plan')
      return { roomId, turnId }
    },
  },
  {
    allower: 'a command grant',
    change: 'the grant revoked',
    expected: STOPPED,
    run: async (tag) => {
      const roomId = await roomAt('ask-for-approval')
      // The first run, allowed always, goes to its end and makes the grant.
      const first = await started(roomId, tag, personAllows(roomId, 'allow-always'))
      await turnSettled(harness, roomId, first)
      for (const name of [`started-${tag}`, `after-${tag}`]) rmSync(inWorkspace(name))
      const [grant] = await roomGrants(harness, roomId)
      const turnId = await started(roomId, tag, null)
      const revoked = await harness.client.raw(
        'DELETE',
        `/v1/rooms/${roomId}/grants/${grant?.id ?? ''}`,
      )
      expect(revoked.status).toBe(200)
      return { roomId, turnId }
    },
  },
  {
    allower: 'the approver webhook',
    change: 'the webhook removed',
    expected: STOPPED,
    run: webhookChanged(() => null),
  },
  {
    allower: 'the approver webhook',
    change: 'the webhook replaced by another',
    expected: STOPPED,
    run: webhookChanged(() => `${approver.url}?another`),
  },
  {
    allower: 'the person (control)',
    change: 'widened to full access',
    expected: RAN,
    run: async (tag) => {
      const roomId = await roomAt('ask-for-approval')
      const turnId = await started(roomId, tag, personAllows(roomId, 'allow-once'))
      await setMode(harness, roomId, 'full-access')
      return { roomId, turnId }
    },
  },
  {
    allower: 'the person (control)',
    change: 'approve-for-me narrowed to ask-for-approval',
    expected: RAN,
    run: async (tag) => {
      const roomId = await roomAt('ask-for-approval')
      await setMode(harness, roomId, 'approve-for-me')
      // The reviewer leaves a shell command to the person.
      const turnId = await started(roomId, tag, personAllows(roomId, 'allow-once'))
      await setMode(harness, roomId, 'ask-for-approval')
      return { roomId, turnId }
    },
  },
]

function walk(rows: Row[], prefix: string): void {
  it.each(rows.map((row, index) => ({ ...row, tag: `${prefix}${index}` })))(
    'a command allowed by $allower, then $change while it runs',
    { timeout: 30_000 },
    async ({ run, tag, expected }) => {
      const { roomId, turnId } = await run(tag)
      expect(await outcome(roomId, turnId, tag)).toEqual(expected)
    },
  )
}

describe('a command running uncontained when its room changes', () => {
  walk(UNCONTAINED, 'u')
})

describe.runIf(HAS_BWRAP)('a contained command running when its room changes', () => {
  walk(CONTAINED, 'c')
})

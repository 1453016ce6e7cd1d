import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFile } from 'node:fs/promises'
import type { ActionReviewer } from '../src/runtime/policy/reviewer.ts'
import { ApproverServer, signedReply } from './support/approver-server.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import {
  expectMovedAside,
  layMadeWorkspace,
  MADE_SCRIPT,
  madeScript,
  PERSON_ONLY_MADE,
} from './support/person-only-made.ts'
import { putApproverWebhook, reviewedApproval } from './support/person-only-table.ts'
import {
  decide,
  roomGrants,
  setMode,
  toolCallsOf,
  waitForPendingApproval,
} from './support/policy-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

/**
 * What a command makes that only a person may make, where none of it was,
 * through every door that lets a command run, against a real runtime and a
 * real bubblewrap: the table of support/person-only-made.ts, each row run
 * by the same script (`sh build.sh`), whose words name nothing a door
 * would ask about. Whoever allowed it, what the script made is moved aside
 * and the call is recorded as failed, saying so; what else it wrote stays.
 */

const HAS_BWRAP = await bubblewrapRequired()
const RUN = `run sh ${MADE_SCRIPT}`

/** A plugged-in reviewer that allows everything it is shown. */
const ALLOWS_EVERYTHING: ActionReviewer = {
  review: () => Promise.resolve({ verdict: 'allow', reason: 'looks fine to me' }),
}

interface Door {
  name: string
  reviewer?: ActionReviewer
  /** Makes the room's door open: a grant, a mode, a webhook. */
  prepare(harness: RuntimeHarness, roomId: string): Promise<void>
  /** Runs the script through the door; the turn's id. */
  run(harness: RuntimeHarness, roomId: string): Promise<string>
}

let approver: ApproverServer | undefined

const DOORS: Door[] = [
  {
    name: 'the person allows it once',
    prepare: async () => undefined,
    run: async (harness, roomId) => {
      const turnId = await send(harness, roomId, RUN)
      const view = await waitForPendingApproval(harness, roomId, turnId)
      expect((await decide(harness, view, 'allow-once')).status).toBe(200)
      return turnId
    },
  },
  {
    name: 'a grant for the command, made by the person’s "always allow"',
    prepare: async (harness, roomId) => {
      const turnId = await send(harness, roomId, RUN)
      const view = await waitForPendingApproval(harness, roomId, turnId)
      expect((await decide(harness, view, 'allow-always')).status).toBe(200)
      await turnSettled(harness, roomId, turnId)
      expect(await roomGrants(harness, roomId)).toMatchObject([{ toolName: 'run_command' }])
    },
    run: (harness, roomId) => send(harness, roomId, RUN),
  },
  {
    name: 'a plugged-in approve-for-me reviewer that allows everything',
    reviewer: ALLOWS_EVERYTHING,
    prepare: async (harness, roomId) => void (await setMode(harness, roomId, 'approve-for-me')),
    run: async (harness, roomId) => {
      const { turnId, approval } = await reviewedApproval(harness, roomId, RUN)
      expect(approval).toMatchObject({ status: 'allowed', decidedBy: 'agent-review' })
      return turnId
    },
  },
  {
    name: 'an approver webhook that always approves',
    prepare: async (harness, roomId) => {
      const set = await putApproverWebhook(harness, roomId, approver!.url)
      expect(set.status).toBe(200)
      const secret = (set.body as { secret?: string }).secret ?? ''
      approver!.behaviour = (request) => signedReply(secret, request, '{"approved": true}')
    },
    run: async (harness, roomId) => {
      const { turnId, approval } = await reviewedApproval(harness, roomId, RUN)
      expect(approval).toMatchObject({ status: 'allowed', decidedBy: 'webhook' })
      return turnId
    },
  },
]

beforeAll(async () => {
  approver = await ApproverServer.start()
})
afterAll(async () => {
  await approver?.close()
})

describe.runIf(HAS_BWRAP).each(DOORS)('$name', (door) => {
  let harness: RuntimeHarness
  let rooms = 0

  beforeAll(async () => {
    harness = await startInProcessRuntime(door.reviewer ? { reviewer: door.reviewer } : {})
  })
  afterAll(async () => {
    await harness?.close()
  })

  it.each(PERSON_ONLY_MADE)('%s: moved aside, the call failed', async (_name, line, moved) => {
    rooms += 1
    const workspace = await layMadeWorkspace(join(harness.root, `made-${rooms}`))
    const roomId = (await createRoom(harness, { workspace })).id
    await door.prepare(harness, roomId)
    await writeFile(join(workspace, MADE_SCRIPT), madeScript(line))
    const turnId = await door.run(harness, roomId)
    await turnSettled(harness, roomId, turnId)
    const [call] = await toolCallsOf(harness, roomId, turnId)
    expect(call).toMatchObject({
      toolName: 'run_command',
      status: 'failed',
      result: { ok: false, code: 'person_only_made' },
    })
    await expectMovedAside(workspace, moved, call?.result?.output ?? '')
  })
})

import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { ActionReviewer } from '../src/runtime/policy/reviewer.ts'
import { ApproverServer, signedReply } from './support/approver-server.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import {
  CONTROL_PATH,
  contentOf,
  denyAndSettle,
  EVIL,
  layPersonOnlyWorkspace,
  ORIGINAL,
  PERSON_ONLY_PATHS,
  COMMAND_CONTROLS,
  COMMAND_SPELLINGS,
  SHELL_ONLY_SPELLINGS,
  putApproverWebhook,
  reviewedApproval,
} from './support/person-only-table.ts'
import { setMode } from './support/policy-helpers.ts'
import { createRoom, turnSettled } from './support/room-helpers.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

/**
 * The doors that decide in the person's place without a grant, against a
 * real runtime (in this process, so a reviewer can be handed in): the
 * approve-for-me reviewer, built in or plugged in, and the approver
 * webhook. The same table as the grant doors (person-only-doors.test.ts);
 * each door first proves it decides the control path itself.
 */

const write = (path: string) => `write ${path} ${EVIL}`

/** Why neither decider is asked about a change to a file whose current
 *  lines the approval holds and a read of which would be private. */
const KEPT_FROM_DECIDERS = /is asked about what it replaces/

/** A plugged-in reviewer that allows everything it is shown. */
const ALLOWS_EVERYTHING: ActionReviewer = {
  review: () => Promise.resolve({ verdict: 'allow', reason: 'looks fine to me' }),
}

describe.each([
  { name: 'the built-in approve-for-me reviewer', reviewer: undefined },
  {
    name: 'a plugged-in approve-for-me reviewer that allows everything',
    reviewer: ALLOWS_EVERYTHING,
  },
])('$name', ({ reviewer }) => {
  let harness: RuntimeHarness
  let workspace: string
  let roomId: string

  beforeAll(async () => {
    harness = await startInProcessRuntime(reviewer ? { reviewer } : {})
    workspace = await layPersonOnlyWorkspace(join(harness.root, 'reviewed'))
    roomId = (await createRoom(harness, { workspace })).id
    await setMode(harness, roomId, 'approve-for-me')
  })
  afterAll(async () => {
    await harness?.close()
  })

  it('allows the write to the control path itself, and it lands', async () => {
    const { turnId, approval } = await reviewedApproval(harness, roomId, write(CONTROL_PATH))
    expect(approval).toMatchObject({ status: 'allowed', decidedBy: 'agent-review' })
    await turnSettled(harness, roomId, turnId)
    expect(await contentOf(workspace, CONTROL_PATH)).toBe(EVIL)
  })

  it.each(PERSON_ONLY_PATHS)(
    'never allows a write to %s: it is refused or left to the person, and nothing is written',
    async (path) => {
      const { turnId, approval } = await reviewedApproval(harness, roomId, write(path))
      if (approval.escalationReason?.match(KEPT_FROM_DECIDERS)) {
        // A file whose current lines a read would keep from them (a
        // secret's name, another name): the write's preview holds them,
        // so no reviewer hears of it (deciders-replaced-content.test.ts).
        expect(approval.status).toBe('pending')
      } else if (reviewer) {
        // Whatever the plugged-in reviewer says, its allow goes to the person.
        expect(approval.status).toBe('pending')
        expect(approval.escalationReason).toMatch(/automatic review may not allow it/)
      } else {
        expect(approval).toMatchObject({ status: 'denied', decidedBy: 'agent-review' })
      }
      expect(await contentOf(workspace, path)).toBe(ORIGINAL)
      if (approval.status === 'pending') await denyAndSettle(harness, roomId, turnId, approval.id)
      else await turnSettled(harness, roomId, turnId)
      expect(await contentOf(workspace, path)).toBe(ORIGINAL)
    },
  )
})

const WRITES = [
  { name: 'a built-in write', write },
  {
    name: "a write through the built-in filesystem server's MCP tool",
    write: (path: string) => `mcp filesystem write_file ${JSON.stringify({ path, content: EVIL })}`,
  },
]

describe('a room whose approver webhook always approves', () => {
  let harness: RuntimeHarness
  let approver: ApproverServer
  let secret: string

  beforeAll(async () => {
    harness = await startInProcessRuntime({})
    approver = await ApproverServer.start()
    approver.behaviour = (request) => signedReply(secret, request, '{"approved": true}')
  })
  afterAll(async () => {
    await approver?.close()
    await harness?.close()
  })
  beforeEach(() => {
    approver.requests.length = 0
  })

  describe.each(WRITES)('$name', (form) => {
    let workspace: string
    let roomId: string

    beforeAll(async () => {
      workspace = await layPersonOnlyWorkspace(join(harness.root, `webhook-${randomUUID()}`))
      roomId = (await createRoom(harness, { workspace })).id
      const set = await putApproverWebhook(harness, roomId, approver.url)
      expect(set.status).toBe(200)
      secret = (set.body as { secret?: string }).secret ?? ''
    })

    it('is decided by the webhook for the control path, and lands', async () => {
      const { turnId, approval } = await reviewedApproval(harness, roomId, form.write(CONTROL_PATH))
      expect(approval).toMatchObject({ status: 'allowed', decidedBy: 'webhook' })
      expect(approver.requests.map((request) => request.body.approvalId)).toEqual([approval.id])
      await turnSettled(harness, roomId, turnId)
      expect(await contentOf(workspace, CONTROL_PATH)).toBe(EVIL)
    })

    it.each(PERSON_ONLY_PATHS)(
      'is never sent to the webhook for %s: it stays pending for the person, unwritten',
      async (path) => {
        const { turnId, approval } = await reviewedApproval(harness, roomId, form.write(path))
        expect(approval.status).toBe('pending')
        // Person-only, a private read where a spelling leads where only
        // the server knows (`$INDEX_ALLOCATION`), or a change to a file
        // whose current lines are kept from it: never the webhook's.
        expect(approval.escalationReason).toMatch(
          /approver webhook is not asked|private read|is asked about what it replaces/,
        )
        expect(approver.requests).toEqual([])
        expect(await contentOf(workspace, path)).toBe(ORIGINAL)
        await denyAndSettle(harness, roomId, turnId, approval.id)
        expect(await contentOf(workspace, path)).toBe(ORIGINAL)
        expect(approver.requests).toEqual([])
      },
    )
  })

  // Commands as a shell reads them (support/person-only-table.ts): the
  // scripted agent's `run` splits on white space and drops quotes, and
  // runs the words with no shell: a spelling that only a shell turns into
  // `.git` or a git command (SHELL_ONLY_SPELLINGS) reaches the program as
  // a harmless literal there, which the webhook may decide. Those are
  // walked through the doors that run a shell (an external agent's
  // command, and the rule with `sh -c`), the rest through this one.
  const throughRun = COMMAND_SPELLINGS.filter(([name]) => !SHELL_ONLY_SPELLINGS.has(name))
  describe('a command', () => {
    let roomId: string

    beforeAll(async () => {
      const workspace = await layPersonOnlyWorkspace(
        join(harness.root, `webhook-${randomUUID()}`),
        { hardLinkedHook: false },
      )
      roomId = (await createRoom(harness, { workspace })).id
      const set = await putApproverWebhook(harness, roomId, approver.url)
      expect(set.status).toBe(200)
      secret = (set.body as { secret?: string }).secret ?? ''
    })

    it.each(COMMAND_CONTROLS)('is decided by the webhook: %s', async (line) => {
      const { turnId, approval } = await reviewedApproval(harness, roomId, `run ${line}`)
      expect(approval).toMatchObject({ status: 'allowed', decidedBy: 'webhook' })
      await turnSettled(harness, roomId, turnId)
    })

    it.each(throughRun)('is never sent to the webhook for %s: %s', async (_name, line) => {
      const { turnId, approval } = await reviewedApproval(harness, roomId, `run ${line}`)
      expect(approval.status).toBe('pending')
      expect(approval.escalationReason).toMatch(/approver webhook is not asked/)
      expect(approver.requests).toEqual([])
      await denyAndSettle(harness, roomId, turnId, approval.id)
    })
  })
})

import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ActionReviewer } from '../src/runtime/policy/reviewer.ts'
import { ApproverServer, signedReply } from './support/approver-server.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import {
  denyAndSettle,
  EVIL,
  putApproverWebhook,
  reviewedApproval,
  turnOutcome,
} from './support/person-only-table.ts'
import { decide, roomGrants, setMode } from './support/policy-helpers.ts'
import { createRoom, pendingApprovalFor, turnSettled } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * Assent's own files (its data folder, mcp.json, agents.json) walked
 * through every door that may allow without the person, in a workspace
 * that holds the runtime's data folder (a checkout's development data, or
 * a turn widened to a folder above it): a grant, the built-in filesystem
 * server's MCP tool under a grant, a reviewer that allows everything and
 * an approver webhook that always approves. A write there would change
 * which servers run and what runs unasked: none of them answers for it.
 * The same files through an external agent's request
 * (person-only-external) and through the gateway, which refuses any call
 * naming them (gateway-assent-own), are walked there.
 */
const OWN_FILES = ['data/mcp.json', 'data/agents.json', 'data/notes.txt'] as const
const ORIGINAL = '{"servers": []}\n'
const CONTROL = 'control.txt'

const write = (path: string) => `write ${path} ${EVIL}`
const mcpWrite = (path: string) =>
  `mcp filesystem write_file ${JSON.stringify({ path, content: EVIL })}`

/** Lays each of Assent's own files as `ORIGINAL`, except one the runtime
 *  already wrote (kept as it is); returns what each holds. */
async function layOwnFiles(root: string): Promise<Map<string, string>> {
  const held = new Map<string, string>()
  for (const path of OWN_FILES) {
    const full = join(root, path)
    const before = await readFile(full, 'utf8').catch(() => null)
    if (before === null) await writeFile(full, ORIGINAL)
    held.set(path, before ?? ORIGINAL)
  }
  return held
}

const contentOf = (root: string, path: string) => readFile(join(root, path), 'utf8')

describe('grants, in a workspace holding the data folder', () => {
  let harness: RuntimeHarness
  let held: Map<string, string>

  beforeAll(async () => {
    harness = await startHarness()
    held = await layOwnFiles(harness.root)
  })
  afterAll(async () => {
    await harness?.close()
  })

  it.each([
    { name: 'a write_file tool grant', first: write('first.txt'), call: write },
    {
      name: "the built-in filesystem server's write_file under a grant",
      first: mcpWrite('first.txt'),
      call: mcpWrite,
    },
  ])('$name never answers for them', async ({ first, call }) => {
    const roomId = (await createRoom(harness, { workspace: harness.root })).id
    const view = await pendingApprovalFor(harness, roomId, first)
    expect((await decide(harness, view, 'allow-always')).status).toBe(200)
    await turnSettled(harness, roomId, view.approval.turnId)
    expect(await roomGrants(harness, roomId)).toHaveLength(1)
    // The grant answers elsewhere in the same workspace.
    const control = await turnOutcome(harness, roomId, call(CONTROL))
    expect(control.call).toMatchObject({ status: 'succeeded', approvalId: null })
    for (const path of OWN_FILES) {
      const outcome = await turnOutcome(harness, roomId, call(path))
      if (outcome.asked) {
        // The built-in tool: left to the person, never "always".
        expect(outcome.asked.approval.status).toBe('pending')
        expect(outcome.asked.alwaysAllowAvailable).toBe(false)
        expect(await contentOf(harness.root, path)).toBe(held.get(path))
        await denyAndSettle(harness, roomId, outcome.turnId, outcome.asked.approval.id)
      } else {
        // An MCP call: refused before anything is asked or run.
        expect(outcome.call?.status, path).not.toBe('succeeded')
        expect(JSON.stringify(outcome.call?.result)).toContain("Assent's own")
      }
      expect(await contentOf(harness.root, path)).toBe(held.get(path))
    }
  })
})

/** A plugged-in reviewer that allows everything it is shown. */
const ALLOWS_EVERYTHING: ActionReviewer = {
  review: () => Promise.resolve({ verdict: 'allow', reason: 'looks fine to me' }),
}

describe('a reviewer that allows everything, and a webhook that always approves', () => {
  let harness: RuntimeHarness
  let approver: ApproverServer
  let secret: string
  let held: Map<string, string>

  beforeAll(async () => {
    harness = await startInProcessRuntime({ reviewer: ALLOWS_EVERYTHING })
    approver = await ApproverServer.start()
    approver.behaviour = (request) => signedReply(secret, request, '{"approved": true}')
    held = await layOwnFiles(harness.root)
  })
  afterAll(async () => {
    await approver?.close()
    await harness?.close()
  })

  it('the reviewer is overruled for each: the person is asked', async () => {
    const roomId = (await createRoom(harness, { workspace: harness.root })).id
    await setMode(harness, roomId, 'approve-for-me')
    const control = await reviewedApproval(harness, roomId, write(CONTROL))
    expect(control.approval).toMatchObject({ status: 'allowed', decidedBy: 'agent-review' })
    await turnSettled(harness, roomId, control.turnId)
    for (const path of OWN_FILES) {
      const { turnId, approval } = await reviewedApproval(harness, roomId, write(path))
      expect(approval.status).toBe('pending')
      expect(approval.escalationReason).toMatch(
        /automatic review may not allow it|is asked about what it replaces/,
      )
      await denyAndSettle(harness, roomId, turnId, approval.id)
      expect(await contentOf(harness.root, path)).toBe(held.get(path))
    }
  })

  it('the webhook is never asked for them', async () => {
    const roomId = (await createRoom(harness, { workspace: harness.root })).id
    const set = await putApproverWebhook(harness, roomId, approver.url)
    expect(set.status).toBe(200)
    secret = (set.body as { secret?: string }).secret ?? ''
    const control = await reviewedApproval(harness, roomId, write(CONTROL))
    expect(control.approval).toMatchObject({ status: 'allowed', decidedBy: 'webhook' })
    await turnSettled(harness, roomId, control.turnId)
    approver.requests.length = 0
    for (const path of OWN_FILES) {
      const { turnId, approval } = await reviewedApproval(harness, roomId, write(path))
      expect(approval.status).toBe('pending')
      expect(approval.escalationReason).toMatch(
        /approver webhook is not asked|is asked about what it replaces/,
      )
      await denyAndSettle(harness, roomId, turnId, approval.id)
      expect(await contentOf(harness.root, path)).toBe(held.get(path))
    }
    expect(approver.requests).toEqual([])
  })
})

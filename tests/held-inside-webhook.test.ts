import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { ApproverServer, signedReply } from './support/approver-server.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { denyAndSettle, putApproverWebhook, reviewedApproval } from './support/person-only-table.ts'
import { createRoom, turnSettled } from './support/room-helpers.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

// A recursive delete names one folder, and what only a person may change
// inside it (a nested repository's git folder, with its hooks, config and
// unpushed history; the CI workflows of `.github`) makes it the person's
// (held-inside.ts): the approver webhook, which is never asked about a
// change to `.git`, is not asked about it either. Its unit table,
// walked for each kind of action, is src/runtime/policy/held-inside.test.ts.

let harness: RuntimeHarness
let approver: ApproverServer
let secret = ''
let workspace: string
let roomId: string

beforeAll(async () => {
  harness = await startInProcessRuntime({})
  approver = await ApproverServer.start()
  approver.behaviour = (request) => signedReply(secret, request, '{"approved": true}')
  workspace = join(harness.root, `webhook-${randomUUID()}`)
  for (const folder of ['build/out', 'vendor/lib/.git/hooks', '.github/workflows']) {
    await mkdir(join(workspace, folder), { recursive: true })
  }
  await writeFile(join(workspace, 'build/out/a.o'), 'object\n')
  await writeFile(join(workspace, 'vendor/lib/.git/HEAD'), 'ref: refs/heads/main\n')
  await writeFile(join(workspace, 'vendor/lib/.git/config'), '[core]\n\tbare = false\n')
  await writeFile(join(workspace, 'vendor/lib/.git/hooks/pre-commit'), '#!/bin/sh\n')
  await writeFile(join(workspace, 'vendor/lib/code.c'), 'int main;\n')
  await writeFile(join(workspace, '.github/workflows/ci.yml'), 'on: push\n')
  roomId = (await createRoom(harness, { workspace })).id
  const set = await putApproverWebhook(harness, roomId, approver.url)
  expect(set.status).toBe(200)
  secret = (set.body as { secret?: string }).secret ?? ''
})
afterAll(async () => {
  await approver?.close()
  await harness?.close()
})
beforeEach(() => {
  approver.requests.length = 0
})

describe('a recursive delete in a room whose approver webhook always approves', () => {
  it('control: an ordinary folder is decided by the webhook, and removed', async () => {
    const { turnId, approval } = await reviewedApproval(harness, roomId, 'delete -r build')
    expect(approval).toMatchObject({ status: 'allowed', decidedBy: 'webhook' })
    await turnSettled(harness, roomId, turnId)
    expect(existsSync(join(workspace, 'build'))).toBe(false)
  })

  it.each([
    ['vendor', 'vendor/lib/.git/hooks/pre-commit'],
    ['.github', '.github/workflows/ci.yml'],
  ])(
    'of %s, which holds %s, is never sent to the webhook: it waits for the person',
    async (folder, kept) => {
      const { turnId, approval } = await reviewedApproval(harness, roomId, `delete -r ${folder}`)
      if (approval.status === 'pending') await denyAndSettle(harness, roomId, turnId, approval.id)
      else await turnSettled(harness, roomId, turnId)
      expect(existsSync(join(workspace, kept))).toBe(true)
      expect(approver.requests).toEqual([])
      expect(approval.status).toBe('pending')
    },
  )
})

import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalSummary } from '../src/contracts/approval.ts'
import { ApproverWebhookChangeAnswerSchema } from '../src/contracts/approver-webhook.ts'
import { ApproverServer, signedReply } from './support/approver-server.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { writeNotesConfig } from './support/mcp-gateway-harness.ts'
import { putApproverWebhook } from './support/person-only-table.ts'
import { createRoom } from './support/room-helpers.ts'
import { readNoteApproval, settleTurn } from './support/room-mcp-call.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

// docs/policy-and-modes.md: an MCP call naming, word by word, a place
// outside the workspace is a private read, and the approver webhook is
// never given one; "a network URL (https://…) names no place here".
// private-read-approval.ts takes `scheme://host…` tokens out of the
// arguments before judging them, but not one with a `..` segment: a string
// that parses as a URL is, to a server that takes it as a path, a relative
// path whose `..` segments climb past `http:` and the host
// (`http://x/../../../../etc/passwd` is `/etc/passwd` to path.resolve), so
// it is judged as the place it names.

let root: string
let outside: string
let harness: RuntimeHarness
let approver: ApproverServer
let secret = ''
let roomId: string
let workspace: string

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'assent-exp-modes-url-')))
  outside = join(root, 'elsewhere', 'secret.txt')
  await mkdir(join(root, 'elsewhere'), { recursive: true })
  await writeFile(outside, 'TOP-SECRET')
  const notes = await writeNotesConfig(root)
  harness = await startInProcessRuntime({ mcpConfigPath: notes.configPath })
  approver = await ApproverServer.start()
  approver.behaviour = (request) => signedReply(secret, request, '{"approved": true}')
  workspace = join(root, 'ws')
  await mkdir(workspace, { recursive: true })
  roomId = (await createRoom(harness, { workspace })).id
  const set = await putApproverWebhook(harness, roomId, approver.url)
  expect(set.status).toBe(200)
  secret = ApproverWebhookChangeAnswerSchema.parse(set.body).secret ?? ''
})
afterAll(async () => {
  await approver?.close()
  await harness?.close()
  await rm(root, { recursive: true, force: true })
})

const readNote = (name: string) => readNoteApproval(harness, roomId, name)
const settle = (turnId: string, approval: ApprovalSummary) =>
  settleTurn(harness, roomId, turnId, approval)

describe('an MCP read naming a place outside the workspace, in a room with an approver webhook', () => {
  it('control: a plain outside path is left to the person, the webhook hearing nothing', async () => {
    const sent = approver.requests.length
    const { turnId, approval } = await readNote(outside)
    expect(approver.requests.length).toBe(sent)
    expect(approval).toMatchObject({ status: 'pending' })
    expect(approval.escalationReason).toMatch(/private read/)
    await settle(turnId, approval)
  })

  it('leaves a URL-shaped path that climbs out of the workspace to the person too', async () => {
    // http://x/../../…/<outside>: a network URL to the regex, the outside
    // file to any server that takes its argument as a path.
    const climbing = `http://x/${'../'.repeat(40)}${outside.slice(1)}`
    expect(resolve(workspace, climbing)).toBe(outside)
    const sent = approver.requests.length
    const { turnId, approval } = await readNote(climbing)
    const heard = approver.requests.slice(sent).map((request) => request.body.approvalId)
    await settle(turnId, approval)
    // Now: the webhook is asked and its signed allow decides the read.
    expect(heard).toEqual([])
    expect(approval.decidedBy).toBeUndefined()
    expect(approval.escalationReason).toMatch(/private read/)
  })
})

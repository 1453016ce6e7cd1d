import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir, userInfo } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { ApprovalSummary } from '../src/contracts/approval.ts'
import { ApproverWebhookChangeAnswerSchema } from '../src/contracts/approver-webhook.ts'
import type { GatewayCallRequest } from '../src/contracts/mcp-gateway.ts'
import type { AgentIdentity } from '../src/contracts/agent-request.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import {
  askerWorldInTempWorkspace,
  codexRequest,
} from '../src/runtime/test-support/external-asker.ts'
import { ROOM_ID } from '../src/runtime/test-support/sqlite-stores.ts'
import { ALLOWING_DECIDERS, leftToThePersonByEach } from './support/allowing-deciders.ts'
import { ApproverServer, signedReply } from './support/approver-server.ts'
import { openGatewayCall, shellToolRequest } from './support/gateway-call-request.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { writeNotesConfig } from './support/mcp-gateway-harness.ts'
import { putApproverWebhook } from './support/person-only-table.ts'
import { decide, roomGrants } from './support/policy-helpers.ts'
import { createRoom } from './support/room-helpers.ts'
import { readNoteApproval, settleTurn } from './support/room-mcp-call.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

/**
 * Places spelled so that, read as written, they seem to lie in the
 * workspace, while the shell or the server that acts reads them elsewhere:
 * the folder the command runs in by its shell name (`~+`, `$PWD`),
 * another user's home (`~user`), a variable only the server knows, a
 * short option's value glued to its letter (`-f/x`, `-o.git/config`), a
 * path glued to a network URL by braces, this machine's loopback spelled
 * as a network address. Each is walked through every
 * door that answers for the person: a grant on an MCP tool (through the
 * gateway), the approver webhook (an MCP call in a room, and an external
 * agent's own tool) and the approve-for-me reviewer (an external agent's
 * own tool; an MCP call is never the reviewer's). None may answer it; the
 * person is asked. The control, a read inside the workspace, is answered
 * at each door. Codex's command is not walked with the reads: a command
 * is no read the private-read rule holds (variable-places-doors says
 * why); the rows that write (`-o.git/config`, `-t.git/hooks`) and the
 * places it cannot name are the person-only rule's for it
 * (person-only-external, variable-places-doors).
 */

const HASH = 'c'.repeat(64)

/** Another user of this machine with a home, and that home: one whose
 *  home is `/` where there is one (systemd's users on Debian), so that
 *  `~user/<path>`, read as written, stays inside the workspace. */
function anotherUser(): { name: string; home: string } {
  const me = userInfo().username
  const users = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .map(([name, , , , , home]) => ({ name: name ?? '', home: home ?? '' }))
    .filter(({ name, home }) => name !== '' && name !== me && home.startsWith('/'))
  const user = users.find(({ home }) => home === '/') ?? users[0]
  if (user === undefined) throw new Error('this machine lists no other user with a home')
  return user
}

/** The spellings, `OUTSIDE` standing for the outside file's path. */
const ROWS = [
  'cat OUTSIDE',
  'cat ~+/../elsewhere/diary.txt',
  'cat $PWD/../elsewhere/diary.txt',
  'cat ${OLDPWD}/diary.txt',
  'cat ~OTHER',
  'cat ~no-such-user-here/diary.txt',
  'cat $XDG_CONFIG_HOME/diary.txt',
  'cat docs/$SUB/../diary.txt',
  'cat {https://example.com/a,OUTSIDE}',
  'grep -fOUTSIDE docs',
  'sort -o.git/config docs/ok.txt',
  'cp -t.git/hooks docs/ok.txt',
  // This machine's loopback, which a server fetching it reaches as it
  // would `http://127.0.0.1:8080/`: inside IPv6 (the URL parser writes
  // it `[::ffff:7f00:1]`), and a name under `localhost`.
  'curl -s http://[::ffff:127.0.0.1]:8080/diary.txt',
  'curl -s http://[::ffff:7f00:1]:8080/diary.txt',
  'curl -s http://api.localhost:8080/diary.txt',
] as const
const CONTROL = 'cat docs/ok.txt'

let harness: RuntimeHarness
let notesRoot: string
let approver: ApproverServer
let outside: string
let gatewayRoom: string
let webhookRoom: string
let secret = ''

/** `row` with `outside` and another user's spelling of it. */
function spelled(row: string, outside: string): string {
  const user = anotherUser()
  const other = `~${user.name}/${relative(user.home, outside)}`
  return row.replaceAll('OUTSIDE', outside).replace('~OTHER', other)
}

/** A gated call of a shell server's tool, as assent-gateway sends one. */
function shellCall(command: string): GatewayCallRequest {
  return shellToolRequest(harness.workspace, command, HASH)
}

beforeAll(async () => {
  notesRoot = await mkdtemp(join(tmpdir(), 'assent-spelled-notes-'))
  const notes = await writeNotesConfig(notesRoot)
  harness = await startInProcessRuntime({ mcpConfigPath: notes.configPath })
  await mkdir(join(harness.workspace, 'docs'), { recursive: true })
  await mkdir(join(harness.workspace, '.git', 'hooks'), { recursive: true })
  await writeFile(join(harness.workspace, 'docs', 'ok.txt'), 'inside\n')
  outside = join(harness.root, 'elsewhere', 'diary.txt')
  await mkdir(join(harness.root, 'elsewhere'), { recursive: true })
  await writeFile(outside, 'private diary\n')
  // The grant: the person allows always the shell tool, on a read inside.
  const first = await openGatewayCall(harness, shellCall(CONTROL))
  expect(first.status).toBe('pending')
  const view = await harness.client.getApproval(first.approvalId ?? '')
  expect((await decide(harness, view, 'allow-always')).status).toBe(200)
  gatewayRoom = first.roomId
  expect(await roomGrants(harness, gatewayRoom)).toHaveLength(1)
  approver = await ApproverServer.start()
  approver.behaviour = (request) => signedReply(secret, request, '{"approved": true}')
  webhookRoom = (await createRoom(harness, { workspace: harness.workspace })).id
  const set = await putApproverWebhook(harness, webhookRoom, approver.url)
  expect(set.status).toBe(200)
  secret = ApproverWebhookChangeAnswerSchema.parse(set.body).secret ?? ''
})
afterAll(async () => {
  await approver?.close()
  await harness?.close()
  await rm(notesRoot, { recursive: true, force: true })
})

const roomCall = (roomId: string, name: string, options?: { decided?: boolean }) =>
  readNoteApproval(harness, roomId, name, options)
const settle = (roomId: string, turnId: string, approval: ApprovalSummary) =>
  settleTurn(harness, roomId, turnId, approval)

describe('a place spelled to seem inside the workspace, through the runtime', () => {
  it('control: a read inside is answered by the grant and by the webhook', async () => {
    expect(await openGatewayCall(harness, shellCall(CONTROL))).toMatchObject({ status: 'allowed' })
    const { turnId, approval } = await roomCall(webhookRoom, CONTROL, { decided: true })
    expect(approval).toMatchObject({ status: 'allowed', decidedBy: 'webhook' })
    await settle(webhookRoom, turnId, approval)
  })

  it.each(ROWS)('no grant answers an MCP call of %s', async (row) => {
    const opened = await openGatewayCall(harness, shellCall(spelled(row, outside)))
    expect({ status: opened.status, grantId: opened.grantId }).toEqual({
      status: 'pending',
      grantId: null,
    })
    const view = await harness.client.getApproval(opened.approvalId ?? '')
    expect((await decide(harness, view, 'deny')).status).toBe(200)
  })

  it.each(ROWS)('the webhook never hears of an MCP call of %s', async (row) => {
    const sent = approver.requests.length
    const { turnId, approval } = await roomCall(webhookRoom, spelled(row, outside))
    expect(approval).toMatchObject({ status: 'pending' })
    expect(approval.escalationReason).toBeDefined()
    expect(approver.requests.length).toBe(sent)
    await settle(webhookRoom, turnId, approval)
  })
})

describe('the same spellings in an external agent’s own tool', () => {
  const MAC = new IntegrityMac(Buffer.alloc(32, 9))
  const AGENT: AgentIdentity = { id: 'claude-acp', name: 'Claude over ACP', protocol: 'acp' }
  const DECIDERS = ALLOWING_DECIDERS
  let place: ReturnType<typeof askerWorldInTempWorkspace>
  let diary: string

  beforeEach(() => {
    place = askerWorldInTempWorkspace('assent-spelled-', MAC, AGENT)
    mkdirSync(join(place.workspace, 'docs'))
    mkdirSync(join(place.workspace, '.git', 'hooks'), { recursive: true })
    writeFileSync(join(place.workspace, 'docs', 'ok.txt'), 'inside\n')
    mkdirSync(join(place.root, 'elsewhere'))
    diary = join(place.root, 'elsewhere', 'diary.txt')
    writeFileSync(diary, 'private diary\n')
  })
  afterEach(() => place.dispose())

  /** The agent's own search tool running `line` in the workspace. */
  const search = (line: string) =>
    codexRequest({
      kind: 'tool',
      toolKind: 'search',
      title: 'Search',
      input: { command: line },
      locations: [],
    })

  it.each(DECIDERS)('control: $by answers a search inside the workspace', async (decider) => {
    const { asker } = place.world.askerUnder(policyForMode(decider.mode), decider.parts)
    expect(await asker.ask(search(CONTROL), new AbortController().signal)).toBe('allow-once')
    expect(place.world.stores.approvals.listByRoom(ROOM_ID)).toMatchObject([
      { status: 'allowed', decidedBy: decider.by },
    ])
  })

  it.each(ROWS)('neither the reviewer nor the webhook answers %s', (row) =>
    leftToThePersonByEach(place.world, () => search(spelled(row, diary))),
  )
})

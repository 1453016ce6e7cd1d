import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { scaledMs } from '../scripts/test-timing.ts'
import {
  ApproverWebhookChangeAnswerSchema,
  type ApproverWebhookChangeAnswer,
} from '../src/contracts/approver-webhook.ts'
import type { ApprovalSummary } from '../src/contracts/approval.ts'
import { mintConsentToken } from '../src/consent/consent-token.ts'
import { CONSENT_HEADER } from '../src/contracts/http-headers.ts'
import { actionDigest, canonicalAction } from '../src/runtime/domain/approval.ts'
import { DATABASE_FILE_NAME } from '../src/runtime/store/database.ts'
import {
  ApproverServer,
  requestSignedWith,
  signedReply,
  webhookIdOf,
  type ReceivedRequest,
} from './support/approver-server.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { editDatabase } from './support/integrity-helpers.ts'
import { auditEvents, outsideDir, roomApprovals, setMode } from './support/policy-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { eventually, rawHttp, type RuntimeHarness } from './support/runtime-harness.ts'

/** How long the runtime gives the approver; a slow one takes twice that. */
const WEBHOOK_TIMEOUT_MS = scaledMs(3_000)
const APPROVED = '{"approved": true}'

describe('a room whose approver webhook decides in the person’s place', () => {
  let harness: RuntimeHarness
  let approver: ApproverServer
  let roomId: string
  let webhook: ApproverWebhookChangeAnswer
  let secret: string

  beforeAll(async () => {
    harness = await startInProcessRuntime({ approverWebhookTimeoutMs: WEBHOOK_TIMEOUT_MS })
    approver = await ApproverServer.start()
    roomId = (await createRoom(harness)).id
    const answer = await putWebhook(harness, roomId, approver.url)
    expect(answer.status).toBe(200)
    webhook = ApproverWebhookChangeAnswerSchema.parse(answer.body)
    secret = webhook.secret ?? ''
  })
  afterAll(async () => {
    await approver?.close()
    await harness?.close()
  })
  beforeEach(() => {
    approver.requests.length = 0
  })

  /** Sends a write, lets the webhook decide, and answers the decided
   *  approval and whether the file was written. */
  async function decided(name: string, behaviour: ApproverServer['behaviour']) {
    approver.behaviour = behaviour
    const turnId = await send(harness, roomId, `write ${name} from-the-agent`)
    await turnSettled(harness, roomId, turnId)
    const approval = (await roomApprovals(harness, roomId)).find((each) => each.turnId === turnId)
    if (!approval) throw new Error('no approval was opened')
    return { approval, wrote: existsSync(join(harness.workspace, name)) }
  }

  function expectDeniedByWebhook(
    result: { approval: ApprovalSummary; wrote: boolean },
    reason: RegExp,
  ) {
    expect(result.wrote).toBe(false)
    expect(result.approval).toMatchObject({
      status: 'denied',
      decision: 'deny',
      decidedBy: 'webhook',
    })
    expect(result.approval.reason).toMatch(reason)
  }

  it('allows once on a signed {"approved": true} for this approval, and audits it as decidedBy webhook', async () => {
    const result = await decided('allowed.txt', (request) => signedReply(secret, request, APPROVED))
    expect(result.wrote).toBe(true)
    expect(result.approval).toMatchObject({
      status: 'allowed',
      decision: 'allow-once',
      decidedBy: 'webhook',
    })
    const resolved = (await auditEvents(harness)).find(
      (event) => event.type === 'approval_resolved' && event.subjectId === result.approval.id,
    )
    expect(resolved?.payload).toMatchObject({ decidedBy: 'webhook', decision: 'allow-once' })
  })

  it('sends the canonical action the person would see, signed with the webhook secret, with a fresh nonce', async () => {
    const first = await decided('signed-1.txt', (request) => signedReply(secret, request, APPROVED))
    const second = await decided('signed-2.txt', (request) =>
      signedReply(secret, request, APPROVED),
    )
    const [one, two] = approver.requests as [ReceivedRequest, ReceivedRequest]
    expect(requestSignedWith(one, secret)).toBe(true)
    expect(requestSignedWith(one, 'another-secret')).toBe(false)
    expect(webhookIdOf(one)).toBe(webhook.webhook?.webhookId)
    const view = await harness.client.getApproval(first.approval.id)
    expect(one.body).toMatchObject({
      version: 1,
      approvalId: first.approval.id,
      actionDigest: view.actionDigest,
      action: view.action,
    })
    expect(actionDigest(canonicalAction(view.approval))).toBe(one.body.actionDigest)
    expect(two.body.approvalId).toBe(second.approval.id)
    expect(two.body.nonce).not.toBe(one.body.nonce)
  })

  it('denies on a signed {"approved": false}', async () => {
    expectDeniedByWebhook(
      await decided('refused.txt', (request) =>
        signedReply(secret, request, '{"approved": false}'),
      ),
      /did not approve/,
    )
  })

  it('denies when the approver does not answer in time', async () => {
    expectDeniedByWebhook(
      await decided('slow.txt', (request) => ({
        ...signedReply(secret, request, APPROVED),
        delayMs: WEBHOOK_TIMEOUT_MS * 2,
      })),
      /did not answer within/,
    )
  })

  for (const [what, body] of [
    ['a string for true', '{"approved": "true"}'],
    ['another member beside it', '{"approved": true, "scope": "all"}'],
    ['a second "approved"', '{"approved": false, "approved": true}'],
    ['an array', '[{"approved": true}]'],
    ['no JSON at all', 'approved'],
    ['an empty body', ''],
  ] as const) {
    it(`denies a malformed answer, signed but not exactly {"approved": true}: ${what}`, async () => {
      expectDeniedByWebhook(
        await decided(`malformed-${randomUUID()}.txt`, (request) =>
          signedReply(secret, request, body),
        ),
        /did not approve/,
      )
    })
  }

  it('denies a redirect, and never follows it to an approver that would allow', async () => {
    const other = await ApproverServer.start()
    try {
      other.behaviour = (request) => signedReply(secret, request, APPROVED)
      expectDeniedByWebhook(
        await decided('redirected.txt', () => ({
          status: 307,
          headers: { location: other.url },
        })),
        /answered 307: redirects are not followed/,
      )
      expect(other.requests).toEqual([])
    } finally {
      await other.close()
    }
  })

  it('denies a 2xx answer signed with another secret, and one not signed at all', async () => {
    expectDeniedByWebhook(
      await decided('wrong-secret.txt', (request) =>
        signedReply('x'.repeat(43), request, APPROVED),
      ),
      /not signed for this approval/,
    )
    expectDeniedByWebhook(
      await decided('unsigned.txt', () => ({ status: 200, body: APPROVED })),
      /not signed/,
    )
  })

  it('denies an answer signed for another approval, or for another digest', async () => {
    expectDeniedByWebhook(
      await decided('other-approval.txt', (request) =>
        signedReply(secret, request, APPROVED, { approvalId: 'another-approval' }),
      ),
      /not signed for this approval/,
    )
    expectDeniedByWebhook(
      await decided('other-digest.txt', (request) =>
        signedReply(secret, request, APPROVED, { actionDigest: 'f'.repeat(64) }),
      ),
      /not signed for this approval/,
    )
  })

  it('denies a replayed answer: a genuine allow captured for one request, sent again for the next', async () => {
    let captured: ReturnType<typeof signedReply> | undefined
    const first = await decided('replay-source.txt', (request) => {
      captured = signedReply(secret, request, APPROVED)
      return captured
    })
    expect(first.wrote).toBe(true)
    expectDeniedByWebhook(
      await decided('replay-target.txt', () => captured!),
      /not signed for this approval/,
    )
  })

  it('denies an answer whose timestamp is outside the window', async () => {
    expectDeniedByWebhook(
      await decided('stale-answer.txt', (request) =>
        signedReply(secret, request, APPROVED, { timestamp: String(Date.now() - 10 * 60_000) }),
      ),
      /outside the time window/,
    )
  })

  it('denies on an error status, even with a signed approval in the body', async () => {
    expectDeniedByWebhook(
      await decided('error.txt', (request) => ({
        ...signedReply(secret, request, APPROVED),
        status: 500,
      })),
      /answered 500/,
    )
  })

  it('decides only what the room would ask the person: the approve-for-me reviewer answers first, and what it escalates goes to the webhook', async () => {
    const room = (await createRoom(harness)).id
    const set = await putWebhook(harness, room, approver.url)
    const ownSecret = (set.body as ApproverWebhookChangeAnswer).secret ?? ''
    await setMode(harness, room, 'approve-for-me')
    approver.behaviour = (request) => signedReply(ownSecret, request, APPROVED)
    // A plain write inside the workspace: the reviewer allows it itself.
    const plain = await send(harness, room, 'write reviewed.txt fine')
    await turnSettled(harness, room, plain)
    const reviewed = (await roomApprovals(harness, room)).find((each) => each.turnId === plain)
    expect(reviewed?.decidedBy).toBe('agent-review')
    expect(approver.requests).toEqual([])
    // A command: the reviewer leaves it to the person, so the webhook decides.
    const command = await send(harness, room, 'run echo escalated')
    await turnSettled(harness, room, command)
    const escalated = (await roomApprovals(harness, room)).find((each) => each.turnId === command)
    expect(escalated).toMatchObject({
      status: 'allowed',
      decidedBy: 'webhook',
      escalationReason: 'commands are decided by a person',
    })
    expect(approver.requests.map((request) => request.body.escalationReason)).toEqual([
      'commands are decided by a person',
    ])
  })

  // What only the person decides, in every mode: the webhook is never
  // sent it, whatever it would answer, and nothing runs until the person
  // has decided in the protected window.
  const PERSON_DECIDES: ReadonlyArray<
    readonly [string, (outside: string) => string, (outside: string) => boolean]
  > = [
    [
      'a permission request (writing one more folder)',
      (outside) => `permit write ${outside} | just because\nwrite ${outside}/pwned.txt x`,
      (outside) => existsSync(join(outside, 'pwned.txt')),
    ],
    [
      'a private read (a file outside the workspace)',
      (outside) => `read ${outside}/secret.txt`,
      () => false,
    ],
  ]
  it.each(
    PERSON_DECIDES.flatMap((row) =>
      (['ask-for-approval', 'approve-for-me'] as const).map(
        (mode) => [row[0], mode, row[1], row[2]] as const,
      ),
    ),
  )('never sends it %s (%s): it waits for the person', async (_name, mode, text, acted) => {
    const room = (await createRoom(harness)).id
    const set = await putWebhook(harness, room, approver.url)
    const ownSecret = (set.body as ApproverWebhookChangeAnswer).secret ?? ''
    await setMode(harness, room, mode)
    approver.behaviour = (request) => signedReply(ownSecret, request, APPROVED)
    const outside = await outsideDir(harness)
    await writeFile(join(outside, 'secret.txt'), 'TOP-SECRET')
    const turnId = await send(harness, room, text(outside))
    const pending = await eventually(async () => {
      const approvals = await roomApprovals(harness, room)
      return approvals.find((each) => each.turnId === turnId && each.status === 'pending')
    }, 'an approval left to the person')
    // The webhook's timeout passes with the approval still pending.
    await new Promise((resolve) => setTimeout(resolve, WEBHOOK_TIMEOUT_MS))
    const still = (await roomApprovals(harness, room)).find((each) => each.id === pending.id)
    expect(still).toMatchObject({ status: 'pending' })
    expect(still?.decidedBy).toBeUndefined()
    expect(approver.requests).toEqual([])
    const view = await harness.client.getApproval(pending.id)
    const token = harness.mintApproval(pending.id, 'deny', view.actionDigest)
    await harness.client.decideApproval(pending.id, 'deny', token, view.actionDigest)
    await turnSettled(harness, room, turnId)
    expect(acted(outside)).toBe(false)
  })

  it('leaves the person deciding once the webhook is removed', async () => {
    const room = (await createRoom(harness)).id
    expect((await putWebhook(harness, room, approver.url)).status).toBe(200)
    const removed = await putWebhook(harness, room, null)
    expect(removed).toMatchObject({ status: 200, body: { webhook: null, secret: null } })
    approver.behaviour = () => ({ status: 500 })
    const turnId = await send(harness, room, 'write by-hand.txt x')
    const pending = await eventually(async () => {
      const approvals = await roomApprovals(harness, room)
      return approvals.find((each) => each.turnId === turnId && each.status === 'pending')
    }, 'an approval left to the person')
    expect(approver.requests).toEqual([])
    const view = await harness.client.getApproval(pending.id)
    const token = harness.mintApproval(pending.id, 'deny', view.actionDigest)
    await harness.client.decideApproval(pending.id, 'deny', token, view.actionDigest)
    await turnSettled(harness, room, turnId)
  })
})

describe('configuring an approver webhook', () => {
  let harness: RuntimeHarness

  beforeAll(async () => {
    harness = await startInProcessRuntime({})
  })
  afterAll(async () => harness?.close())

  it('refuses a change without a consent token for exactly that room and URL', async () => {
    const roomId = (await createRoom(harness)).id
    const url = 'http://127.0.0.1:9/decide'
    const body = { clientRequestId: 'req-1', url }
    const path = `/v1/rooms/${roomId}/approver-webhook`
    const without = await harness.client.raw('PUT', path, body)
    expect(without).toMatchObject({ status: 403, body: { code: 'consent_required' } })
    const forOtherUrl = mintWebhook(harness, {
      roomId,
      clientRequestId: 'req-1',
      url: 'https://a.example/',
    })
    expect((await putWith(harness, path, body, forOtherUrl)).status).toBe(403)
    const forRemoval = mintWebhook(harness, { roomId, clientRequestId: 'req-1', url: null })
    expect((await putWith(harness, path, body, forRemoval)).status).toBe(403)
    const permissionToken = harness.mintPermission({
      roomId,
      clientRequestId: 'req-1',
      expectedRevision: 0,
      mode: 'full-access',
    })
    expect((await putWith(harness, path, body, permissionToken)).status).toBe(403)
    const view = await harness.client.raw('GET', path)
    expect(view).toMatchObject({ status: 200, body: { roomId, webhook: null } })
  })

  it('accepts only https, or plain http to a literal loopback address, written as the parser writes it', async () => {
    const roomId = (await createRoom(harness)).id
    const accepted = [
      'https://approver.example/hook',
      'http://127.0.0.1:8080/x',
      'http://[::1]:8080/x',
    ]
    for (const url of accepted) {
      expect((await putWebhook(harness, roomId, url)).status, url).toBe(200)
    }
    const refused = [
      'http://localhost:8080/x',
      'http://127.1:8080/x',
      'http://10.0.0.5/x',
      'http://approver.example/x',
      'HTTPS://approver.example/x',
      'https://approver.example',
      'https://user:pw@approver.example/x',
      'https://approver.example/x#frag',
      'ftp://approver.example/x',
      'file:///etc/passwd',
      ' https://approver.example/x',
    ]
    for (const url of refused) {
      const answer = await putWebhook(harness, roomId, url)
      expect(answer.status, url).toBe(400)
      expect(answer.body, url).toMatchObject({ code: 'invalid_body' })
    }
  })

  it('hands the secret out once, never shows or audits it, and keeps it sealed on disk', async () => {
    const roomId = (await createRoom(harness)).id
    const set = ApproverWebhookChangeAnswerSchema.parse(
      (await putWebhook(harness, roomId, 'https://approver.example/hook')).body,
    )
    const secret = set.secret ?? ''
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const view = await harness.client.raw('GET', `/v1/rooms/${roomId}/approver-webhook`)
    expect(view.body).toMatchObject({
      webhook: { url: 'https://approver.example/hook', webhookId: set.webhook?.webhookId },
    })
    expect(JSON.stringify(view.body)).not.toContain(secret)
    const audit = await auditEvents(harness)
    expect(JSON.stringify(audit)).not.toContain(secret)
    expect(
      audit.find((event) => event.type === 'approver_webhook_set' && event.subjectId === roomId)
        ?.payload,
    ).toMatchObject({ url: 'https://approver.example/hook' })
    // Every file of the data folder: a committed row can sit in the WAL (or any
    // other file) long before it reaches the database file.
    const files = filesUnder(harness.dataDir)
    expect(files).toContain(join(harness.dataDir, `${DATABASE_FILE_NAME}-wal`))
    const raw = Buffer.from(secret, 'base64url')
    expect(raw).toHaveLength(32)
    const spellings = [
      Buffer.from(secret),
      raw,
      Buffer.from(raw.toString('hex')),
      Buffer.from(raw.toString('base64')),
    ]
    for (const file of files) {
      const bytes = readFileSync(file)
      for (const spelling of spellings) {
        expect(bytes.includes(spelling), `${file} holds the secret`).toBe(false)
      }
    }
    // A second change makes a new secret: the old one signs nothing any more.
    const again = ApproverWebhookChangeAnswerSchema.parse(
      (await putWebhook(harness, roomId, 'https://approver.example/hook')).body,
    )
    expect(again.secret).not.toBe(secret)
    expect(again.webhook?.webhookId).not.toBe(set.webhook?.webhookId)
  })

  it('ignores a webhook edited in the SQLite file, reports it, and leaves the person deciding', async () => {
    const approver = await ApproverServer.start()
    try {
      const roomId = (await createRoom(harness)).id
      const set = ApproverWebhookChangeAnswerSchema.parse(
        (await putWebhook(harness, roomId, 'https://approver.example/hook')).body,
      )
      approver.behaviour = (request) => signedReply(set.secret ?? '', request, APPROVED)
      editDatabase(harness.dataDir, (db) => {
        db.prepare('UPDATE approver_webhooks SET url = ? WHERE room_id = ?').run(
          approver.url,
          roomId,
        )
      })
      const turnId = await send(harness, roomId, 'write edited.txt x')
      const pending = await eventually(async () => {
        const approvals = await roomApprovals(harness, roomId)
        return approvals.find((each) => each.turnId === turnId && each.status === 'pending')
      }, 'an approval left to the person')
      const reported = (await auditEvents(harness)).filter(
        (event) => event.type === 'integrity_error' && event.subjectId === roomId,
      )
      expect(reported.map((event) => event.payload)).toContainEqual(
        expect.objectContaining({ table: 'approver_webhooks', problem: 'mac_mismatch' }),
      )
      expect(approver.requests).toEqual([])
      const view = await harness.client.getApproval(pending.id)
      const token = harness.mintApproval(pending.id, 'deny', view.actionDigest)
      await harness.client.decideApproval(pending.id, 'deny', token, view.actionDigest)
      await turnSettled(harness, roomId, turnId)
    } finally {
      await approver.close()
    }
  })
})

function mintWebhook(
  harness: RuntimeHarness,
  subject: { roomId: string; clientRequestId: string; url: string | null },
): string {
  const connection = harness.connection()
  return mintConsentToken({
    key: connection.consentKey,
    now: Date.now(),
    binding: {
      kind: 'approver-webhook',
      subject: { ...subject, instanceId: connection.instanceId },
    },
  })
}

function putWith(harness: RuntimeHarness, path: string, body: unknown, token: string) {
  const { port, bearerToken } = harness.connection()
  return rawHttp({
    port,
    method: 'PUT',
    path,
    headers: [
      ['Authorization', `Bearer ${bearerToken}`],
      ['Content-Type', 'application/json'],
      [CONSENT_HEADER, token],
    ],
    body: JSON.stringify(body),
  }).then((response) => ({
    status: response.status,
    body: response.body === '' ? null : (JSON.parse(response.body) as unknown),
  }))
}

/** The change main makes after the person confirmed it in the protected
 *  window: a token bound to exactly this room and URL. */
function putWebhook(harness: RuntimeHarness, roomId: string, url: string | null) {
  const clientRequestId = randomUUID()
  const token = mintWebhook(harness, { roomId, clientRequestId, url })
  return putWith(harness, `/v1/rooms/${roomId}/approver-webhook`, { clientRequestId, url }, token)
}

/** Every regular file under `dir`, at any depth. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
}

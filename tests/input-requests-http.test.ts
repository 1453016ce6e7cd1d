import { readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isAllowedForRenderer } from '../src/main/core/renderer-allowlist.ts'
import { auditChainProblem, exportedAudit } from './support/audit-check.ts'
import { inputRequests, pendingInputFor, respond } from './support/input-helpers.ts'
import { createRoom, send, timeline, turnSettled } from './support/room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

let harness: RuntimeHarness

beforeAll(async () => {
  harness = await startHarness()
})
afterAll(async () => {
  await harness?.close()
})

const SECRET = 'hunter2-correct-horse-battery'

async function agentText(roomId: string): Promise<string> {
  return (await timeline(harness, roomId)).messages.map((message) => message.text).join('\n')
}

describe('questions over HTTP', () => {
  it('stores a request with several questions and resumes the turn with the answers', async () => {
    const room = await createRoom(harness)
    const turnId = await send(
      harness,
      room.id,
      [
        'ask Environment | Where should I deploy? | staging = safe to break | production = the real thing',
        'ask Notes | Anything else?',
      ].join('\n'),
    )
    const request = await pendingInputFor(harness, room.id, turnId)
    expect(request.kind).toBe('questions')
    expect(request.timing).toEqual({ silentMs: 60_000, countdownMs: 60_000 })
    expect(request.questions.map((question) => question.title)).toEqual(['Environment', 'Notes'])
    expect(request.questions[0]?.options).toEqual([
      { label: 'staging', explanation: 'safe to break' },
      { label: 'production', explanation: 'the real thing' },
    ])
    expect((await timeline(harness, room.id)).turns[0]?.status).toBe('waiting')

    const half = await respond(harness, request.id, {
      action: 'answer',
      answers: [{ questionId: 'q1', option: 0 }],
    })
    expect(half.status).toBe(400)
    expect(half.body).toMatchObject({ error: 'q2: every question needs an answer' })

    const answered = await respond(harness, request.id, {
      action: 'answer',
      answers: [
        { questionId: 'q1', option: 0 },
        { questionId: 'q2', text: 'ship on Friday' },
      ],
    })
    expect(answered.status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    expect(await agentText(room.id)).toContain('Environment: staging')
    expect(await agentText(room.id)).toContain('Notes: ship on Friday')
    const [stored] = await inputRequests(harness, room.id)
    expect(stored?.status).toBe('answered')
    expect(stored?.answers).toEqual([
      { questionId: 'q1', secret: false, option: 'staging', text: '' },
      { questionId: 'q2', secret: false, option: null, text: 'ship on Friday' },
    ])

    const again = await respond(harness, request.id, { action: 'dismiss' })
    expect(again.status).toBe(409)
  })

  it('dismisses: the agent goes on and the timeline says so', async () => {
    const room = await createRoom(harness)
    const turnId = await send(harness, room.id, 'ask Name | What should I call the file?\nlist')
    const request = await pendingInputFor(harness, room.id, turnId)
    expect((await respond(harness, request.id, { action: 'dismiss' })).status).toBe(200)
    const settled = await turnSettled(harness, room.id, turnId)
    expect(settled.toolCalls.map((call) => call.toolName)).toEqual(['list_dir'])
    expect(await agentText(room.id)).toContain('The question was dismissed')
    expect((await inputRequests(harness, room.id))[0]?.status).toBe('dismissed')
  })

  it('auto-resolves an ordinary question with an empty answer, never a blocking one', async () => {
    const room = await createRoom(harness)
    const turnId = await send(harness, room.id, 'ask Color | Which color?')
    const request = await pendingInputFor(harness, room.id, turnId)
    expect((await respond(harness, request.id, { action: 'auto-resolve' })).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    expect(await agentText(room.id)).toContain('closed automatically')

    const planTurn = await send(harness, room.id, 'ask --blocking Plan | Which plan?')
    const blocking = await pendingInputFor(harness, room.id, planTurn)
    expect(blocking.blocking).toBe(true)
    expect(blocking.timing).toBeNull()
    const refused = await respond(harness, blocking.id, { action: 'auto-resolve' })
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({ code: 'blocking' })
    expect((await inputRequests(harness, room.id)).at(-1)?.status).toBe('pending')
    await respond(harness, blocking.id, { action: 'dismiss' })
  })

  it("starts an ordinary question's wait again on keep-waiting, and refuses it for a blocking one", async () => {
    const room = await createRoom(harness)
    const turnId = await send(harness, room.id, 'ask Size | How big?')
    const request = await pendingInputFor(harness, room.id, turnId)
    expect(request.autoResolveAt).toBe(request.createdAt + 120_000)
    const kept = await harness.client.raw('POST', `/v1/input-requests/${request.id}/keep-waiting`)
    expect(kept.status).toBe(200)
    const moved = (kept.body as { request: { autoResolveAt: number } }).request.autoResolveAt
    expect(moved).toBeGreaterThanOrEqual(request.autoResolveAt ?? Infinity)
    expect((await inputRequests(harness, room.id)).at(-1)?.autoResolveAt).toBe(moved)
    const withBody = await harness.client.raw(
      'POST',
      `/v1/input-requests/${request.id}/keep-waiting`,
      { action: 'answer' },
    )
    expect(withBody.status).toBe(400)
    await respond(harness, request.id, { action: 'dismiss' })
    const late = await harness.client.raw('POST', `/v1/input-requests/${request.id}/keep-waiting`)
    expect(late.status).toBe(409)
    expect(late.body).toMatchObject({ code: 'not_pending' })

    const planTurn = await send(harness, room.id, 'ask --blocking Plan | Which plan?')
    const blocking = await pendingInputFor(harness, room.id, planTurn)
    expect(blocking.autoResolveAt).toBeNull()
    const refused = await harness.client.raw(
      'POST',
      `/v1/input-requests/${blocking.id}/keep-waiting`,
    )
    expect(refused.status).toBe(409)
    expect(refused.body).toMatchObject({ code: 'blocking' })
    expect(isAllowedForRenderer('POST', `/v1/input-requests/${blocking.id}/keep-waiting`)).toBe(
      true,
    )
    await respond(harness, blocking.id, { action: 'dismiss' })
  })

  it('never writes a secret answer to history, the audit log or any file', async () => {
    const room = await createRoom(harness)
    const turnId = await send(harness, room.id, 'ask --secret Token | Paste the deploy token')
    const request = await pendingInputFor(harness, room.id, turnId)
    expect(request.sensitive).toBe(true)
    const answered = await respond(harness, request.id, {
      action: 'answer',
      answers: [{ questionId: 'q1', text: SECRET }],
    })
    expect(answered.status).toBe(200)
    expect(JSON.stringify(answered.body)).not.toContain(SECRET)
    await turnSettled(harness, room.id, turnId)
    expect(await agentText(room.id)).toContain('Token: answer saved.')
    expect(JSON.stringify(await timeline(harness, room.id))).not.toContain(SECRET)
    expect(JSON.stringify(await inputRequests(harness, room.id))).not.toContain(SECRET)
    const audit = await exportedAudit(harness)
    expect(audit.some((event) => event.type === 'input_resolved')).toBe(true)
    expect(JSON.stringify(audit)).not.toContain(SECRET)
    expect(auditChainProblem(harness, audit)).toBeUndefined()
    for (const name of await readdir(harness.dataDir)) {
      const bytes = await readFile(join(harness.dataDir, name))
      expect(bytes.includes(Buffer.from(SECRET)), name).toBe(false)
    }
  })
})

describe('forms over HTTP', () => {
  const schema = {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Name' },
      count: { type: 'integer', minimum: 1 },
      dryRun: { type: 'boolean' },
      region: { type: 'string', enum: ['eu', 'us'] },
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
    },
    required: ['name', 'count'],
  }

  it('validates content against the schema and hands it to the agent', async () => {
    const room = await createRoom(harness)
    const turnId = await send(harness, room.id, `form Deploy details :: ${JSON.stringify(schema)}`)
    const request = await pendingInputFor(harness, room.id, turnId)
    expect(request.kind).toBe('form')
    expect(request.form?.requestedSchema?.required).toEqual(['name', 'count'])
    const bad = await respond(harness, request.id, {
      action: 'accept',
      content: { name: 'x', count: 0 },
    })
    expect(bad).toMatchObject({ status: 400, body: { error: 'count: must be at least 1' } })
    const extra = await respond(harness, request.id, {
      action: 'accept',
      content: { name: 'x', count: 1, admin: true },
    })
    expect(extra).toMatchObject({ status: 400, body: { error: 'admin: not a field of this form' } })
    const ok = await respond(harness, request.id, {
      action: 'accept',
      content: { name: 'web', count: 2, dryRun: false, region: 'eu', tags: ['b'] },
    })
    expect(ok.status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    expect(await agentText(room.id)).toContain('region = "eu"')
    expect((await inputRequests(harness, room.id))[0]?.status).toBe('accepted')
  })

  it('declines, and a form without a schema takes one answer', async () => {
    const room = await createRoom(harness)
    const first = await send(harness, room.id, 'form Tell me about the release')
    const request = await pendingInputFor(harness, room.id, first)
    const wrongShape = await respond(harness, request.id, { action: 'accept', content: { x: 'y' } })
    expect(wrongShape.status).toBe(400)
    expect((await respond(harness, request.id, { action: 'decline' })).status).toBe(200)
    await turnSettled(harness, room.id, first)
    expect(await agentText(room.id)).toContain('The form was declined.')

    const second = await send(harness, room.id, 'form Tell me more')
    const next = await pendingInputFor(harness, room.id, second)
    const accepted = await respond(harness, next.id, {
      action: 'accept',
      content: { answer: 'soon' },
    })
    expect(accepted.status).toBe(200)
  })

  it('accepts a sensitive form only through main’s protected route', async () => {
    const room = await createRoom(harness)
    const sensitive = {
      type: 'object',
      properties: { password: { type: 'string', format: 'password' } },
      required: ['password'],
    }
    const turnId = await send(harness, room.id, `form Log in :: ${JSON.stringify(sensitive)}`)
    const request = await pendingInputFor(harness, room.id, turnId)
    expect(request.sensitive).toBe(true)
    const content = { password: SECRET }
    const fromWorkbench = await respond(harness, request.id, { action: 'accept', content })
    expect(fromWorkbench).toMatchObject({ status: 403, body: { code: 'protected_form' } })
    // The workbench cannot reach the protected route at all.
    expect(
      isAllowedForRenderer('POST', `/v1/input-requests/${request.id}/protected-response`),
    ).toBe(false)
    expect(isAllowedForRenderer('POST', `/v1/input-requests/${request.id}/response`)).toBe(true)
    const fromMain = await respond(
      harness,
      request.id,
      { action: 'accept', content },
      'protected-response',
    )
    expect(fromMain.status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    expect(await agentText(room.id)).toContain('Thanks, I received: password.')
    expect(JSON.stringify(await inputRequests(harness, room.id))).not.toContain(SECRET)
    expect(JSON.stringify(await exportedAudit(harness))).not.toContain(SECRET)
  })
})

describe('reconciliation across a restart', () => {
  it('marks a question left pending by the previous instance stale and refuses answers', async () => {
    const room = await createRoom(harness)
    const turnId = await send(harness, room.id, 'ask Wait | Still there?')
    const request = await pendingInputFor(harness, room.id, turnId)
    await harness.restart()
    const after = await eventually(
      async () => (await inputRequests(harness, room.id)).find((entry) => entry.id === request.id),
      'the request after restart',
    )
    expect(after.status).toBe('stale')
    const late = await respond(harness, request.id, { action: 'dismiss' })
    expect(late.status).toBe(409)
    const audit = await exportedAudit(harness)
    expect(
      audit.some((event) => event.type === 'input_request_stale' && event.subjectId === request.id),
    ).toBe(true)
  })
})

describe('the runtime keeps the question timer', () => {
  let timed: RuntimeHarness

  beforeAll(async () => {
    // The shortest wait the runtime accepts: one second silent, one second
    // counting down.
    timed = await startHarness({ questionPhaseMs: 1_000 })
  })
  afterAll(async () => {
    await timed?.close()
  })

  it('closes an ordinary question with an empty answer when nobody answers, with no workbench open', async () => {
    const room = await createRoom(timed)
    const planTurn = await send(timed, room.id, 'ask --blocking Plan | Which plan?')
    const blocking = await pendingInputFor(timed, room.id, planTurn)
    const turnId = await send(timed, room.id, 'ask Color | Which color?\nlist')
    const request = await pendingInputFor(timed, room.id, turnId)
    expect(request.autoResolveAt).toBe(request.createdAt + 2_000)

    // Nobody answers, nobody sends auto-resolve: the runtime's timer does.
    const settled = await turnSettled(timed, room.id, turnId)
    expect(settled.toolCalls.filter((call) => call.turnId === turnId)).toMatchObject([
      { toolName: 'list_dir', status: 'succeeded' },
    ])
    const texts = settled.messages.filter((m) => m.turnId === turnId).map((m) => m.text)
    expect(texts.join('\n')).toContain('closed automatically')
    const closed = (await inputRequests(timed, room.id)).find((entry) => entry.id === request.id)
    expect(closed).toMatchObject({ status: 'auto-resolved' })
    expect(closed?.resolvedAt).toBeGreaterThanOrEqual(request.autoResolveAt ?? Infinity)
    const audit = await exportedAudit(timed)
    const resolved = audit.find(
      (event) => event.type === 'input_resolved' && event.subjectId === request.id,
    )
    expect(resolved?.payload).toMatchObject({ action: 'auto-resolve', by: 'runtime' })

    // Asked before it, the blocking question still waits: it never times out.
    const still = (await inputRequests(timed, room.id)).find((entry) => entry.id === blocking.id)
    expect(still).toMatchObject({ status: 'pending', autoResolveAt: null })
    expect((await respond(timed, blocking.id, { action: 'dismiss' })).status).toBe(200)
  })
})

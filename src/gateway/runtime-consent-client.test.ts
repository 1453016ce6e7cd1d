import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { refuseIfCancelled } from '../runtime/mcp/gated-mcp-call.ts'
import { McpRefusal } from '../runtime/mcp/mcp-refusal.ts'
import { pinWorkspace } from '../runtime/policy/workspace-identity.ts'
import { RuntimeConsentClient } from './runtime-consent-client.ts'
import {
  KEYS,
  PROJECT,
  REQUEST,
  closeStandIns,
  opened,
  standInRuntime,
  state,
} from './test-support/stand-in-runtime.ts'

// The gateway's client against a stand-in runtime on a loopback port: what
// it sends, what a grant's answer makes of the ticket, and that reports go
// out after the agent has its result without any being lost. What it makes
// of an answer the runtime did not prove: runtime-consent-client-proof.test.ts.

const folders: string[] = []
afterEach(async () => {
  await closeStandIns()
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

describe('RuntimeConsentClient', () => {
  it('marks a ticket a grant answered, and only that one', async () => {
    const answers = [opened({ grantId: 'grant_1', approvalId: null }), opened({})]
    const { client, seen } = await standInRuntime(() =>
      Promise.resolve([201, answers.shift()] as [number, unknown]),
    )
    const granted = await client.ask(REQUEST)
    const asked = await client.ask(REQUEST)
    expect(granted).toMatchObject({ status: 'allowed', byGrant: true })
    expect(asked.status).toBe('allowed')
    expect(asked).not.toHaveProperty('byGrant')
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/v1/gateway/calls',
      authorization: `Bearer ${KEYS.requestKey}`,
    })
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({
      workspaceIdentity: PROJECT,
      ...REQUEST,
    })
  })

  it('long-polls a pending call until it is decided', async () => {
    const answers: Array<[number, unknown]> = [
      [201, opened({ status: 'pending' })],
      [200, state({ status: 'pending' })],
      [200, state({ status: 'denied', reason: 'not now', decidedBy: 'webhook' })],
    ]
    const { client, seen } = await standInRuntime(() =>
      Promise.resolve(answers.shift() ?? [500, {}]),
    )
    // Who denied it travels too, so the agent is told the webhook did.
    expect(await client.ask(REQUEST)).toMatchObject({
      status: 'denied',
      reason: 'not now',
      decidedBy: 'webhook',
    })
    expect(seen.map((each) => `${each.method} ${each.url}`)).toEqual([
      'POST /v1/gateway/calls',
      'GET /v1/gateway/calls/call_1',
      'GET /v1/gateway/calls/call_1',
    ])
  })

  it('reports after the agent has its result, in order, and drains every report before it is done', async () => {
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    let arrived: () => void = () => undefined
    const firstArrived = new Promise<void>((resolve) => (arrived = resolve))
    const { client, seen } = await standInRuntime(async (req) => {
      if (req.url === '/v1/gateway/calls') return [201, opened({ grantId: 'grant_1' })]
      // The runtime is slow to record the first result.
      if (seen.filter((each) => each.url?.endsWith('/result')).length === 1) {
        arrived()
        await held
      }
      return [200, { reported: 'call_1' }]
    })
    const ticket = await client.ask(REQUEST)
    await ticket.report({ ok: true, output: 'first' })
    await ticket.report({ ok: false, output: 'second' })
    let drained = false
    const draining = client.drain().then(() => (drained = true))
    await firstArrived
    expect(drained).toBe(false)
    expect(seen.filter((each) => each.url?.endsWith('/result'))).toHaveLength(1)
    release()
    await draining
    const results = seen.filter((each) => each.url === '/v1/gateway/calls/call_1/result')
    expect(results.map((each) => JSON.parse(each.body) as unknown)).toEqual([
      { ok: true, output: 'first' },
      { ok: false, output: 'second' },
    ])
  })

  it('says so when a report could not be recorded, and still drains', async () => {
    const { client, logged } = await standInRuntime((req) =>
      Promise.resolve(
        (req.url === '/v1/gateway/calls'
          ? [201, opened({})]
          : [409, { error: 'the call is not running' }]) as [number, unknown],
      ),
    )
    const ticket = await client.ask(REQUEST)
    await ticket.report({ ok: true, output: 'done' })
    await client.drain()
    expect(logged).toEqual([
      'assent-gateway: what call_1 returned was not recorded: the Assent runtime refused POST /v1/gateway/calls/call_1/result: the call is not running',
    ])
  })
})

describe('RuntimeConsentClient.drain after a withdrawal', () => {
  it('waits for a withdrawn call allowed meanwhile to be reported as not run', async () => {
    let getArrived: () => void = () => undefined
    const firstGet = new Promise<void>((resolve) => (getArrived = resolve))
    const { client, seen } = await standInRuntime(async (req) => {
      if (req.url === '/v1/gateway/calls') return [201, opened({ status: 'pending' })]
      if (req.url === '/v1/gateway/calls/call_1/cancel') {
        // A decision was being committed as the withdrawal came.
        return [200, state({ status: 'pending' })]
      }
      if (req.url === '/v1/gateway/calls/call_1/result') return [200, { reported: 'call_1' }]
      const gets = seen.filter((each) => each.method === 'GET').length
      if (gets === 1) {
        getArrived()
        return new Promise<[number, unknown]>(() => undefined)
      }
      return [200, state({ status: 'allowed' })]
    })
    const cancel = new AbortController()
    const asked = client
      .ask(REQUEST, cancel.signal)
      .then((ticket) => refuseIfCancelled(ticket, cancel.signal, 'notes__write_note'))
      .catch((error: unknown) => error)
    await firstGet
    cancel.abort()
    await client.drain()

    expect(await asked).toBeInstanceOf(McpRefusal)
    const results = seen.filter((each) => each.url === '/v1/gateway/calls/call_1/result')
    expect(results.map((each) => JSON.parse(each.body) as unknown)).toEqual([
      {
        ok: false,
        output: 'the client cancelled notes__write_note while the person was asked; it did not run',
      },
    ])
  })

  it('refuses a call the runtime read as refused after its allow, and reports nothing for it', async () => {
    const answers: Array<[number, unknown]> = [
      [201, opened({ status: 'pending' })],
      [200, state({ status: 'refused', code: 'workspace_moved', reason: 'the folder moved' })],
    ]
    const { client, seen } = await standInRuntime(() =>
      Promise.resolve(answers.shift() ?? [500, {}]),
    )
    const refusal = await client.ask(REQUEST).catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(McpRefusal)
    expect((refusal as McpRefusal).data).toEqual({
      reason: 'not_allowed',
      detail: 'workspace_moved',
    })
    await client.drain()
    expect(seen.map((each) => each.url)).not.toContain('/v1/gateway/calls/call_1/result')
  })

  it('refuses to run anything once the folder it was started for is not the one at its path', async () => {
    const folder = realpathSync(mkdtempSync(join(tmpdir(), 'assent-gateway-folder-')))
    folders.push(folder, `${folder}.old`)
    const client = new RuntimeConsentClient({
      dataDir: folder,
      workspaceIdentity: await pinWorkspace(folder),
      log: () => undefined,
    })
    expect(() => client.checkWorkspace()).not.toThrow()
    renameSync(folder, `${folder}.old`)
    mkdirSync(folder)
    const refusal = (() => {
      try {
        client.checkWorkspace()
      } catch (error) {
        return error
      }
      return undefined
    })()
    expect(refusal).toBeInstanceOf(McpRefusal)
    expect(refusal).toMatchObject({
      data: { reason: 'not_allowed', detail: 'workspace_moved' },
      words: { code: 'workspace.replaced' },
    })
  })
})

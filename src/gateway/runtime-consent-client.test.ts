import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { GATEWAY_NONCE_HEADER, RUNTIME_PROOF_HEADER } from '../contracts/http-headers.ts'
import type { GatewayCallState } from '../contracts/mcp-gateway.ts'
import { answerProof, gatewayLinkKeys } from '../runtime/mcp/gateway-answer-proof.ts'
import { writeGatewayConnectionFile } from '../runtime/mcp/gateway-connection-file.ts'
import { refuseIfCancelled, type McpConsentRequest } from '../runtime/mcp/gated-mcp-call.ts'
import { McpRefusal } from '../runtime/mcp/mcp-refusal.ts'
import { pinWorkspace } from '../runtime/policy/workspace-identity.ts'
import { RuntimeConsentClient } from './runtime-consent-client.ts'

// The gateway's client against a stand-in runtime on a loopback port: what
// it sends, what a grant's answer makes of the ticket, and that reports go
// out after the agent has its result without any being lost. The stand-in
// proves its answers as the runtime does; tests/gateway-verifies-runtime.test.ts
// has a real runtime, and what the gateway makes of an impostor.

const CREDENTIAL = 'gateway-credential-for-the-test-0123456789'
const KEYS = gatewayLinkKeys(CREDENTIAL)
const REQUEST: McpConsentRequest = {
  serverId: 'notes',
  serverName: 'Notes',
  toolName: 'write_note',
  toolDescription: 'Writes a note',
  inputSchemaHash: 'a'.repeat(64),
  definitionHash: 'b'.repeat(64),
  arguments: { name: 'a.txt' },
  preview: null,
  serverTools: { names: ['write_note'], hash: 'c'.repeat(64) },
}

let server: Server | undefined
const folders: string[] = []
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = undefined
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

interface Seen {
  method?: string
  url?: string
  authorization?: string
  body: string
}

/** The stand-in proves its answers as the runtime does, except those
 *  `forged` picks: those it proves with the only key an impostor learns,
 *  the request key the gateway sends as its bearer. */
async function standInRuntime(
  answer: (req: IncomingMessage, body: string) => Promise<[number, unknown]>,
  forged: (req: IncomingMessage) => boolean = () => false,
) {
  const seen: Seen[] = []
  server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (body += chunk))
    req.on('end', () => {
      seen.push({
        method: req.method,
        url: req.url,
        authorization: req.headers.authorization,
        body,
      })
      void answer(req, body).then(([status, value]) => {
        const text = JSON.stringify(value)
        const nonce = String(req.headers[GATEWAY_NONCE_HEADER])
        const answered = {
          nonce,
          method: req.method ?? '',
          path: req.url ?? '',
          status,
          body: text,
        }
        res.writeHead(status, {
          'content-type': 'application/json',
          [RUNTIME_PROOF_HEADER]: answerProof(
            forged(req) ? Buffer.from(KEYS.requestKey) : KEYS.responseKey,
            answered,
          ),
        })
        res.end(text)
      })
    })
  })
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
  const dataDir = mkdtempSync(join(tmpdir(), 'assent-gateway-client-'))
  folders.push(dataDir)
  writeGatewayConnectionFile(dataDir, {
    version: 1,
    port: (server.address() as AddressInfo).port,
    instanceId: 'instance-1',
    gatewayCredential: CREDENTIAL,
    pid: process.pid,
  })
  const logged: string[] = []
  const client = new RuntimeConsentClient({
    dataDir,
    workspaceIdentity: PROJECT,
    log: (line) => logged.push(line),
  })
  return { client, seen, logged }
}

/** What the stand-in answers on every route, all but `GET` of the outcome
 *  deciding at once: a mode that asks, an allowed call, a form's answer. */
function answerEveryRoute(req: IncomingMessage): Promise<[number, unknown]> {
  const url = req.url ?? ''
  if (url === '/v1/gateway/mode')
    return Promise.resolve([200, { revision: 'r1', neverAsks: false }])
  if (url === '/v1/gateway/calls') return Promise.resolve([201, opened({ status: 'pending' })])
  if (url.endsWith('/cancel')) return Promise.resolve([200, state({ status: 'pending' })])
  if (url.endsWith('/result')) return Promise.resolve([200, { reported: 'call_1' }])
  if (url.endsWith('/elicitations')) {
    const form = { requestId: 'req_1', status: 'answered', outcome: { action: 'decline' } }
    return Promise.resolve([201, form])
  }
  return Promise.resolve([200, state({ status: 'allowed' })])
}

const CANCEL_KEY = 'k'.repeat(43)

/** The folder the client's gateway pinned at start (a stand-in runtime
 *  never looks at the disk). */
const PROJECT = { realPath: '/home/person/project', dev: '1', ino: '2' }

/** What the runtime answers a read of the call. */
const state = (overrides: Partial<GatewayCallState>): GatewayCallState => ({
  callId: 'call_1',
  roomId: 'room_1',
  approvalId: 'ap_1',
  status: 'allowed',
  grantId: null,
  reason: null,
  reasonMessage: null,
  code: null,
  ...overrides,
})

/** What the runtime answers the call's opening: the state and its key. */
const opened = (overrides: Partial<GatewayCallState>) => ({
  ...state(overrides),
  cancelKey: CANCEL_KEY,
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
      [200, state({ status: 'denied', reason: 'not now' })],
    ]
    const { client, seen } = await standInRuntime(() =>
      Promise.resolve(answers.shift() ?? [500, {}]),
    )
    expect(await client.ask(REQUEST)).toMatchObject({ status: 'denied', reason: 'not now' })
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

/** Every way the client reaches the runtime, and what it does there; `held`
 *  resolves once the runtime holds the call's outcome open (it is held only
 *  for a door that withdraws the call while it waits). */
const DOORS: Array<{
  door: string
  route: RegExp
  holdsOutcome?: true
  use: (client: RuntimeConsentClient, held: Promise<void>) => Promise<unknown>
}> = [
  {
    door: 'the mode poll',
    route: /^\/v1\/gateway\/mode$/,
    use: async (client) => client.mayRun('notes__write_note'),
  },
  { door: 'opening a call', route: /^\/v1\/gateway\/calls$/, use: (client) => client.ask(REQUEST) },
  {
    door: "reading a call's outcome",
    route: /^\/v1\/gateway\/calls\/call_1$/,
    use: (client) => client.ask(REQUEST),
  },
  {
    door: 'withdrawing a call',
    route: /\/cancel$/,
    holdsOutcome: true,
    use: (client, held) => {
      const cancel = new AbortController()
      void held.then(() => cancel.abort())
      return client.ask(REQUEST, cancel.signal)
    },
  },
  {
    door: "a server's form",
    route: /\/elicitations$/,
    use: async (client) => (await client.ask(REQUEST)).elicit?.({ message: 'Title?' }),
  },
]

describe('RuntimeConsentClient and answers the runtime did not prove', () => {
  it.each(DOORS)('refuses, as unverified, what $door was answered', async (door) => {
    let holding: () => void = () => undefined
    const held = new Promise<void>((resolve) => (holding = resolve))
    const { client } = await standInRuntime(
      (req) => {
        if (door.holdsOutcome !== true || req.url !== '/v1/gateway/calls/call_1') {
          return answerEveryRoute(req)
        }
        holding()
        return new Promise<[number, unknown]>(() => undefined)
      },
      (req) => door.route.test(req.url ?? ''),
    )
    const refusal = await door.use(client, held).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(refusal).toBeInstanceOf(McpRefusal)
    expect((refusal as McpRefusal).message).toContain("Assent's runtime could not be verified")
    await client.drain()
  })

  it('records no result the runtime did not prove it took, and says so', async () => {
    const { client, logged } = await standInRuntime(answerEveryRoute, (req) =>
      (req.url ?? '').endsWith('/result'),
    )
    const ticket = await client.ask(REQUEST)
    await ticket.report({ ok: true, output: 'done' })
    await client.drain()
    expect(logged).toEqual([
      expect.stringContaining(
        "what call_1 returned was not recorded: Assent's runtime could not be verified",
      ),
    ])
  })

  it('never sends the credential itself, and a fresh nonce with every request', async () => {
    const nonces: string[] = []
    const { client, seen } = await standInRuntime((req) => {
      nonces.push(String(req.headers[GATEWAY_NONCE_HEADER]))
      return answerEveryRoute(req)
    })
    await client.ask(REQUEST)
    await client.ask(REQUEST)
    await client.drain()
    expect(seen.map((each) => each.authorization)).not.toContain(`Bearer ${CREDENTIAL}`)
    expect(nonces).toHaveLength(4)
    expect(new Set(nonces).size).toBe(4)
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

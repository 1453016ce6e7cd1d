import type { IncomingMessage } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { GATEWAY_NONCE_HEADER } from '../contracts/http-headers.ts'
import { McpRefusal } from '../runtime/mcp/mcp-refusal.ts'
import type { RuntimeConsentClient } from './runtime-consent-client.ts'
import {
  CREDENTIAL,
  REQUEST,
  closeStandIns,
  opened,
  standInRuntime,
  state,
} from './test-support/stand-in-runtime.ts'

// Every door by which the gateway's client reaches the runtime refuses an
// answer the runtime did not prove: the client has one way to the runtime
// (`send`), and this table walks through each of its callers, so a door
// that skipped the check would fail here.

afterEach(closeStandIns)

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
    use: async (client) =>
      (await client.ask(REQUEST)).elicit?.({ message: 'Title?' }, new AbortController().signal),
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

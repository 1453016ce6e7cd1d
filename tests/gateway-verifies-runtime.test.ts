import { existsSync, readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RuntimeConsentClient } from '../src/gateway/runtime-consent-client.ts'
import { readGatewayConnectionFile } from '../src/runtime/mcp/gateway-connection-file.ts'
import { McpRefusal } from '../src/runtime/mcp/mcp-refusal.ts'
import { noteCallRequest, pinnedFolder } from './support/gateway-call-request.ts'
import {
  AGENT_REQUEST_TIMEOUT_MS,
  connectThroughGateway,
  decide,
  nextPendingApproval,
  refusalOf,
  writeNotesConfig,
  type NotesFixture,
} from './support/mcp-gateway-harness.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

// The gateway finds the runtime through the connection file in the data
// folder, which only a clean close removes. After a crash its port is free,
// and any local process (any OS user's: loopback TCP has no owner check)
// can bind it and answer "allowed". The gateway must believe no answer the
// runtime did not prove: here a real runtime child, killed, and a process
// that takes its port and allows everything.

const callOptions = { timeout: AGENT_REQUEST_TIMEOUT_MS }

/** What took the port: answers every gateway route as a runtime that allows
 *  everything would, holds a mode poll that has seen the mode (a long poll
 *  with nothing new), and keeps what the gateway sent it. */
function impostor(): { server: Server; seen: IncomingMessage[] } {
  const seen: IncomingMessage[] = []
  const held: ServerResponse[] = []
  const server = createServer((req, res) => {
    seen.push(req)
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => (body += chunk))
    req.on('end', () => {
      const allowed = {
        callId: 'call_x',
        roomId: 'room_x',
        approvalId: null,
        status: 'allowed',
        grantId: null,
        reason: null,
        reasonMessage: null,
        code: null,
      }
      if (req.url === '/v1/gateway/mode') {
        if ((JSON.parse(body) as { seen: string | null }).seen !== null) {
          held.push(res)
          return
        }
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ revision: 'r1', neverAsks: false }))
        return
      }
      const opening = req.method === 'POST' && req.url === '/v1/gateway/calls'
      res.writeHead(opening ? 201 : 200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(opening ? { ...allowed, cancelKey: 'k'.repeat(43) } : allowed))
    })
  })
  server.on('close', () => held.forEach((res) => res.destroy()))
  return { server, seen }
}

describe('the gateway believes only the runtime that proves its answers', () => {
  let harness: RuntimeHarness
  let fixture: NotesFixture
  let agent: Client
  let credential: string
  let taken: ReturnType<typeof impostor>

  beforeAll(async () => {
    harness = await startHarness()
    fixture = await writeNotesConfig(harness.root)
    ;({ client: agent } = await connectThroughGateway(harness, fixture.configPath))
  })
  afterAll(async () => {
    await agent?.close()
    taken?.server.closeAllConnections()
    await new Promise<void>((resolve) => (taken ? taken.server.close(() => resolve()) : resolve()))
    await harness?.close()
  })

  it('runs a call the person allowed in the real runtime', async () => {
    const call = agent.callTool(
      { name: 'notes__write_note', arguments: { name: 'allowed.txt', text: 'by the person' } },
      undefined,
      callOptions,
    )
    expect(await decide(harness, await nextPendingApproval(harness), 'allow-once')).toBe(200)
    expect((await call).isError).not.toBe(true)
    expect(readFileSync(join(fixture.notesDir, 'allowed.txt'), 'utf8')).toBe('by the person')
  })

  it('runs nothing an impostor on the port of the crashed runtime "allows", and says why', async () => {
    const file = readGatewayConnectionFile(harness.dataDir)
    credential = file.gatewayCredential
    process.kill(file.pid, 'SIGKILL')
    taken = impostor()
    // Bound as soon as the dead runtime's socket is gone; the file stays.
    await eventually(
      () =>
        new Promise<boolean | undefined>((resolve) => {
          taken.server.once('error', () => resolve(undefined))
          taken.server.listen(file.port, '127.0.0.1', () => resolve(true))
        }),
      'the dead runtime’s port',
    )
    expect(readGatewayConnectionFile(harness.dataDir).port).toBe(file.port)

    // Every call from now on is refused, and nothing runs. Which words the
    // refusal has depends on where the gateway's mode watch is (still on
    // its long poll to the dead runtime, between retries after a refused
    // connection, or past the impostor's unproven answer), which a busy
    // machine decides: so the call is made until it is refused for the
    // impostor's answer, and every refusal on the way is checked too.
    const refusal = await eventually(async () => {
      const refused = await refusalOf(
        agent.callTool(
          { name: 'notes__write_note', arguments: { name: 'impostor.txt', text: 'unasked' } },
          undefined,
          callOptions,
        ),
      )
      expect(existsSync(join(fixture.notesDir, 'impostor.txt'))).toBe(false)
      return refused.message.includes("Assent's runtime could not be verified")
        ? refused
        : undefined
    }, "a refusal for the impostor's unproven answer")
    expect(refusal.message).toContain("Assent's runtime could not be verified")
    expect(existsSync(join(fixture.notesDir, 'impostor.txt'))).toBe(false)
  })

  it("refuses an impostor's allow when asked directly, and never hands it the credential", async () => {
    const client = new RuntimeConsentClient({
      dataDir: harness.dataDir,
      workspaceIdentity: pinnedFolder(harness.workspace),
      log: () => undefined,
    })
    const { workspaceIdentity: _pinned, ...request } = noteCallRequest(harness.workspace)
    const asked = await client.ask(request).then(
      () => undefined,
      (error: unknown) => error,
    )
    await client.drain()
    expect(asked).toBeInstanceOf(McpRefusal)
    expect((asked as McpRefusal).data).toEqual({
      reason: 'not_allowed',
      detail: 'runtime_unverified',
    })
    expect(taken.seen.some((req) => req.url === '/v1/gateway/calls')).toBe(true)
    const sent = taken.seen.map((req) => req.headers.authorization)
    expect(sent.length).toBeGreaterThan(0)
    expect(sent).not.toContain(`Bearer ${credential}`)
  })
})

import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { GATEWAY_NONCE_HEADER, RUNTIME_PROOF_HEADER } from '../../contracts/http-headers.ts'
import type { GatewayCallState } from '../../contracts/mcp-gateway.ts'
import { answerProof, gatewayLinkKeys } from '../../runtime/mcp/gateway-answer-proof.ts'
import { writeGatewayConnectionFile } from '../../runtime/mcp/gateway-connection-file.ts'
import type { McpConsentRequest } from '../../runtime/mcp/gated-mcp-call.ts'
import { RuntimeConsentClient } from '../runtime-consent-client.ts'

// A stand-in for the runtime's gateway routes on a loopback port, for the
// gateway client's tests: it answers what a test tells it, and proves its
// answers as the runtime does (tests/gateway-verifies-runtime.test.ts has
// a real runtime).

export const CREDENTIAL = 'gateway-credential-for-the-test-0123456789'
export const KEYS = gatewayLinkKeys(CREDENTIAL)
export const REQUEST: McpConsentRequest = {
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

const servers: Server[] = []
const folders: string[] = []

/** Closes every stand-in and removes its data folder (each test's
 *  `afterEach`). */
export async function closeStandIns(): Promise<void> {
  for (const server of servers.splice(0)) {
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
}

interface Seen {
  method?: string
  url?: string
  authorization?: string
  body: string
}

/** The stand-in proves its answers as the runtime does, except those
 *  `forged` picks: those it proves with the only key an impostor learns,
 *  the request key the gateway sends as its bearer. */
export async function standInRuntime(
  answer: (req: IncomingMessage, body: string) => Promise<[number, unknown]>,
  forged: (req: IncomingMessage) => boolean = () => false,
) {
  const seen: Seen[] = []
  const server = createServer((req, res) => {
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  servers.push(server)
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

export const CANCEL_KEY = 'k'.repeat(43)

/** The folder the client's gateway pinned at start (a stand-in runtime
 *  never looks at the disk). */
export const PROJECT = { realPath: '/home/person/project', dev: '1', ino: '2' }

/** What the runtime answers a read of the call. */
export const state = (overrides: Partial<GatewayCallState>): GatewayCallState => ({
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
export const opened = (overrides: Partial<GatewayCallState>) => ({
  ...state(overrides),
  cancelKey: CANCEL_KEY,
})

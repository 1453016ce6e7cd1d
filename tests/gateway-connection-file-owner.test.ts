import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GATEWAY_NONCE_HEADER, RUNTIME_PROOF_HEADER } from '../src/contracts/http-headers.ts'
import {
  GATEWAY_CONNECTION_FILE_NAME,
  type GatewayConnectionFile,
} from '../src/contracts/mcp-gateway.ts'
import { RuntimeConsentClient } from '../src/gateway/runtime-consent-client.ts'
import { answerProof, gatewayLinkKeys } from '../src/runtime/mcp/gateway-answer-proof.ts'
import {
  GatewayConnectionFileReader,
  newGatewayCredential,
} from '../src/runtime/mcp/gateway-connection-file.ts'
import { noteCallRequest, pinnedFolder } from './support/gateway-call-request.ts'

// The gateway believes the runtime that proves its answers under the
// credential in the connection file. Whoever writes that file chooses the
// credential: another OS user who can write the data folder (one made by
// hand, open to a group) puts one there naming a server of theirs, which
// proves "allowed" to everything. Only a file the runtime could have
// written for this user is believed: a regular file of this user's, mode
// 0600, as writeGatewayConnectionFile makes it.

/** Someone else's "runtime": proves every answer under `credential`, and
 *  allows every call. */
function provingImpostor(credential: string): Server {
  const { responseKey } = gatewayLinkKeys(credential)
  return createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      const opening = req.method === 'POST' && req.url === '/v1/gateway/calls'
      const status = opening ? 201 : 200
      const state = {
        callId: 'call_x',
        roomId: 'room_x',
        approvalId: null,
        status: 'allowed',
        grantId: null,
        reason: null,
        reasonMessage: null,
        code: null,
      }
      const body = JSON.stringify(opening ? { ...state, cancelKey: 'k'.repeat(43) } : state)
      const nonce = String(req.headers[GATEWAY_NONCE_HEADER])
      const method = req.method ?? ''
      const path = req.url ?? ''
      res.writeHead(status, {
        'content-type': 'application/json',
        [RUNTIME_PROOF_HEADER]: answerProof(responseKey, { nonce, method, path, status, body }),
      })
      res.end(body)
    })
  })
}

interface Planted {
  name: string
  /** Puts the impostor's file (its text given) at `path`. */
  plant: (path: string, text: string) => void
  /** Whose file the reader is told to expect: this user unless a row
   *  stands for another user's file (which only root could make here). */
  owner?: (self: number) => number
}

const written = (mode: number) => (path: string, text: string) => {
  writeFileSync(path, text, { mode })
  chmodSync(path, mode)
}

const PLANTED: Planted[] = [
  { name: 'readable by others (0644)', plant: written(0o644) },
  { name: 'writable by the group (0620)', plant: written(0o620) },
  { name: 'readable by the group alone (0640)', plant: written(0o640) },
  { name: "another user's, mode 0600", plant: written(0o600), owner: (self) => self + 1 },
  {
    name: 'a link to a private file',
    plant: (path, text) => {
      written(0o600)(`${path}.real`, text)
      symlinkSync(`${path}.real`, path)
    },
  },
]

describe('the gateway believes no connection file the runtime did not write for its user', () => {
  let root: string
  let impostor: Server
  let file: GatewayConnectionFile
  const self = process.getuid?.() ?? 0

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'assent-planted-'))
    const credential = newGatewayCredential()
    impostor = provingImpostor(credential)
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve))
    const { port } = impostor.address() as AddressInfo
    file = { version: 1, port, instanceId: 'planted', gatewayCredential: credential, pid: 1 }
  })

  afterAll(async () => {
    impostor.closeAllConnections()
    await new Promise<void>((resolve) => impostor.close(() => resolve()))
    rmSync(root, { recursive: true, force: true })
  })

  const plantedIn = (row: Planted, index: number): string => {
    const dataDir = join(root, `data-${index}`)
    mkdirSync(dataDir)
    row.plant(join(dataDir, GATEWAY_CONNECTION_FILE_NAME), JSON.stringify(file))
    return dataDir
  }

  it.each(PLANTED.map((row, index) => [row.name, row, index] as const))(
    'refuses a file %s',
    (_name, row, index) => {
      const dataDir = plantedIn(row, index)
      const reader = new GatewayConnectionFileReader(dataDir, row.owner?.(self) ?? self)
      expect(() => reader.read()).toThrow(/is not believed/)
    },
  )

  it('asks nobody, and runs nothing, on a planted file: the impostor never hears of the call', async () => {
    const dataDir = plantedIn(PLANTED[0]!, PLANTED.length)
    const workspace = join(root, 'workspace')
    mkdirSync(workspace)
    let heard = 0
    impostor.on('request', () => (heard += 1))
    const client = new RuntimeConsentClient({
      dataDir,
      workspaceIdentity: pinnedFolder(workspace),
      log: () => undefined,
    })
    const { workspaceIdentity: _pinned, ...request } = noteCallRequest(workspace)
    const asked = await client.ask(request).then(
      (ticket) => ticket.status,
      (error: unknown) => (error as Error).message,
    )
    await client.drain()
    expect(asked).toMatch(/is not believed/)
    expect(heard).toBe(0)
  })
})

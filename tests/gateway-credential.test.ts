import { randomUUID } from 'node:crypto'
import { statSync } from 'node:fs'
import { mkdir, rename, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ACTION_DIGEST_HEADER,
  CONSENT_HEADER,
  GATEWAY_NONCE_HEADER,
  RUNTIME_PROOF_HEADER,
} from '../src/contracts/http-headers.ts'
import {
  GATEWAY_CONNECTION_FILE_NAME,
  GatewayCallStateSchema,
  GatewayOpenedCallSchema,
} from '../src/contracts/mcp-gateway.ts'
import { englishText } from '../src/contracts/runtime-message.ts'
import { CLIENT_CANCELLED } from '../src/runtime/mcp/gateway-call-service.ts'
import {
  gatewayLinkKeys,
  isProvenAnswer,
  newGatewayNonce,
} from '../src/runtime/mcp/gateway-answer-proof.ts'
import { readGatewayConnectionFile } from '../src/runtime/mcp/gateway-connection-file.ts'
import { RUNTIME_ROUTE_TABLE } from '../src/runtime/server/route-table.ts'
import { noteCallRequest, pinnedFolder } from './support/gateway-call-request.ts'
import { toolCallsOf } from './support/policy-helpers.ts'
import { rawHttp, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

describe('the gateway credential: may ask, may never decide', () => {
  let harness: RuntimeHarness
  let credential: string
  let keys: ReturnType<typeof gatewayLinkKeys>
  let port: number

  const asGateway = (method: string, path: string, body?: unknown, extra: string[][] = []) =>
    rawHttp({
      port,
      method,
      path,
      headers: [
        ['Authorization', `Bearer ${keys.requestKey}`],
        ...(body === undefined ? [] : [['Content-Type', 'application/json']]),
        ...extra,
      ] as Array<[string, string]>,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })

  const openCall = async () => {
    const request = noteCallRequest(harness.workspace)
    const response = await asGateway('POST', '/v1/gateway/calls', request)
    expect(response.status).toBe(201)
    return GatewayOpenedCallSchema.parse(JSON.parse(response.body))
  }

  beforeAll(async () => {
    harness = await startHarness()
    const file = readGatewayConnectionFile(harness.dataDir)
    credential = file.gatewayCredential
    keys = gatewayLinkKeys(credential)
    port = file.port
  })
  afterAll(async () => harness?.close())

  it('is written in a file only its owner can read, next to the runtime it names', () => {
    const mode = statSync(join(harness.dataDir, GATEWAY_CONNECTION_FILE_NAME)).mode & 0o777
    expect(mode).toBe(0o600)
    const file = readGatewayConnectionFile(harness.dataDir)
    expect(file.port).toBe(harness.connection().port)
    expect(file.instanceId).toBe(harness.connection().instanceId)
    expect(file.gatewayCredential).not.toBe(harness.connection().bearerToken)
  })

  it('opens a call that waits for the person, and reads its outcome', async () => {
    const state = await openCall()
    expect(state.status).toBe('pending')
    expect(state.approvalId).not.toBeNull()
    const view = await harness.client.getApproval(state.approvalId ?? '')
    expect(view.approval.kind).toBe('mcp-tool-call')
    expect(view.approval.status).toBe('pending')
  })

  it("opens a folder's calls in its one gateway room, by its real path, and another folder's in another", async () => {
    const roomOf = async (folder: string) => {
      const response = await asGateway('POST', '/v1/gateway/calls', noteCallRequest(folder))
      expect(response.status).toBe(201)
      return GatewayOpenedCallSchema.parse(JSON.parse(response.body)).roomId
    }
    const folder = join(harness.root, `gateway-${randomUUID()}`)
    const other = join(harness.root, `gateway-${randomUUID()}`)
    await mkdir(folder)
    await mkdir(other)
    await symlink(folder, `${folder}.link`)
    const first = await roomOf(folder)
    expect(await roomOf(folder)).toBe(first)
    expect(await roomOf(`${folder}.link`)).toBe(first)
    expect(await roomOf(other)).not.toBe(first)
    const { rooms } = (await harness.client.raw('GET', '/v1/rooms')).body as {
      rooms: Array<{ workspace: string }>
    }
    expect(rooms.filter((room) => [folder, other].includes(room.workspace))).toHaveLength(2)
  })

  it('opens no call in a gateway room whose folder was replaced by another of the same name', async () => {
    const folder = join(harness.root, `gateway-${randomUUID()}`)
    await mkdir(folder)
    const first = await asGateway('POST', '/v1/gateway/calls', noteCallRequest(folder))
    expect(first.status).toBe(201)
    await rename(folder, `${folder}.old`)
    await mkdir(folder)
    const second = await asGateway('POST', '/v1/gateway/calls', noteCallRequest(folder))
    expect(second.status).toBe(409)
    expect(JSON.parse(second.body)).toMatchObject({ code: 'workspace_moved' })
  })

  it('opens no call for a folder swapped for a link, not even in the room of the folder it leads to', async () => {
    const folder = join(harness.root, `gateway-${randomUUID()}`)
    const other = join(harness.root, `gateway-${randomUUID()}`)
    await mkdir(folder)
    await mkdir(other)
    const pinned = pinnedFolder(folder)
    // The other folder's own gateway room exists already.
    const ofOther = await asGateway('POST', '/v1/gateway/calls', noteCallRequest(other))
    expect(ofOther.status).toBe(201)
    const otherRoom = GatewayOpenedCallSchema.parse(JSON.parse(ofOther.body)).roomId
    await rename(folder, `${folder}.old`)
    await symlink(other, folder)
    const refused = await asGateway('POST', '/v1/gateway/calls', noteCallRequest(pinned))
    expect(refused.status).toBe(409)
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'workspace_moved' })
    const calls = (await harness.client.raw('GET', `/v1/rooms/${otherRoom}/timeline`)).body as {
      toolCalls: unknown[]
    }
    expect(calls.toolCalls).toHaveLength(1)
  })

  it('reads an allow given after the folder moved as refused, and records why in the room', async () => {
    const folder = join(harness.root, `gateway-${randomUUID()}`)
    await mkdir(folder)
    const opened = await asGateway('POST', '/v1/gateway/calls', noteCallRequest(folder))
    const state = GatewayOpenedCallSchema.parse(JSON.parse(opened.body))
    const view = await harness.client.getApproval(state.approvalId ?? '')
    await rename(folder, `${folder}.old`)
    await mkdir(folder)
    const token = harness.mintApproval(view.approval.id, 'allow-once', view.actionDigest)
    await harness.client.decideApproval(view.approval.id, 'allow-once', token, view.actionDigest)
    const read = await asGateway('GET', `/v1/gateway/calls/${state.callId}`)
    expect(GatewayCallStateSchema.parse(JSON.parse(read.body))).toMatchObject({
      status: 'refused',
      code: 'workspace_moved',
    })
    const [call] = await toolCallsOf(harness, state.roomId, view.approval.turnId)
    expect(call).toMatchObject({
      status: 'refused',
      result: { code: 'workspace_moved', message: { code: 'workspace.replaced' } },
    })
    // Nothing to report for a call that did not run.
    const report = await asGateway('POST', `/v1/gateway/calls/${state.callId}/result`, {
      ok: true,
      output: 'ran anyway',
    })
    expect(report.status).toBe(409)
  })

  it('cannot decide an approval, even with a valid consent token in hand', async () => {
    const state = await openCall()
    const approvalId = state.approvalId ?? ''
    const view = await harness.client.getApproval(approvalId)
    const token = harness.mintApproval(approvalId, 'allow-once', view.actionDigest)
    const response = await asGateway(
      'POST',
      `/v1/approvals/${approvalId}`,
      {
        decision: 'allow-once',
      },
      [
        [CONSENT_HEADER, token],
        [ACTION_DIGEST_HEADER, view.actionDigest],
      ],
    )
    expect(response.status).toBe(403)
    expect(JSON.parse(response.body)).toMatchObject({ code: 'gateway_forbidden' })
    expect((await harness.client.getApproval(approvalId)).approval.status).toBe('pending')
    // The token was never presented, so the person's real decision still works.
    const decided = await harness.client.decideApproval(
      approvalId,
      'allow-once',
      token,
      view.actionDigest,
    )
    expect(decided.status).toBe(200)
  })

  it('is refused on every route not opened to the gateway by name', async () => {
    const concrete = (pattern: string) => pattern.replace(/:[A-Za-z]+/g, 'some-id')
    const refused = RUNTIME_ROUTE_TABLE.filter((route) => !route.pattern.startsWith('/v1/gateway/'))
    expect(refused.length).toBeGreaterThan(10)
    for (const route of refused) {
      const response = await asGateway(route.method, concrete(route.pattern))
      expect(response.status, `${route.method} ${route.pattern}`).toBe(403)
    }
  })

  it('cannot settle a call the person has not allowed', async () => {
    const state = await openCall()
    const response = await asGateway('POST', `/v1/gateway/calls/${state.callId}/result`, {
      ok: true,
      output: 'pretend it ran',
    })
    expect(response.status).toBe(409)
  })

  it("withdraws a call only with the key it was opened with, never another gateway's", async () => {
    const mine = await openCall()
    const theirs = await openCall()
    const status = async (call: { approvalId: string | null }) =>
      (await harness.client.getApproval(call.approvalId ?? '')).approval.status
    const cancel = (call: { callId: string }, cancelKey: string) =>
      asGateway('POST', `/v1/gateway/calls/${call.callId}/cancel`, { cancelKey })

    // The same credential with another call's key: as if the call did not exist.
    const wrong = await cancel(theirs, mine.cancelKey)
    expect(wrong.status).toBe(404)
    expect(JSON.parse(wrong.body)).toMatchObject({ code: 'unknown_call' })
    expect(await status(theirs)).toBe('pending')

    const right = await cancel(mine, mine.cancelKey)
    expect(right.status).toBe(200)
    expect(GatewayCallStateSchema.parse(JSON.parse(right.body))).toMatchObject({
      status: 'expired',
      reason: englishText(CLIENT_CANCELLED),
    })
    expect(await status(mine)).toBe('expired')
    expect(await status(theirs)).toBe('pending')
  })

  it('a wrong credential gets nothing at all', async () => {
    const response = await rawHttp({
      port,
      method: 'POST',
      path: '/v1/gateway/calls',
      headers: [['Authorization', `Bearer ${keys.requestKey.slice(1)}x`]],
    })
    expect(response.status).toBe(401)
  })

  it('is taken only as its request key: the credential itself, which could prove answers, opens nothing', async () => {
    const response = await rawHttp({
      port,
      method: 'POST',
      path: '/v1/gateway/calls',
      headers: [['Authorization', `Bearer ${credential}`]],
    })
    expect(response.status).toBe(401)
  })

  it('proves every answer to the gateway, a refusal too, over the nonce it was sent', async () => {
    const proven = async (method: string, path: string, body?: unknown) => {
      const nonce = newGatewayNonce()
      const response = await asGateway(method, path, body, [[GATEWAY_NONCE_HEADER, nonce]])
      const answer = { nonce, method, path, status: response.status, body: response.body }
      const proof = response.headers[RUNTIME_PROOF_HEADER]
      return {
        status: response.status,
        proven: isProvenAnswer(
          keys.responseKey,
          answer,
          typeof proof === 'string' ? proof : undefined,
        ),
      }
    }
    const request = noteCallRequest(harness.workspace)
    expect(await proven('POST', '/v1/gateway/calls', request)).toEqual({
      status: 201,
      proven: true,
    })
    expect(await proven('GET', '/v1/gateway/calls/call_unknown')).toEqual({
      status: 404,
      proven: true,
    })
    expect(await proven('GET', '/v1/rooms')).toEqual({ status: 403, proven: true })
    // Without a nonce there is nothing to prove an answer over.
    const bare = await asGateway('GET', '/v1/gateway/calls/call_unknown')
    expect(bare.headers[RUNTIME_PROOF_HEADER]).toBeUndefined()
    // Nor for main, nor for a caller that showed no credential: no proof is
    // ever made for whoever asks.
    const nonce = newGatewayNonce()
    const main = await rawHttp({
      port,
      method: 'GET',
      path: '/v1/rooms',
      headers: [
        ['Authorization', `Bearer ${harness.connection().bearerToken}`],
        [GATEWAY_NONCE_HEADER, nonce],
      ],
    })
    expect(main.status).toBe(200)
    expect(main.headers[RUNTIME_PROOF_HEADER]).toBeUndefined()
    const stranger = await rawHttp({
      port,
      method: 'GET',
      path: '/v1/gateway/calls/call_unknown',
      headers: [[GATEWAY_NONCE_HEADER, nonce]],
    })
    expect(stranger.status).toBe(401)
    expect(stranger.headers[RUNTIME_PROOF_HEADER]).toBeUndefined()
  })
})

import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { InputRequestRecord } from '../src/contracts/input-request.ts'
import { decide, gatewayRoom, pendingApprovals } from './support/mcp-gateway-harness.ts'
import { connectToHostile } from './support/mcp-hostile-server.ts'
import { samplingClient } from './support/mcp-real-servers.ts'
import { inputRequests, respond } from './support/input-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

const callOptions = { timeout: 300_000 }

/**
 * A server's form says nothing of the request it belongs to (over stdio
 * nothing names one), so the gateway routes it to the one call in flight.
 * A resource read that runs beside an allowed tool call of the same server
 * is in flight too: a form the server sends during the read (a password,
 * say) must not reach the person as if the allowed call asked for it.
 * The hostile server's `gated` tool call holds until `note://ask` is read;
 * reading it asks for a password. With both in flight, the server is told
 * `cancel` and nobody sees a form.
 */
describe('assent-gateway shows nobody a form sent beside an allowed call', () => {
  let harness: RuntimeHarness
  let agent: Client
  let pending: ReturnType<typeof pendingApprovals>

  beforeAll(async () => {
    harness = await startHarness()
    pending = pendingApprovals(harness)
    ;({ client: agent } = await connectToHostile(harness, samplingClient(harness.workspace).client))
  })
  afterAll(async () => {
    await agent?.close()
    await harness?.close()
  })

  it('a read beside an allowed, running call: its form is told cancel, and nobody sees it', async () => {
    const held = agent.callTool(
      { name: 'gated__poke', arguments: { action: 'hold' } },
      undefined,
      callOptions,
    )
    expect(await decide(harness, await pending(), 'allow-once')).toBe(200)
    const log = join(harness.root, 'hostile.log')
    await eventually(
      async () => (await readFile(log, 'utf8').catch(() => '')).includes('held'),
      'the allowed call to run',
    )
    let read: string | undefined
    void agent.readResource({ uri: 'gated__note://ask' }, callOptions).then(
      (result) => (read = (result.contents[0] as { text?: string }).text),
      (error: Error) => (read = error.message),
    )
    expect(await decide(harness, await pending(), 'allow-once')).toBe(200)
    const room = await gatewayRoom(harness)
    const outcome = await eventually<{ form: InputRequestRecord } | { read: string }>(async () => {
      const form = (await inputRequests(harness, room.id)).find((one) => one.status === 'pending')
      if (form !== undefined) return { form }
      return read === undefined ? undefined : { read }
    }, 'the read to end, or a form to be shown')
    if ('form' in outcome) {
      // Let the server go on, then fail: the person was shown its form.
      await respond(harness, outcome.form.id, { action: 'decline' })
      throw new Error(`a form was shown: ${outcome.form.form?.message}`)
    }
    expect(outcome).toEqual({ read: 'asked: cancel' })
    const result = await held
    expect(result.content).toEqual([{ type: 'text', text: 'released' }])
  })
})

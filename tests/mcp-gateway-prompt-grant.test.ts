import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ApprovalView } from '../src/contracts/approval.ts'
import {
  connectThroughGateway,
  decide,
  gatewayRoom,
  pendingApprovals,
  refusalOf,
} from './support/mcp-gateway-harness.ts'
import { roomGrants } from './support/policy-helpers.ts'
import {
  samplingClient,
  writeRealServersConfig,
  type RealServersFixture,
} from './support/mcp-real-servers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

const callOptions = { timeout: 300_000 }

/**
 * An "always allow" given on a prompt of a gated server (the pinned
 * server-everything behind assent-gateway) answers for that prompt, by
 * the name the person was shown, with other arguments too, as a tool's
 * grant answers for its tool; another prompt of the same server, which
 * the person never saw, is asked about.
 */
describe("assent-gateway's grant on a prompt answers for that prompt only", () => {
  let harness: RuntimeHarness
  let fixture: RealServersFixture
  let agent: Client
  let pending: ReturnType<typeof pendingApprovals>

  beforeAll(async () => {
    harness = await startHarness()
    pending = pendingApprovals(harness)
    fixture = await writeRealServersConfig(harness.root, harness.workspace)
    const host = samplingClient(harness.workspace)
    ;({ client: agent } = await connectThroughGateway(harness, fixture.configPath, host.client))
  })
  afterAll(async () => {
    await agent?.close()
    await harness?.close()
  })

  /** The prompt, or the question it opened, whichever comes first. */
  async function promptOrQuestion(
    name: string,
    args?: Record<string, string>,
  ): Promise<{ got: Promise<unknown>; asked: ApprovalView | 'answered unasked' }> {
    const got = agent.getPrompt(
      { name: `everything__${name}`, ...(args ? { arguments: args } : {}) },
      callOptions,
    )
    const answered = got.then(() => 'answered unasked' as const)
    // Once the prompt is answered nobody waits for a question: the look
    // for one ends when the test does.
    const question = pending().catch(() => new Promise<never>(() => undefined))
    return { got, asked: await Promise.race([answered, question]) }
  }

  it('asks about another prompt of the server after "always allow" on one', async () => {
    const first = await promptOrQuestion('args-prompt', { city: 'Lisbon' })
    if (first.asked === 'answered unasked') throw new Error('a gated prompt ran unasked')
    expect(first.asked.alwaysAllowAvailable).toBe(true)
    expect(await decide(harness, first.asked, 'allow-always')).toBe(200)
    expect(JSON.stringify(await first.got)).toContain('Lisbon')
    // The grant names the prompt it answers for, where the person revokes
    // it: `prompts/get` alone would not say which.
    const room = await gatewayRoom(harness)
    expect(await roomGrants(harness, room.id)).toEqual([
      expect.objectContaining({
        toolName: 'prompts/get',
        mcp: expect.objectContaining({ serverId: 'everything', prompt: 'args-prompt' }),
      }),
    ])

    // The same prompt, other words: the grant answers (asked, it would
    // wait for the person past the test's time).
    const again = await agent.getPrompt(
      { name: 'everything__args-prompt', arguments: { city: 'Porto' } },
      callOptions,
    )
    expect(JSON.stringify(again)).toContain('Porto')

    // Another prompt of the same server: the person is asked.
    const other = await promptOrQuestion('simple-prompt')
    expect(other.asked).not.toBe('answered unasked')
    if (other.asked === 'answered unasked') return
    expect(other.asked.action.toolName).toBe('prompts/get')
    expect(other.asked.action.arguments).toEqual({ name: 'simple-prompt', arguments: {} })
    expect(await decide(harness, other.asked, 'deny')).toBe(200)
    expect((await refusalOf(other.got)).data).toEqual({ reason: 'denied' })
  })
})

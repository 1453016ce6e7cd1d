import { existsSync } from 'node:fs'
import { mkdir, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectThroughGateway, gatewayConfigIn } from './support/mcp-gateway-harness.ts'
import { ODD_NAMES_SERVER, samplingClient, type SamplingLog } from './support/mcp-real-servers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/**
 * A call that began before mcp.json was reloaded keeps the connection it
 * began on until it ends. What the server asks on that connection meanwhile
 * (sampling: the agent's model) is no longer judged by the configuration it
 * was started with: once the person took its read-only manifest away, or
 * removed the server, its request reaches no model unasked.
 */
describe('assent-gateway: a server changed in mcp.json while its call runs', () => {
  let harness: RuntimeHarness
  let agent: Client
  let sampled: SamplingLog
  let stderr: () => string
  let configPath: string
  let dir: string
  let reloads = 0

  const odd = (manifest: boolean) => ({
    id: 'odd',
    name: 'Odd names',
    transport: {
      type: 'stdio',
      command: process.execPath,
      args: [ODD_NAMES_SERVER],
      env: { ODD_DIR: dir },
    },
    allowed_tools: ['sample_when_told'],
    ...(manifest ? { manifest: { readonly: true } } : {}),
  })
  let saved = ''
  const save = async (servers: unknown[]) => {
    const text = JSON.stringify({ servers })
    if (text === saved) return
    saved = text
    await writeFile(`${configPath}.tmp`, text)
    await rename(`${configPath}.tmp`, configPath)
    reloads += 1
    const seen = reloads
    await eventually(
      async () => (stderr().split('reloaded').length > seen ? true : undefined),
      'the gateway to reload mcp.json',
    )
  }

  beforeAll(async () => {
    harness = await startHarness()
    dir = join(harness.root, 'odd-reload')
    await mkdir(dir, { recursive: true })
    configPath = await gatewayConfigIn(harness.root, 'reload-requests')
    saved = JSON.stringify({ servers: [odd(true)] })
    await writeFile(configPath, saved)
    const host = samplingClient(harness.workspace)
    sampled = host.sampled
    ;({ client: agent, stderr } = await connectThroughGateway(harness, configPath, host.client))
  })
  afterAll(async () => {
    await agent?.close()
    await harness?.close()
  })

  it.each([
    ['its read-only manifest taken away', () => [odd(false)]],
    ['it removed', () => []],
  ])('with %s: its sampling request reaches no model', async (_name, servers) => {
    await rm(join(dir, 'go'), { force: true })
    await rm(join(dir, 'sampling-started'), { force: true })
    await save([odd(true)])
    const before = sampled.length
    const call = agent.callTool({ name: 'odd__sample_when_told', arguments: {} }, undefined, {
      timeout: 120_000,
    })
    await eventually(
      async () => (existsSync(join(dir, 'sampling-started')) ? true : undefined),
      'the call to start',
    )
    await save(servers())
    await writeFile(join(dir, 'go'), 'go')
    const result = await call
    expect(JSON.stringify(result.content)).toContain('refused')
    expect(JSON.stringify(result.content)).toContain('configuration changed')
    expect(sampled.length).toBe(before)
  })
})

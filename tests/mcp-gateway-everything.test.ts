import { realpathSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type LoggingMessageNotification,
  type ResourceUpdatedNotification,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  connectThroughGateway,
  decide,
  nextPendingApproval,
} from './support/mcp-gateway-harness.ts'
import {
  MODEL_ANSWER,
  samplingClient,
  writeRealServersConfig,
  type SamplingLog,
} from './support/mcp-real-servers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

const callOptions = { timeout: 300_000 }
const STATIC_DOC = 'demo://resource/static/document/architecture.md'
const TEXT_TEMPLATE = 'demo://resource/dynamic/text/{resourceId}'

/** Resolves with the first notification `accept` takes. */
function first<T>(
  subscribe: (listener: (value: T) => void) => void,
  accept: (value: T) => boolean,
) {
  return new Promise<T>((resolve) => {
    subscribe((value) => {
      if (accept(value)) resolve(value)
    })
  })
}

/**
 * The official SDK's Client drives assent-gateway over stdio, with the
 * pinned @modelcontextprotocol/server-everything and server-filesystem
 * behind it. Here the servers run unasked (read-only manifests), so each
 * feature is seen passing through; what the policy governs is shown in
 * mcp-gateway-governed.test.ts.
 */
describe('server-everything and server-filesystem through assent-gateway', () => {
  let harness: RuntimeHarness
  let agent: Client
  let sampled: SamplingLog

  beforeAll(async () => {
    harness = await startHarness()
    const fixture = await writeRealServersConfig(harness.root, harness.workspace)
    const host = samplingClient(harness.workspace)
    sampled = host.sampled
    agent = (await connectThroughGateway(harness, fixture.configPath, host.client)).client
  })
  afterAll(async () => {
    await agent?.close()
    await harness?.close()
  })

  it('advertises the capabilities the servers behind it offer', () => {
    expect(agent.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      resources: { listChanged: true, subscribe: true },
      prompts: { listChanged: true },
      completions: {},
      logging: {},
    })
  })

  it('lists resources, templates and prompts under their server id', async () => {
    const { resources } = await agent.listResources()
    const uris = resources.map((resource) => resource.uri)
    expect(uris).toContain(`library__${STATIC_DOC}`)
    expect(uris).toContain(`everything__${STATIC_DOC}`)
    expect(uris.every((uri) => /^(library|everything|odd)__/.test(uri))).toBe(true)
    const { resourceTemplates } = await agent.listResourceTemplates()
    expect(resourceTemplates.map((template) => template.uriTemplate)).toContain(
      `library__${TEXT_TEMPLATE}`,
    )
    const { prompts } = await agent.listPrompts()
    expect(prompts.map((prompt) => prompt.name)).toEqual(
      expect.arrayContaining([
        'library__simple-prompt',
        'library__args-prompt',
        'library__completable-prompt',
        'everything__simple-prompt',
      ]),
    )
  })

  /** Reads `uri`, which names a place outside the workspace to the rule
   *  (`demo://resource/…` is `/resource/…`: a server may map its own
   *  scheme to any file), so even a read-only server's read asks: the
   *  person allows it once. */
  const readAskedOnce = async (uri: string) => {
    const reading = agent.readResource({ uri }, callOptions)
    const asked = await nextPendingApproval(harness, seen)
    seen.add(asked.approval.id)
    expect(asked.approval.arguments).toEqual({ uri: uri.replace(/^library__/, '') })
    expect(await decide(harness, asked, 'allow-once')).toBe(200)
    return reading
  }
  const seen = new Set<string>()

  it('reads a resource of a read-only server once the person allows it, its URI still namespaced', async () => {
    const read = await readAskedOnce(`library__${STATIC_DOC}`)
    expect(read.contents).toHaveLength(1)
    expect(read.contents[0]?.uri).toBe(`library__${STATIC_DOC}`)
    expect(JSON.stringify(read.contents[0])).toContain('Architecture')
    const dynamic = await readAskedOnce('library__demo://resource/dynamic/text/7')
    expect(dynamic.contents[0]).toMatchObject({ text: expect.stringMatching(/^Resource 7: /) })
  })

  it('passes prompts and completions through unchanged', async () => {
    const simple = await agent.getPrompt({ name: 'library__simple-prompt' })
    expect(simple.messages[0]?.content).toMatchObject({ type: 'text' })
    const withArgs = await agent.getPrompt({
      name: 'library__args-prompt',
      arguments: { city: 'Lisbon' },
    })
    expect(JSON.stringify(withArgs.messages)).toContain('Lisbon')
    const embedded = await agent.getPrompt({
      name: 'library__resource-prompt',
      arguments: { resourceType: 'Text', resourceId: '3' },
    })
    const resourceContent = embedded.messages.find((message) => message.content.type === 'resource')
    // An embedded resource names the server it came from, like a listed one.
    expect(resourceContent?.content).toMatchObject({
      resource: { uri: 'library__demo://resource/dynamic/text/3' },
    })

    const department = await agent.complete({
      ref: { type: 'ref/prompt', name: 'library__completable-prompt' },
      argument: { name: 'department', value: 'Eng' },
    })
    expect(department.completion.values).toEqual(['Engineering'])
    const resourceId = await agent.complete({
      ref: { type: 'ref/resource', uri: `library__${TEXT_TEMPLATE}` },
      argument: { name: 'resourceId', value: '12' },
    })
    expect(resourceId.completion.values).toEqual(['12'])
  })

  it("passes the server's progress to the agent's progress token", async () => {
    const seen: Progress[] = []
    const result = await agent.callTool(
      {
        name: 'library__trigger-long-running-operation',
        arguments: { duration: 1, steps: 3 },
      },
      undefined,
      { ...callOptions, onprogress: (progress) => seen.push(progress) },
    )
    expect(JSON.stringify(result.content)).toContain('completed')
    // The last step may land after the result, when the SDK no longer
    // listens for it; the steps before it always arrive, in order.
    expect(seen.length).toBeGreaterThanOrEqual(2)
    expect(seen.every((progress) => progress.total === 3)).toBe(true)
    expect(seen.map((progress) => progress.progress)).toEqual([1, 2, 3].slice(0, seen.length))
  })

  it("passes the server's log messages, under its id, at the level the agent set", async () => {
    await agent.setLoggingLevel('debug')
    const message = first<LoggingMessageNotification>(
      (listener) => agent.setNotificationHandler(LoggingMessageNotificationSchema, listener),
      (notification) => notification.params.logger === 'library',
    )
    await agent.callTool(
      { name: 'library__toggle-simulated-logging', arguments: {} },
      undefined,
      callOptions,
    )
    expect((await message).params.data).toMatch(/message/)
  })

  it('subscribes to a resource and passes its updates under the namespaced URI', async () => {
    const uri = `library__${STATIC_DOC}`
    const updated = first<ResourceUpdatedNotification>(
      (listener) => agent.setNotificationHandler(ResourceUpdatedNotificationSchema, listener),
      (notification) => notification.params.uri === uri,
    )
    await agent.subscribeResource({ uri })
    await agent.callTool(
      { name: 'library__toggle-subscriber-updates', arguments: {} },
      undefined,
      callOptions,
    )
    expect((await updated).params.uri).toBe(uri)
    await agent.unsubscribeResource({ uri })
  })

  it("relays a read-only server's sampling request to the agent's model and its answer back", async () => {
    const before = sampled.length
    const result = await agent.callTool(
      { name: 'library__trigger-sampling-request', arguments: { prompt: 'name a colour' } },
      undefined,
      callOptions,
    )
    expect(sampled.length).toBe(before + 1)
    expect(JSON.stringify(sampled.at(-1)?.messages)).toContain('name a colour')
    expect(JSON.stringify(result.content)).toContain(MODEL_ANSWER)
  })

  it("relays the server's roots request to the agent's client", async () => {
    const result = await agent.callTool(
      { name: 'library__get-roots-list', arguments: {} },
      undefined,
      callOptions,
    )
    // The workspace as its real folder: the gateway names no other.
    expect(JSON.stringify(result.content)).toContain(
      pathToFileURL(realpathSync(harness.workspace)).href,
    )
  })

  it('passes images, annotations and resource links (namespaced, readable back)', async () => {
    const image = await agent.callTool(
      { name: 'library__get-tiny-image', arguments: {} },
      undefined,
      callOptions,
    )
    expect(image.content).toContainEqual(
      expect.objectContaining({ type: 'image', mimeType: 'image/png' }),
    )
    const annotated = await agent.callTool(
      { name: 'library__get-annotated-message', arguments: { messageType: 'error' } },
      undefined,
      callOptions,
    )
    expect(annotated.content).toContainEqual(
      expect.objectContaining({ annotations: expect.objectContaining({ priority: 1 }) }),
    )
    const links = await agent.callTool(
      { name: 'library__get-resource-links', arguments: { count: 2 } },
      undefined,
      callOptions,
    )
    const link = (links.content as Array<{ type: string; uri?: string }>).find(
      (item) => item.type === 'resource_link',
    )
    expect(link?.uri).toMatch(/^library__demo:\/\//)
    const read = await readAskedOnce(link?.uri ?? '')
    expect(read.contents[0]?.uri).toBe(link?.uri)
  })

  it('serves server-filesystem behind it, within the roots the agent gave', async () => {
    await writeFile(join(harness.workspace, 'readme.txt'), 'hello from the workspace')
    const read = await agent.callTool(
      {
        name: 'files__read_text_file',
        arguments: { path: join(harness.workspace, 'readme.txt') },
      },
      undefined,
      callOptions,
    )
    expect(read.content).toEqual([{ type: 'text', text: 'hello from the workspace' }])
  })
})

import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { argumentsText, MAX_MCP_ARGUMENTS_CHARS } from '../src/contracts/approval.ts'
import { MCP_REFUSAL_CODES } from '../src/runtime/mcp/mcp-refusal.ts'
import { pendingInputFor, respond } from './support/input-helpers.ts'
import {
  connectThroughGateway,
  decide,
  gatewayRoom,
  pendingApprovals,
  refusalOf,
} from './support/mcp-gateway-harness.ts'
import {
  MODEL_ANSWER,
  samplingClient,
  writeRealServersConfig,
  type RealServersFixture,
  type SamplingLog,
} from './support/mcp-real-servers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import {
  CONTROL_PATH,
  ORIGINAL,
  PERSON_ONLY_PATHS,
  PERSON_ONLY_SPELLINGS,
  layPersonOnlyWorkspace,
} from './support/person-only-table.ts'

const callOptions = { timeout: 300_000 }
const FEATURES_DOC = 'demo://resource/static/document/features.md'

/**
 * What the room's policy does with each kind of MCP request through
 * assent-gateway, against the pinned server-everything (`everything`
 * gated, `library` read-only) and a fixture for odd names, a person-only
 * file: URI, cancellation and list changes.
 */
describe('assent-gateway governs resource reads and sampling, and names stay plain', () => {
  let harness: RuntimeHarness
  let fixture: RealServersFixture
  let agent: Client
  let sampled: SamplingLog
  let pending: ReturnType<typeof pendingApprovals>

  beforeAll(async () => {
    harness = await startHarness()
    await layPersonOnlyWorkspace(harness.workspace)
    pending = pendingApprovals(harness)
    fixture = await writeRealServersConfig(harness.root, harness.workspace)
    const host = samplingClient(harness.workspace)
    sampled = host.sampled
    ;({ client: agent } = await connectThroughGateway(harness, fixture.configPath, host.client))
  })
  afterAll(async () => {
    await agent?.close()
    await harness?.close()
  })

  it('asks the person before reading a resource of a gated server, showing its URI', async () => {
    const read = agent.readResource({ uri: `everything__${FEATURES_DOC}` }, callOptions)
    const view = await pending()
    expect(view.approval.kind).toBe('mcp-tool-call')
    expect(view.action.toolName).toBe('resources/read')
    expect(view.action.arguments).toEqual({ uri: FEATURES_DOC })
    expect(view.action.mcp).toMatchObject({ serverId: 'everything', serverName: 'Everything' })
    expect(await decide(harness, view, 'allow-once')).toBe(200)
    const result = await read
    expect(result.contents[0]?.uri).toBe(`everything__${FEATURES_DOC}`)
  })

  it('answers a denied read with a JSON-RPC error whose reason a client can show', async () => {
    const read = refusalOf(agent.readResource({ uri: `everything__${FEATURES_DOC}` }, callOptions))
    const view = await pending()
    expect(await decide(harness, view, 'deny')).toBe(200)
    const error = await read
    expect(error.code).toBe(MCP_REFUSAL_CODES.denied)
    expect(error.data).toEqual({ reason: 'denied' })
  })

  it('reads the control path on a read-only server without asking', async () => {
    const result = await agent.callTool(
      { name: 'files__read_text_file', arguments: { path: join(harness.workspace, CONTROL_PATH) } },
      undefined,
      callOptions,
    )
    expect(result.content).toEqual([{ type: 'text', text: ORIGINAL }])
  })

  // The person-only table (support/person-only-table.ts), walked through the
  // door a read-only manifest opens: the manifest is the server's own word,
  // so a call naming any of these asks like every other door.
  it.each(PERSON_ONLY_PATHS)(
    "asks before a read-only server's tool reads %s, which no manifest answers for",
    async (path) => {
      const read = refusalOf(
        agent.callTool(
          { name: 'files__read_text_file', arguments: { path: join(harness.workspace, path) } },
          undefined,
          callOptions,
        ),
      )
      const view = await pending()
      expect(view.action.mcp?.serverId).toBe('files')
      expect(view.action.arguments).toEqual({ path: join(harness.workspace, path) })
      expect(await decide(harness, view, 'deny')).toBe(200)
      expect((await read).data).toEqual({ reason: 'denied' })
    },
  )

  // The spellings of a person-only path a server may read as that path
  // (support/person-only-table.ts), through the same read-only door: as a
  // resource's URI, and as a tool's arguments.
  it.each(PERSON_ONLY_SPELLINGS)(
    'asks before a read-only server reads a person-only path written as %s',
    async (_name, spelled) => {
      const args = spelled(harness.workspace)
      const asked = async (request: Promise<unknown>, shown: Record<string, unknown>) => {
        const refused = refusalOf(request)
        const view = await pending()
        expect(view.action.arguments).toEqual(shown)
        expect(await decide(harness, view, 'deny')).toBe(200)
        expect((await refused).data).toEqual({ reason: 'denied' })
      }
      if (typeof args.uri === 'string') {
        await asked(agent.readResource({ uri: `odd__${args.uri}` }, callOptions), args)
      }
      await asked(
        agent.callTool({ name: 'files__read_text_file', arguments: args }, undefined, callOptions),
        args,
      )
    },
  )

  // A prompt may embed a resource's content and read what its arguments
  // name: it is a read, governed as one.
  it("asks the person before getting a gated server's prompt, showing its name and arguments", async () => {
    const args = { resourceType: 'Text', resourceId: '3' }
    const denied = refusalOf(
      agent.getPrompt({ name: 'everything__resource-prompt', arguments: args }, callOptions),
    )
    const view = await pending()
    expect(view.action.toolName).toBe('prompts/get')
    expect(view.action.arguments).toEqual({ name: 'resource-prompt', arguments: args })
    expect(view.action.mcp?.serverId).toBe('everything')
    expect(await decide(harness, view, 'deny')).toBe(200)
    expect((await denied).data).toEqual({ reason: 'denied' })

    const allowed = agent.getPrompt(
      { name: 'everything__resource-prompt', arguments: args },
      callOptions,
    )
    expect(await decide(harness, await pending(), 'allow-once')).toBe(200)
    expect(JSON.stringify((await allowed).messages)).toContain(
      'everything__demo://resource/dynamic/text/3',
    )
  })

  it.each(PERSON_ONLY_PATHS)(
    "asks before a read-only server's prompt is given %s as an argument",
    async (path) => {
      const got = refusalOf(
        agent.getPrompt(
          { name: 'library__args-prompt', arguments: { city: join(harness.workspace, path) } },
          callOptions,
        ),
      )
      const view = await pending()
      expect(view.action).toMatchObject({
        toolName: 'prompts/get',
        arguments: { name: 'args-prompt', arguments: { city: join(harness.workspace, path) } },
      })
      expect(view.alwaysAllowAvailable).toBe(false)
      expect(await decide(harness, view, 'deny')).toBe(200)
      expect((await got).data).toEqual({ reason: 'denied' })
    },
  )

  it('refuses to complete a person-only path, and completes the control path', async () => {
    const complete = (value: string) =>
      agent.complete({
        ref: { type: 'ref/prompt', name: 'library__completable-prompt' },
        argument: { name: 'department', value },
      })
    expect((await complete('Eng')).completion.values).toEqual(['Engineering'])
    const refused = await refusalOf(complete(join(harness.workspace, '.git/hoo')))
    expect(refused.code).toBe(MCP_REFUSAL_CODES.not_allowed)
    expect(refused.message).toContain(
      `does not pass completion/complete for ${join(harness.workspace, '.git/hoo')}`,
    )
  })

  // The person-only table, and its spellings as URIs, walked through the
  // subscription door: an update would say when the path changes.
  it.each([
    ...PERSON_ONLY_PATHS.map((path) => [path, (ws: string) => pathToFileURL(join(ws, path)).href]),
    ...PERSON_ONLY_SPELLINGS.flatMap(([name, spelled]) => {
      const uri = spelled('/w').uri
      return typeof uri === 'string' ? [[name, (ws: string) => String(spelled(ws).uri)]] : []
    }),
  ] as Array<[string, (workspace: string) => string]>)(
    'refuses a subscription to %s, asking nobody, and lets it be unsubscribed',
    async (_name, uriOf) => {
      const uri = uriOf(harness.workspace)
      const refused = await refusalOf(agent.subscribeResource({ uri: `library__${uri}` }))
      expect(refused.code).toBe(MCP_REFUSAL_CODES.not_allowed)
      expect(refused.message).toContain('does not pass resources/subscribe for ')
      await agent.unsubscribeResource({ uri: `library__${uri}` })
      const control = `library__${pathToFileURL(join(harness.workspace, CONTROL_PATH)).href}`
      await agent.subscribeResource({ uri: control })
      await agent.unsubscribeResource({ uri: control })
    },
  )

  // A file outside the workspace, spelled as a URI may spell it: a read
  // of it asks, so a subscription, which asks nobody, is refused.
  const outsideSpellings: Array<[string, (root: string, ws: string) => string]> = [
    ['its file: URI', (root) => pathToFileURL(join(root, 'outside', 'diary.txt')).href],
    ['a climb out of the workspace', (_root, ws) => `file://${ws}/../outside/diary.txt`],
    ['a climb spelled %2e%2e', (_root, ws) => `file://${ws}/%2e%2e/outside/diary.txt`],
    ['an escaped slash', (_root, ws) => `file://${ws}/..%2Foutside%2Fdiary.txt`],
    ['a localhost host', (root) => `file://localhost${root}/outside/diary.txt`],
    ['another host', (root) => `file://elsewhere${root}/outside/diary.txt`],
    ['an upper-case scheme', (root) => `FILE://${root}/outside/diary.txt`],
    ['a query and a fragment', (root) => `file://${root}/outside/diary.txt?x=1#top`],
  ]
  it.each(outsideSpellings)(
    'refuses a subscription to a file outside the workspace, by %s, asking nobody',
    async (_name, uriOf) => {
      await mkdir(join(harness.root, 'outside'), { recursive: true })
      await writeFile(join(harness.root, 'outside', 'diary.txt'), 'dear diary\n')
      const uri = `library__${uriOf(harness.root, harness.workspace)}`
      const refused = await refusalOf(agent.subscribeResource({ uri }))
      expect(refused.code).toBe(MCP_REFUSAL_CODES.not_allowed)
      expect(refused.message).toContain('does not pass resources/subscribe there')
      expect(refused.message).toContain('outside the workspace')
      const control = `library__${pathToFileURL(join(harness.workspace, CONTROL_PATH)).href}`
      await agent.subscribeResource({ uri: control })
      await agent.unsubscribeResource({ uri: control })
    },
  )

  it("shows a gated server's sampling request to the person before the agent's model sees it", async () => {
    const before = sampled.length
    const call = agent.callTool(
      { name: 'everything__trigger-sampling-request', arguments: { prompt: 'plan a picnic' } },
      undefined,
      callOptions,
    )
    const toolView = await pending()
    expect(toolView.action.toolName).toBe('trigger-sampling-request')
    expect(await decide(harness, toolView, 'allow-once')).toBe(200)
    const samplingView = await pending()
    expect(samplingView.action.toolName).toBe('sampling/createMessage')
    expect(JSON.stringify(samplingView.action.arguments)).toContain('plan a picnic')
    // The person is still reading: the model has not been asked.
    expect(sampled.length).toBe(before)
    expect(await decide(harness, samplingView, 'allow-once')).toBe(200)
    const result = await call
    expect(sampled.length).toBe(before + 1)
    expect(JSON.stringify(result.content)).toContain(MODEL_ANSWER)
  })

  // What the person judges in a sampling request is the request itself: a
  // grant would pass the server's later requests, whatever they say, to the
  // model unseen. So neither "always" is offered, nor taken, and each
  // request is shown.
  it('never remembers a sampling request: "always" is neither offered nor taken, and the next is shown too', async () => {
    const before = sampled.length
    const ask = (prompt: string) =>
      agent.callTool(
        { name: 'everything__trigger-sampling-request', arguments: { prompt } },
        undefined,
        callOptions,
      )
    const first = ask('plan a picnic')
    expect(await decide(harness, await pending(), 'allow-once')).toBe(200)
    const samplingView = await pending()
    expect(samplingView.action.toolName).toBe('sampling/createMessage')
    expect(samplingView.alwaysAllowAvailable).toBe(false)
    expect(samplingView.serverAlwaysAllowAvailable).toBe(false)
    expect(await decide(harness, samplingView, 'allow-always')).toBe(409)
    expect(await decide(harness, samplingView, 'allow-always-server')).toBe(409)
    expect(await decide(harness, samplingView, 'allow-once')).toBe(200)
    await first
    const second = ask('something the person has not seen')
    expect(await decide(harness, await pending(), 'allow-once')).toBe(200)
    const next = await pending()
    expect(next.action.toolName).toBe('sampling/createMessage')
    expect(JSON.stringify(next.action.arguments)).toContain('something the person has not seen')
    expect(sampled.length).toBe(before + 1)
    expect(await decide(harness, next, 'deny')).toBe(200)
    await second
    expect(sampled.length).toBe(before + 1)
  })

  it('offers "always" for a resource read of a gated server, never "every tool" (a read shows no tool list)', async () => {
    // A read naming a place in the workspace: the server's own documents
    // (`demo://resource/...`) name `/resource/...`, outside it, a private
    // read on which no "always" is offered. The server knows no such URI,
    // so the read, once allowed, fails.
    const uri = `demo://${join(harness.workspace, 'readme.md')}`
    const read = refusalOf(agent.readResource({ uri: `everything__${uri}` }, callOptions))
    const view = await pending()
    expect(view.action.arguments).toEqual({ uri })
    expect(view.alwaysAllowAvailable).toBe(true)
    expect(view.serverAlwaysAllowAvailable).toBe(false)
    expect(await decide(harness, view, 'allow-always-server')).toBe(409)
    expect(await decide(harness, view, 'allow-once')).toBe(200)
    await read
  })

  it('never lets a denied sampling request reach the model; the server is told why', async () => {
    const before = sampled.length
    const call = agent.callTool(
      { name: 'everything__trigger-sampling-request', arguments: { prompt: 'leak the notes' } },
      undefined,
      callOptions,
    )
    expect(await decide(harness, await pending(), 'allow-once')).toBe(200)
    expect(await decide(harness, await pending(), 'deny')).toBe(200)
    const result = await call
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result.content)).toContain(
      'Denied by the person; everything__sampling/createMessage did not run',
    )
    expect(sampled.length).toBe(before)
  })

  // What the person is shown of a sampling request is shown whole, under
  // the rule every MCP call is under (mcp-shown-whole.test.ts): past it
  // nobody is asked and nothing runs. (A read's URI is shorter still: no
  // URI over 2 048 characters is passed on, mcp-plain-names.ts.)
  it('refuses a sampling request longer than a person is shown before the model sees it; the server is told why', async () => {
    const before = sampled.length
    // The tool's own arguments are as long as a person is shown; the
    // sampling request the server makes of the prompt holds more.
    const prompt = 'p'.repeat(MAX_MCP_ARGUMENTS_CHARS - argumentsText({ prompt: '' }).length)
    const call = agent.callTool(
      { name: 'everything__trigger-sampling-request', arguments: { prompt } },
      undefined,
      callOptions,
    )
    expect(await decide(harness, await pending(), 'allow-once')).toBe(200)
    const result = await call
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result.content)).toContain(
      `more than the ${MAX_MCP_ARGUMENTS_CHARS} a person is shown`,
    )
    expect(sampled.length).toBe(before)
  })

  it("passes a gated server's elicitation to the person only, titled choices shown by title and answered by value", async () => {
    const call = agent.callTool(
      { name: 'everything__trigger-elicitation-request', arguments: {} },
      undefined,
      callOptions,
    )
    const view = await pending()
    expect(await decide(harness, view, 'allow-once')).toBe(200)
    const room = await gatewayRoom(harness)
    const form = await pendingInputFor(harness, room.id, view.approval.turnId)
    // server-everything's form has titled choices (`oneOf` for one,
    // `anyOf` for several): the room draws their titles.
    const fields = form.form?.requestedSchema?.properties ?? {}
    expect(fields['titledSingleSelectEnum']).toMatchObject({
      enum: ['hero-1', 'hero-2', 'hero-3'],
      enumNames: ['Superman', 'Green Lantern', 'Wonder Woman'],
    })
    expect(fields['titledMultipleSelectEnum']).toMatchObject({
      items: { enum: ['fish-1', 'fish-2', 'fish-3'], enumNames: ['Tuna', 'Salmon', 'Trout'] },
    })
    const title = await respond(harness, form.id, {
      action: 'accept',
      content: { name: 'Ada', titledSingleSelectEnum: 'Superman' },
    })
    expect(title.status).toBe(400)
    const answered = await respond(harness, form.id, {
      action: 'accept',
      content: {
        name: 'Ada',
        titledSingleSelectEnum: 'hero-3',
        titledMultipleSelectEnum: ['fish-1', 'fish-3'],
        legacyTitledEnum: 'pet-2',
      },
    })
    expect(answered.status).toBe(200)
    const result = await call
    const text = JSON.stringify(result.content)
    expect(text).toContain('User provided the requested information')
    expect(text).toContain('\\"titledSingleSelectEnum\\": \\"hero-3\\"')
    expect(text).toContain('\\"fish-3\\"')
  })
})

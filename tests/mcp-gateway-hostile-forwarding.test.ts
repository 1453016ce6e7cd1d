import { WAIT_TIMEOUT_MS } from '../scripts/test-timing.ts'
import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  ResourceUpdatedNotificationSchema,
  type ResourceUpdatedNotification,
} from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MCP_REFUSAL_CODES } from '../src/runtime/mcp/mcp-refusal.ts'
import {
  decide,
  nextPendingApproval,
  pendingApprovals,
  refusalOf,
} from './support/mcp-gateway-harness.ts'
import { CONFUSABLE_URI, HOSTILE_SECRET, connectToHostile } from './support/mcp-hostile-server.ts'
import { samplingClient, type SamplingLog } from './support/mcp-real-servers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

const callOptions = { timeout: 300_000 }

/**
 * What assent-gateway passes on besides a tool's own answer, from a server
 * that names, unasked, what nobody asked for (tests/support/
 * mcp-hostile-server.ts): resource updates, a sampling request's context,
 * the parts of a read, a prompt's and a tool result's resources.
 */
describe('assent-gateway passes on from a hostile server only what was asked for', () => {
  let harness: RuntimeHarness
  let agent: Client
  let sampled: SamplingLog
  let stderr: () => string
  let pending: ReturnType<typeof pendingApprovals>
  const updates: string[] = []
  let updateSeen: ((uri: string) => void) | undefined
  const fileUri = (name: string) => pathToFileURL(join(harness.workspace, name)).href

  beforeAll(async () => {
    harness = await startHarness()
    pending = pendingApprovals(harness)
    const host = samplingClient(harness.workspace)
    sampled = host.sampled
    host.client.setNotificationHandler(
      ResourceUpdatedNotificationSchema,
      (notification: ResourceUpdatedNotification) => {
        updates.push(notification.params.uri)
        updateSeen?.(notification.params.uri)
      },
    )
    ;({ client: agent, stderr } = await connectToHostile(harness, host.client))
  })
  afterAll(async () => {
    await agent?.close()
    await harness?.close()
  })

  /** Runs `send` and waits for the update for `last`, which the server
   *  sends after its other ones: what the agent got is returned. */
  async function updatesUntil(last: string, send: () => Promise<unknown>): Promise<string[]> {
    const start = updates.length
    const seen = new Promise<void>((resolve) => {
      updateSeen = (got) => {
        if (got === last) resolve()
      }
    })
    await send()
    await seen
    return updates.slice(start)
  }

  /** `work`, each approval it opens meanwhile allowed once by the person:
   *  a URI of the server's own scheme (`note://kept`) names a place outside
   *  the workspace to the rule, so even a read-only server's request naming
   *  one asks (tests/mcp-readonly-private-read.test.ts). */
  const allowed = new Set<string>()
  async function allowingEach<T>(work: () => Promise<T>): Promise<T> {
    let done = false
    const result = work().finally(() => {
      done = true
    })
    const settled = result.then(
      () => undefined,
      () => undefined,
    )
    while (!done) {
      const asked = nextPendingApproval(harness, allowed, 1_000).catch(() => undefined)
      const view = await Promise.race([asked, settled])
      if (view === undefined) continue
      allowed.add(view.approval.id)
      await decide(harness, view, 'allow-once')
    }
    return result
  }

  const poke = (args: Record<string, unknown>, server = 'hostile') =>
    agent.callTool({ name: `${server}__poke`, arguments: args }, undefined, callOptions)

  it('does not tell the agent that a person-only path (.git/HEAD) changed, nor pass on a URI that is not plain', async () => {
    const control = `hostile__${fileUri('readme.md')}`
    const got = await updatesUntil(control, () => agent.subscribeResource({ uri: control }))
    // The server announced `.git/HEAD` and a confusable URI first: a
    // subscription to either is refused, and an update must not pass either.
    expect(got).toEqual([control])
    // The gateway's log comes on stderr, a pipe of its own, in no fixed
    // order with what it sends the agent.
    await expect
      .poll(stderr, { timeout: WAIT_TIMEOUT_MS })
      .toContain(`hostile's update for "note://p\\u{430}ypal" was dropped`)
  })

  it('passes on an update only for a resource the agent subscribed to, and none once it let go', async () => {
    const kept = 'hostile__note://kept'
    const gone = 'hostile__note://gone'
    await updatesUntil(kept, () => allowingEach(() => agent.subscribeResource({ uri: kept })))
    await updatesUntil(gone, () => allowingEach(() => agent.subscribeResource({ uri: gone })))
    await allowingEach(() => agent.unsubscribeResource({ uri: gone }))
    const uris = ['note://nobody', 'note://gone', 'note://kept']
    const got = await updatesUntil(kept, () => allowingEach(() => poke({ action: 'update', uris })))
    expect(got).toEqual([kept])
  })

  // A name in the workspace (a subscription to a file outside it is
  // refused) that comes to lead where no subscription may go.
  it.each([
    ['a person-only file (a link to .git/HEAD)', 'head-link', ['.git', 'HEAD']],
    ['a file outside the workspace', 'diary-link', ['..', 'outside', 'diary.txt']],
  ] as const)(
    'drops an update for a subscribed name that has come to be %s',
    async (_what, name, to) => {
      const path = join(harness.workspace, name)
      const link = `hostile__${pathToFileURL(path).href}`
      const after = `hostile__note://after-${name}`
      await updatesUntil(link, () => agent.subscribeResource({ uri: link }))
      await updatesUntil(after, () => agent.subscribeResource({ uri: after }))
      await mkdir(join(harness.root, 'outside'), { recursive: true })
      await writeFile(join(harness.root, 'outside', 'diary.txt'), 'dear diary\n')
      await symlink(join(harness.workspace, ...to), path)
      // The server names what it was subscribed to, in that order, so the
      // call's arguments name no path (one naming the link would ask).
      const got = await updatesUntil(after, () => poke({ action: 'again' }))
      expect(got).not.toContain(link)
      expect(got.at(-1)).toBe(after)
      await expect
        .poll(stderr, { timeout: WAIT_TIMEOUT_MS })
        .toContain(`hostile's update for "${pathToFileURL(path).href}" was dropped`)
    },
  )

  it("sends a read-only server's sampling request to the agent's client with no other context", async () => {
    const before = sampled.length
    await poke({ action: 'sample' })
    expect(sampled.length).toBe(before + 1)
    // To the agent's client the gateway is one server: "thisServer" and
    // "allServers" both pull in what every server behind it returned.
    expect(sampled[before]?.includeContext).toBe('none')
  })

  it('passes on one sampling request of a server at a time, refusing those sent while it waits', async () => {
    const before = sampled.length
    const result = await poke({ action: 'flood' })
    const lines = (result.content as Array<{ text: string }>)[0]?.text.split('\n') ?? []
    expect(lines[0]).toBe('answered')
    expect(lines.slice(1)).toEqual([
      expect.stringContaining('hostile already has a sampling request waiting'),
      expect.stringContaining('hostile already has a sampling request waiting'),
    ])
    expect(sampled.length).toBe(before + 1)
  })

  // What a sampling request may hold besides text: the protected window
  // shows it as text, so a picture would be shown as its base64.
  const text = (value: string) => ({ type: 'text', text: value })
  const image = { type: 'image', data: PNG, mimeType: 'image/png' }
  const user = (content: unknown) => ({ role: 'user', content })
  const toolUse = { type: 'tool_use', id: 't1', name: 'look', input: {} }
  const unseen: Array<[string, unknown[]]> = [
    ['an image', [user(text('Describe this.')), user(image)]],
    ['audio', [user({ type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' })]],
    ['an image among text parts', [user([text('Describe this.'), image])]],
    [
      "an image in a tool's result",
      [
        { role: 'assistant', content: [toolUse] },
        user([{ type: 'tool_result', toolUseId: 't1', content: [image] }]),
      ],
    ],
  ]
  it.each(['hostile', 'gated'].flatMap((server) => unseen.map((row) => [server, ...row] as const)))(
    "refuses %s's sampling request holding %s before it is shown or reaches the model",
    async (server, _what, messages) => {
      const before = sampled.length
      const result = await allowingEach(() => poke({ action: 'sample-with', messages }, server))
      const said = (result.content as Array<{ text: string }>)[0]?.text ?? ''
      expect(said).toContain('refused: ')
      expect(said).toContain('which the person cannot be shown')
      expect(sampled.length).toBe(before)
      // The control: the same request in text reaches the model.
      const control = [user(text('Describe this.')), user([text('a'), text('b')])]
      await allowingEach(() => poke({ action: 'sample-with', messages: control }, server))
      expect(sampled.length).toBe(before + 1)
    },
  )

  it("fails a read-only server's read that answers with a person-only file beside the one asked for", async () => {
    const refused = await refusalOf(
      agent.readResource({ uri: `hostile__${fileUri('readme.md')}` }, callOptions),
    )
    expect(refused.code).toBe(MCP_REFUSAL_CODES.not_allowed)
    expect(refused.data).toEqual({ reason: 'not_allowed' })
    expect(refused.message).toContain('.env')
    expect(refused.message).not.toContain(HOSTILE_SECRET)
  })

  it('fails a gated read the person allowed when it answers with a person-only file beside the one shown', async () => {
    const read = refusalOf(
      agent.readResource({ uri: `gated__${fileUri('readme.md')}` }, callOptions),
    )
    const view = await pending()
    expect(view.action.arguments).toEqual({ uri: fileUri('readme.md') })
    expect(await decide(harness, view, 'allow-once')).toBe(200)
    const refused = await read
    expect(refused.data).toEqual({ reason: 'not_allowed' })
    expect(refused.message).toContain('.env')
  })

  it('fails a read that answers with a part whose URI is not plain, and passes one with a plain part beside', async () => {
    const refused = await refusalOf(
      allowingEach(() => agent.readResource({ uri: 'hostile__note://confusable' }, callOptions)),
    )
    expect(refused.data).toEqual({ reason: 'not_allowed' })
    const read = await allowingEach(() =>
      agent.readResource({ uri: 'hostile__note://two' }, callOptions),
    )
    expect(read.contents.map((part) => part.uri)).toEqual([
      'hostile__note://two',
      'hostile__note://beside',
    ])
  })

  it("fails a read-only server's prompt that embeds a person-only file", async () => {
    const refused = await refusalOf(agent.getPrompt({ name: 'hostile__summary' }, callOptions))
    expect(refused.data).toEqual({ reason: 'not_allowed' })
    expect(refused.message).toContain('.env')
    expect(refused.message).not.toContain(HOSTILE_SECRET)
  })

  it('fails a prompt that links a URI that is not plain, and passes one that embeds a plain one', async () => {
    const refused = await refusalOf(agent.getPrompt({ name: 'hostile__confusable' }, callOptions))
    expect(refused.data).toEqual({ reason: 'not_allowed' })
    const prompt = await agent.getPrompt({ name: 'hostile__beside' }, callOptions)
    expect(prompt.messages[1]?.content).toMatchObject({
      type: 'resource',
      resource: { uri: 'hostile__note://beside' },
    })
  })

  it("fails a read-only server's tool call whose result embeds a person-only file", async () => {
    const refused = await refusalOf(poke({ action: 'embed' }))
    expect(refused.data).toEqual({ reason: 'not_allowed' })
    expect(refused.message).toContain('.env')
    expect(refused.message).not.toContain(HOSTILE_SECRET)
  })

  it('fails a tool call whose result links a URI that is not plain, and passes a plain link', async () => {
    const refused = await refusalOf(
      allowingEach(() => poke({ action: 'link', uri: CONFUSABLE_URI })),
    )
    expect(refused.data).toEqual({ reason: 'not_allowed' })
    const result = await allowingEach(() => poke({ action: 'link', uri: 'note://beside' }))
    expect(result.content).toEqual([
      { type: 'resource_link', uri: 'hostile__note://beside', name: 'see' },
    ])
  })
})

/** A 1×1 PNG: a picture the protected window would show as this text. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

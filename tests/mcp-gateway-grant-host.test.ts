import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decide, pendingApprovals } from './support/mcp-gateway-harness.ts'
import { connectToHostile } from './support/mcp-hostile-server.ts'
import { samplingClient } from './support/mcp-real-servers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

const callOptions = { timeout: 300_000 }

/** A grant for a gated server's reads, and a read outside the workspace
 *  whose URI names a host: a scheme of the server's own names a place on
 *  this machine whatever its host, so the read is private and no grant
 *  answers it (private-read-approval.ts). The server answers a `notes:`
 *  URI alone. */
describe('assent-gateway in front of a hostile server: a read grant and the host a URI names', () => {
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

  // Control: with an "always allow" for this server's reads,
  // a read outside the workspace under a URI without a host still asks.
  it('control: a read outside the workspace with no host in its URI asks despite the grant', async () => {
    // The grant is given on a read inside the workspace: one whose URI
    // names a host (`localhost`) is itself private, and offers no "always".
    const inside = `gated__notes://${join(harness.workspace, 'readme.md')}`
    const first = agent.readResource({ uri: inside }, callOptions)
    const view = await pending()
    expect(view.action.toolName).toBe('resources/read')
    expect(await decide(harness, view, 'allow-always')).toBe(200)
    await first
    const outside = `gated__notes://${join(harness.root, 'private-notes.txt')}`
    const read = agent.readResource({ uri: outside }, callOptions).then(
      () => 'ran by the grant',
      () => 'refused',
    )
    const outcome = await Promise.race([read, pending().then((asked) => asked)])
    expect(typeof outcome).toBe('object')
    if (typeof outcome === 'object') expect(await decide(harness, outcome, 'deny')).toBe(200)
    expect(await read).toBe('refused')
  })

  it('answers no read outside the workspace with a grant, whatever host its URI names', async () => {
    // The same server, the same file outside the workspace, its URI naming
    // `localhost` as host: still a private read, which no grant answers
    // (docs/mcp.md).
    const outside = `gated__notes://localhost${join(harness.root, 'private-notes.txt')}`
    // The read settles only once the person's answer is given, so the
    // race is between the grant answering and the person being asked;
    // the denial is given after, and the read is then refused.
    const read = agent.readResource({ uri: outside }, callOptions).then(
      () => 'ran by the grant',
      () => 'refused',
    )
    const outcome = await Promise.race([read, pending()])
    expect(outcome).toMatchObject({ action: { toolName: 'resources/read' } })
    if (typeof outcome === 'object') expect(await decide(harness, outcome, 'deny')).toBe(200)
    expect(await read).toBe('refused')
  })
})

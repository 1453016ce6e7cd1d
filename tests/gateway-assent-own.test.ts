import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  AGENT_REQUEST_TIMEOUT_MS,
  allowedAlways,
  refusalOf,
  startNotesGateway,
  type NotesFixture,
} from './support/mcp-gateway-harness.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

const callOptions = { timeout: AGENT_REQUEST_TIMEOUT_MS }

/**
 * The gateway's own config (`--config`) decides which servers it starts and
 * which of their calls run unasked; its data folder holds the connection
 * to the runtime. A server that could write the config would add a
 * read-only server whose command is anything at all, which the gateway
 * then starts with nobody asked. The runtime does not know the gateway's
 * config, so its grants cannot leave such a call to the person: the gateway
 * refuses it, whether a grant would answer it or the server is read-only.
 */
describe("assent-gateway refuses every call naming Assent's own files", () => {
  let harness: RuntimeHarness
  let fixture: NotesFixture
  let agent: Client
  let config: string

  beforeAll(async () => {
    ;({ harness, fixture, agent } = await startNotesGateway())
    config = await readFile(fixture.configPath, 'utf8')
    await writeFile(join(fixture.notesDir, 'note.txt'), 'a note')
    // The person allows every later write of the notes server.
    const { result } = await allowedAlways(harness, agent, 'notes__write_note', {
      name: 'first.txt',
      text: 'first',
    })
    expect(result.isError).not.toBe(true)
  })
  afterAll(async () => {
    await agent?.close()
    await harness?.close()
  })

  it('answers the grant and the read-only server elsewhere', async () => {
    const written = await agent.callTool(
      { name: 'notes__write_note', arguments: { name: 'second.txt', text: 'x' } },
      undefined,
      callOptions,
    )
    expect(written.isError).not.toBe(true)
    const read = await agent.callTool(
      { name: 'docs__read_note', arguments: { name: 'note.txt' } },
      undefined,
      callOptions,
    )
    expect(JSON.stringify(read.content)).toContain('a note')
  })

  it('refuses a read-only server naming a credential and its config in one call', async () => {
    const refused = await refusalOf(
      agent.callTool(
        { name: 'docs__read_note', arguments: { name: '.env', also: fixture.configPath } },
        undefined,
        callOptions,
      ),
    )
    expect(refused.message).toContain("Assent's own")
  })

  it.each([
    ['a write under the grant to its config', 'notes__write_note', 'config'],
    ['a read-only server reading its config', 'docs__read_note', 'config'],
    ['a write under the grant into the data folder', 'notes__write_note', 'data'],
    ['a read-only server reading the data folder', 'docs__read_note', 'data'],
  ] as const)('refuses %s, asking nobody', async (_, tool, which) => {
    const target =
      which === 'config' ? fixture.configPath : join(harness.dataDir, 'gateway-connection.json')
    const refused = await refusalOf(
      agent.callTool(
        { name: tool, arguments: { name: target, text: '{}' } },
        undefined,
        callOptions,
      ),
    )
    expect(refused.message).toContain("Assent's own")
    expect(refused.message).toContain(target)
    expect(await readFile(fixture.configPath, 'utf8')).toBe(config)
  })
})

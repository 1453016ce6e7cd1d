import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  AGENT_REQUEST_TIMEOUT_MS,
  connectThroughGateway,
  decide,
  nextPendingApproval,
  refusalOf,
  writeNotesConfig,
} from './support/mcp-gateway-harness.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

const callOptions = { timeout: AGENT_REQUEST_TIMEOUT_MS }

/**
 * The gateway judges a read-only server's calls itself, in its own process,
 * so the credential places its own environment moves (`GNUPGHOME` away
 * from `~/.gnupg`) must be recorded there at its start, as the runtime
 * records its own: otherwise a read-only server's read of the moved keyring
 * would run with nobody asked. Only the gateway is given the variable
 * here, so nothing but its own record can make the call ask.
 */
describe('assent-gateway judges the credential places its environment names', () => {
  let harness: RuntimeHarness
  let agent: Client
  let elsewhere = ''
  let keyring = ''

  beforeAll(async () => {
    harness = await startHarness()
    const fixture = await writeNotesConfig(harness.root)
    // In the workspace, where a read-only server's reads run unasked: a
    // read outside it asks whatever it names.
    elsewhere = join(harness.workspace, 'srv')
    keyring = join(elsewhere, 'gnupg')
    await mkdir(join(keyring, 'private-keys-v1.d'), { recursive: true })
    await writeFile(join(keyring, 'private-keys-v1.d', 'key.key'), 'PRIVATE KEY')
    await writeFile(join(elsewhere, 'plain.txt'), 'plain')
    await writeFile(join(fixture.notesDir, 'note.txt'), 'a note')
    agent = (
      await connectThroughGateway(harness, fixture.configPath, undefined, undefined, {
        GNUPGHOME: keyring,
      })
    ).client
  })
  afterAll(async () => {
    await agent?.close()
    await harness?.close()
  })

  const readNaming = (also: string) =>
    agent.callTool(
      { name: 'docs__read_note', arguments: { name: 'note.txt', also } },
      undefined,
      callOptions,
    )

  it('runs a read-only read naming a file beside the keyring unasked', async () => {
    const read = await readNaming(join(elsewhere, 'plain.txt'))
    expect(JSON.stringify(read.content)).toContain('a note')
  })

  it.each([
    ['the keyring folder', ''],
    ['a private key in it', 'private-keys-v1.d/key.key'],
  ])('asks the person for a read-only read naming %s', async (_, inside) => {
    const call = refusalOf(readNaming(join(keyring, inside)))
    const view = await nextPendingApproval(harness)
    expect(view.action.toolName).toBe('read_note')
    expect(await decide(harness, view, 'deny')).toBe(200)
    expect((await call).message).toMatch(/denied/i)
  })
})

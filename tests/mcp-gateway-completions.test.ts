import { join } from 'node:path'
import { WAIT_TIMEOUT_MS } from '../scripts/test-timing.ts'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectToHostile } from './support/mcp-hostile-server.ts'
import {
  CONTROL_PATH,
  HARD_LINKED_HOOK,
  PERSON_ONLY_PATHS,
  layPersonOnlyWorkspace,
} from './support/person-only-table.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

const callOptions = { timeout: 300_000 }

/**
 * A completion passes unasked, so what it answers must tell the agent no
 * more than a list would: a server that completes anything with every
 * person-only path of the table (and another name of a hook) shows the
 * agent none of them, through either server (a read-only manifest and a
 * gated one) and either reference (a prompt's argument, a resource
 * template's), while the controls still come back.
 */
describe('assent-gateway passes on no completion that names a person-only path', () => {
  let harness: RuntimeHarness
  let agent: Client
  let stderr: () => string
  let controls: string[]

  beforeAll(async () => {
    harness = await startHarness()
    const ws = await layPersonOnlyWorkspace(harness.workspace)
    controls = [join(ws, CONTROL_PATH), 'Engineering']
    const hidden = [...PERSON_ONLY_PATHS, HARD_LINKED_HOOK].map((path) => join(ws, path))
    const host = new Client({ name: 'test-agent', version: '1.0.0' })
    ;({ client: agent, stderr } = await connectToHostile(harness, host, [
      controls[0] ?? '',
      ...hidden,
      controls[1] ?? '',
    ]))
  })
  afterAll(async () => {
    await agent?.close()
    await harness?.close()
  })

  const refs = [
    [
      'a prompt argument',
      (server: string) => ({ type: 'ref/prompt' as const, name: `${server}__summary` }),
    ],
    [
      'a resource template',
      (server: string) => ({ type: 'ref/resource' as const, uri: `${server}__note://{topic}` }),
    ],
  ] as const
  const doors = ['hostile', 'gated'].flatMap((server) =>
    refs.map(([what, ref]) => [server, what, ref(server)] as const),
  )

  it.each(doors)('on %s, completing %s', async (server, _what, ref) => {
    const { completion } = await agent.complete(
      { ref, argument: { name: 'topic', value: 'x' } },
      callOptions,
    )
    expect(completion.values).toEqual(controls)
    // A total counting what was left out would say that something was.
    expect(completion.total ?? completion.values.length).toBe(controls.length)
    // The gateway's log comes on a pipe of its own, in no fixed order
    // with its answer.
    await expect
      .poll(stderr, { timeout: WAIT_TIMEOUT_MS })
      .toContain(`${server} completed ${join(harness.workspace, '.env')}, left out`)
  })
})

import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { WAIT_TIMEOUT_MS } from '../scripts/test-timing.ts'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MCP_REFUSAL_CODES } from '../src/runtime/mcp/mcp-refusal.ts'
import { refusalOf } from './support/mcp-gateway-harness.ts'
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
 * person-only path of the table (and another name of a hook), or with
 * files outside the workspace that a read would ask for, shows the agent
 * none of them, through either server (a read-only manifest and a gated
 * one) and either reference (a prompt's argument, a resource template's),
 * while the controls still come back.
 */
describe('assent-gateway passes on no completion that names a person-only path', () => {
  let harness: RuntimeHarness
  let agent: Client
  let stderr: () => string
  let controls: string[]
  let outside: string

  beforeAll(async () => {
    harness = await startHarness()
    const ws = await layPersonOnlyWorkspace(harness.workspace)
    controls = [join(ws, CONTROL_PATH), INTO_GIT, 'Engineering']
    const hidden = [...PERSON_ONLY_PATHS, HARD_LINKED_HOOK].map((path) => join(ws, path))
    outside = join(harness.root, 'outside')
    await mkdir(outside, { recursive: true })
    await writeFile(join(outside, 'diary.txt'), 'dear diary\n')
    hidden.push(join(outside, 'diary.txt'), '../outside/diary.txt', `${outside}/`)
    const host = new Client({ name: 'test-agent', version: '1.0.0' })
    ;({ client: agent, stderr } = await connectToHostile(harness, host, [
      controls[0] ?? '',
      ...hidden,
      ...controls.slice(1),
    ]))
  })
  afterAll(async () => {
    await agent?.close()
    await harness?.close()
  })

  /** A template whose URI becomes `<workspace>/.git/…` once filled in. */
  const dotted = (server: string) => ({
    type: 'ref/resource' as const,
    uri: `${server}__${pathToFileURL(harness.workspace).href}/.{topic}`,
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
    ['a template the value fills in as .git', dotted],
  ] as const
  const doors = ['hostile', 'gated'].flatMap((server) =>
    refs.map(([what, ref]) => [server, what, ref] as const),
  )

  it.each(doors)('on %s, completing %s', async (server, what, ref) => {
    const { completion } = await agent.complete(
      { ref: ref(server), argument: { name: 'topic', value: 'x' } },
      callOptions,
    )
    // Filled into `<workspace>/.{topic}`, `git/hooks/post-merge` is a hook.
    const shown = ref === dotted ? controls.filter((value) => value !== INTO_GIT) : controls
    expect(completion.values, what).toEqual(shown)
    // A total counting what was left out would say that something was.
    expect(completion.total ?? completion.values.length).toBe(shown.length)
    // The gateway's log comes on a pipe of its own, in no fixed order
    // with its answer.
    await expect
      .poll(stderr, { timeout: WAIT_TIMEOUT_MS })
      .toContain(`${server} completed ${join(harness.workspace, '.env')}, left out`)
    await expect
      .poll(stderr, { timeout: WAIT_TIMEOUT_MS })
      .toContain(`${server} completed "${join(outside, 'diary.txt')}", left out`)
  })

  /** What an agent may type to have a folder outside the workspace
   *  listed (`outside`, beside it): its path, the climb to it, a `file:`
   *  template into it, a `file:` template of the workspace climbing out. */
  const outsideAsks = [
    ['its path typed', (server: string) => ({ ref: prompt(server), value: `${outside}/` })],
    ['the climb to it typed', (server: string) => ({ ref: prompt(server), value: '../outside/' })],
    [
      'a file: template into it',
      (server: string) => ({
        ref: fileTemplate(server, outside),
        value: 'd',
        control: fileTemplate(server, harness.workspace),
      }),
    ],
    [
      'a file: template climbing to it',
      (server: string) => ({ ref: fileTemplate(server, harness.workspace), value: '../outside/d' }),
    ],
  ] as const
  const prompt = (server: string) => ({ type: 'ref/prompt' as const, name: `${server}__summary` })
  const fileTemplate = (server: string, folder: string) => ({
    type: 'ref/resource' as const,
    uri: `${server}__${pathToFileURL(folder).href}/{topic}`,
  })

  it.each(
    ['hostile', 'gated'].flatMap((server) =>
      outsideAsks.map(([what, ask]) => [server, what, ask] as const),
    ),
  )(
    'on %s, refuses a completion of a folder outside the workspace: %s',
    async (server, _what, ask) => {
      const asked: { ref: CompleteRef; value: string; control?: CompleteRef } = ask(server)
      const { ref, value } = asked
      const refused = await refusalOf(
        agent.complete({ ref, argument: { name: 'topic', value } }, callOptions),
      )
      expect(refused.code).toBe(MCP_REFUSAL_CODES.not_allowed)
      expect(refused.message).toContain('does not pass completion/complete there')
      expect(refused.message).toContain('outside the workspace')
      // The control: the same reference (or one into the workspace), a
      // name inside the workspace.
      const { completion } = await agent.complete(
        { ref: asked.control ?? ref, argument: { name: 'topic', value: 'readme' } },
        callOptions,
      )
      expect(completion.values).toContain('Engineering')
    },
  )

  it.each(['hostile', 'gated'])(
    'on %s, refuses to complete what a template fills in as .git',
    async (server) => {
      const refused = await refusalOf(
        agent.complete(
          { ref: dotted(server), argument: { name: 'topic', value: 'git/hoo' } },
          callOptions,
        ),
      )
      expect(refused.code).toBe(MCP_REFUSAL_CODES.not_allowed)
      expect(refused.message).toContain('does not pass completion/complete')
      // The control: the same template filled in with a plain name.
      const { completion } = await agent.complete(
        { ref: dotted(server), argument: { name: 'topic', value: 'prettierrc' } },
        callOptions,
      )
      expect(completion.values).toContain('Engineering')
    },
  )
})

/** A value that names nothing person-only alone, but a hook once filled
 *  into the template `<workspace>/.{topic}`. */
const INTO_GIT = 'git/hooks/post-merge'

type CompleteRef = Parameters<Client['complete']>[0]['ref']

import { link, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GovernedMcpMethod } from '../src/contracts/mcp-gateway.ts'
import { runGatedMcpCall, type McpConsentPort } from '../src/runtime/mcp/gated-mcp-call.ts'
import { runGoverned } from '../src/runtime/mcp/governed-mcp-action.ts'
import type { McpServer } from '../src/runtime/mcp/mcp-connection.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { NOTES_SERVER } from './support/mcp-gateway-harness.ts'
import { decide, roomApprovals, toolCallsOf } from './support/policy-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import { eventually, type RuntimeHarness } from './support/runtime-harness.ts'
import { countingConnection, denyingConsent } from './support/mcp-stand-ins.ts'

/**
 * A read-only manifest is the server's word that it changes nothing, not
 * that it reads only the workspace. A call of such a server whose words
 * reach beyond the workspace (a private read: a place outside it, a file
 * with more than one name) asks the person, as the built-in filesystem
 * server refuses to read one unasked and as no grant or webhook may
 * answer for one (`runsUnasked` in mcp-call-judgment.ts).
 *
 * One table of what a read-only server's call may name, walked through
 * every way such a call runs: a tool call (`runGatedMcpCall`, which the
 * gateway and a room's calls share), the gateway's resource reads and
 * prompts (`runGoverned`), and a real room calling a real read-only
 * server. The controls still run unasked: a read inside the workspace, a
 * network URL, a word that names nothing outside.
 */

type Outcome = 'asked the person' | 'ran unasked'

interface Row {
  names: string
  /** The string the call names, once the folders exist. */
  word: () => string
  outcome: Outcome
}

let root: string
let workspace: string

const ROWS: Row[] = [
  {
    names: 'a file outside the workspace',
    word: () => join(root, 'elsewhere', 'diary.txt'),
    outcome: 'asked the person',
  },
  {
    names: 'a relative path that climbs out of the workspace',
    word: () => '../elsewhere/diary.txt',
    outcome: 'asked the person',
  },
  {
    names: 'a file: URI outside the workspace',
    word: () => `file://${join(root, 'elsewhere', 'diary.txt')}`,
    outcome: 'asked the person',
  },
  {
    names: 'a file in the workspace with a second name',
    word: () => join(workspace, 'linked.txt'),
    outcome: 'asked the person',
  },
  {
    names: 'a file inside the workspace (control)',
    word: () => join(workspace, 'docs', 'ok.txt'),
    outcome: 'ran unasked',
  },
  {
    names: 'a relative path inside the workspace (control)',
    word: () => 'docs/ok.txt',
    outcome: 'ran unasked',
  },
  {
    // The URL parser writes it `[::ffff:7f00:1]`; it reaches what listens
    // on 127.0.0.1, as `http://127.0.0.1:8080/` does.
    names: 'a loopback URL spelled inside IPv6',
    word: () => 'http://[::ffff:127.0.0.1]:8080/docs/page',
    outcome: 'asked the person',
  },
  {
    names: 'a loopback URL spelled inside IPv6 in hex',
    word: () => 'http://[::ffff:7f00:1]:8080/docs/page',
    outcome: 'asked the person',
  },
  {
    names: 'a URL of a name under localhost',
    word: () => 'http://api.localhost:8080/docs/page',
    outcome: 'asked the person',
  },
  {
    names: 'a network URL (control)',
    word: () => 'https://example.com/docs/page',
    outcome: 'ran unasked',
  },
]

let harness: RuntimeHarness

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'assent-readonly-reach-')))
  workspace = join(root, 'workspace')
  await mkdir(join(workspace, 'docs'), { recursive: true })
  await mkdir(join(root, 'elsewhere'), { recursive: true })
  await mkdir(join(root, 'notes'), { recursive: true })
  await writeFile(join(workspace, 'docs', 'ok.txt'), 'ok\n')
  await writeFile(join(root, 'elsewhere', 'diary.txt'), 'private\n')
  await link(join(root, 'elsewhere', 'diary.txt'), join(workspace, 'linked.txt'))
  const mcpConfigPath = join(root, 'mcp.json')
  await writeFile(
    mcpConfigPath,
    JSON.stringify({
      servers: [
        {
          id: 'docs',
          name: 'Docs (read-only)',
          transport: {
            type: 'stdio',
            command: process.execPath,
            args: [NOTES_SERVER],
            env: { NOTES_DIR: join(root, 'notes') },
            cwd: workspace,
          },
          allowed_tools: ['read_note'],
          manifest: { readonly: true },
        },
      ],
    }),
  )
  harness = await startInProcessRuntime({ mcpConfigPath })
})
afterAll(async () => {
  await harness?.close()
  if (root !== undefined) await rm(root, { recursive: true, force: true })
})

/** A read-only server working in the workspace. */
function readOnlyServer(): McpServer {
  return {
    id: 'docs',
    name: 'Docs',
    transport: { type: 'stdio', command: 'docs', args: [], env: {}, cwd: workspace },
    allowed_tools: ['read_path'],
    requires_approval: false,
    manifest: { readonly: true },
  } as McpServer
}

/** What a run came to: asked (and denied, so it did not run), or run. */
async function outcomeOf(
  run: (port: McpConsentPort) => Promise<unknown>,
  runs: () => number,
): Promise<Outcome> {
  const { port, asked } = denyingConsent()
  await run(port).catch(() => undefined)
  if (asked.length > 0) {
    expect(runs()).toBe(0)
    return 'asked the person'
  }
  expect(runs()).toBe(1)
  return 'ran unasked'
}

async function throughToolCall(word: string): Promise<Outcome> {
  const tool = { name: 'read_path', description: 'Reads a file', inputSchema: { type: 'object' } }
  const { connection, runs } = countingConnection(readOnlyServer(), tool)
  return outcomeOf(
    (port) => runGatedMcpCall(connection, 'read_path', { path: word }, port, workspace),
    runs,
  )
}

async function throughGoverned(method: GovernedMcpMethod, word: string): Promise<Outcome> {
  let runs = 0
  const args =
    method === 'resources/read' ? { uri: word } : { name: 'summarize', arguments: { file: word } }
  return outcomeOf(
    (consent) =>
      runGoverned({
        consent,
        server: readOnlyServer(),
        method,
        args,
        workspace,
        run: () => {
          runs += 1
          return Promise.resolve('read')
        },
        outcome: (result) => result,
      }),
    () => runs,
  )
}

/** A real room's agent calls the real read-only server's `read_note`. */
async function throughRoom(word: string): Promise<Outcome> {
  const room = await createRoom(harness, { workspace })
  const turnId = await send(
    harness,
    room.id,
    `mcp docs read_note ${JSON.stringify({ name: word })}`,
  )
  const outcome = await eventually(async (): Promise<Outcome | undefined> => {
    const asked = (await roomApprovals(harness, room.id)).find((a) => a.turnId === turnId)
    if (asked !== undefined) {
      const view = await harness.client.getApproval(asked.id)
      expect((await decide(harness, view, 'deny')).status).toBe(200)
      return 'asked the person'
    }
    const [call] = await toolCallsOf(harness, room.id, turnId)
    return call?.status === 'succeeded' || call?.status === 'failed' ? 'ran unasked' : undefined
  }, 'the read to ask or to run')
  await turnSettled(harness, room.id, turnId)
  return outcome
}

describe.each(ROWS)('a read-only server’s call naming $names', (row) => {
  it('as a tool call (the gateway’s and a room’s)', async () => {
    expect(await throughToolCall(row.word())).toBe(row.outcome)
  })

  it.each(['resources/read', 'prompts/get'] as const)('as a gateway %s', async (method) => {
    expect(await throughGoverned(method, row.word())).toBe(row.outcome)
  })

  it('in a room, through the real server', async () => {
    expect(await throughRoom(row.word())).toBe(row.outcome)
  })
})

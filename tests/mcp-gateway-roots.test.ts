import { randomUUID } from 'node:crypto'
import { mkdir, realpath, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ListRootsRequestSchema, type Root } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  connectThroughGateway,
  decide,
  gatewayConfigIn,
  nextPendingApproval,
} from './support/mcp-gateway-harness.ts'
import { FILESYSTEM_SERVER } from './support/mcp-real-servers.ts'
import { eventually, startHarness, type RuntimeHarness } from './support/runtime-harness.ts'
import { WORKSPACE_MOVES } from './support/workspace-moves.ts'

const callOptions = { timeout: 300_000 }

/**
 * server-filesystem takes the roots its client lists as the folders it may
 * read, in place of those it was started with. Behind the gateway its
 * client is the gateway, which lists the agent's roots as the workspace
 * (a folder inside it too, or one holding it): an agent that lists the whole disk cannot widen a read-only
 * server it reaches unasked past the folder the gateway serves.
 */
describe('assent-gateway: the roots a server behind it is shown', () => {
  let harness: RuntimeHarness
  let agent: Client
  let stderr: () => string
  let workspace: string
  let outside: string
  let agentRoots: Root[]

  /** The folders server-filesystem reads now, as it lists them. */
  const allowedDirectories = async (): Promise<string[]> => {
    const result = await agent.callTool(
      { name: 'files__list_allowed_directories', arguments: {} },
      undefined,
      callOptions,
    )
    const [item] = result.content as Array<{ type: string; text?: string }>
    const lines = (item?.text ?? '').split('\n')
    expect(lines[0]).toBe('Allowed directories:')
    return lines.slice(1)
  }
  /** Lists `roots` as the agent's, tells the servers, and waits until
   *  server-filesystem reads exactly `shown`. */
  const giveRoots = async (roots: Root[], shown: string[]) => {
    agentRoots = roots
    await agent.sendRootsListChanged()
    await eventually(
      async () => {
        const now = await allowedDirectories()
        return JSON.stringify(now) === JSON.stringify(shown) ? now : undefined
      },
      `server-filesystem to read only ${shown.join(', ')}`,
    )
  }

  beforeAll(async () => {
    harness = await startHarness()
    workspace = await realpath(harness.workspace)
    outside = join(harness.root, 'outside')
    await mkdir(outside, { recursive: true })
    await writeFile(join(outside, 'private.txt'), 'not the workspace’s')
    await mkdir(join(workspace, 'src'), { recursive: true })
    await writeFile(join(workspace, 'src', 'main.txt'), 'in the workspace')
    agentRoots = [{ uri: pathToFileURL(workspace).href, name: 'workspace' }]
    ;({ client: agent, stderr } = await gatewayOver(workspace, () => agentRoots))
  })
  const others: Client[] = []
  afterAll(async () => {
    await Promise.all([agent, ...others].map((client) => client?.close()))
    await harness?.close()
  })

  /** assent-gateway serving `folder`, over server-filesystem started on
   *  it, for an agent whose roots are `roots()`. */
  async function gatewayOver(folder: string, roots: () => Root[]) {
    const configPath = await gatewayConfigIn(harness.root, `roots-${randomUUID()}`)
    await writeFile(
      configPath,
      JSON.stringify({
        servers: [
          {
            id: 'files',
            name: 'Files',
            transport: {
              type: 'stdio',
              command: process.execPath,
              args: [FILESYSTEM_SERVER, folder],
              env: {},
            },
            allowed_tools: ['read_text_file', 'list_allowed_directories'],
            manifest: { readonly: true },
          },
        ],
      }),
    )
    const client = new Client(
      { name: 'roots-agent', version: '1.0.0' },
      { capabilities: { roots: { listChanged: true } } },
    )
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots() }))
    return connectThroughGateway(harness, configPath, client, folder)
  }

  // A server takes a relative path from its roots; every door judges one
  // from the workspace. A root inside it (here the git folder, where
  // `config` would be `.git/config`) is shown as the workspace, so what a
  // relative path names is what the door judged.
  it('shows the server the workspace for a folder inside it, so a relative path means what the door judged', async () => {
    await mkdir(join(workspace, '.git'), { recursive: true })
    await writeFile(join(workspace, '.git', 'config'), '[remote "o"]\n\turl = https://me:TOKEN@x\n')
    await giveRoots([{ uri: pathToFileURL(join(workspace, '.git')).href }], [workspace])
    const read = await agent.callTool(
      { name: 'files__read_text_file', arguments: { path: 'config' } },
      undefined,
      callOptions,
    )
    expect(JSON.stringify(read.content)).not.toContain('TOKEN')
    await giveRoots([{ uri: pathToFileURL(join(workspace, 'src')).href }], [workspace])
    const inside = await agent.callTool(
      { name: 'files__read_text_file', arguments: { path: 'src/main.txt' } },
      undefined,
      callOptions,
    )
    expect(inside.content).toEqual([{ type: 'text', text: 'in the workspace' }])
  })

  it('shows the server the workspace, never the disk or another folder, when the agent lists them', async () => {
    await giveRoots(
      [
        { uri: 'file:///', name: 'disk' },
        { uri: pathToFileURL(outside).href, name: 'elsewhere' },
      ],
      [workspace],
    )
    // A read outside the workspace is a private read: even a read-only
    // server's asks the person. Allowed once, it reaches the server, which
    // still reads only the workspace it was shown.
    const reading = agent.callTool(
      { name: 'files__read_text_file', arguments: { path: join(outside, 'private.txt') } },
      undefined,
      callOptions,
    )
    const asked = await nextPendingApproval(harness)
    expect(await decide(harness, asked, 'allow-once')).toBe(200)
    const read = await reading
    expect(read.isError).toBe(true)
    expect(JSON.stringify(read.content)).not.toContain('not the workspace’s')
    const inside = await agent.callTool(
      { name: 'files__read_text_file', arguments: { path: join(workspace, 'src', 'main.txt') } },
      undefined,
      callOptions,
    )
    expect(inside.content).toEqual([{ type: 'text', text: 'in the workspace' }])
    expect(stderr()).toContain(
      `files is not shown the root ${pathToFileURL(outside).href}: outside the workspace`,
    )
  })

  it.each(WORKSPACE_MOVES)(
    'names no folder to the server once the workspace was $name',
    async (move) => {
      const folder = join(harness.root, `W-${randomUUID()}`)
      const elsewhere = join(harness.root, `E-${randomUUID()}`)
      await mkdir(folder)
      await mkdir(elsewhere)
      const real = await realpath(folder)
      const gateway = await gatewayOver(real, () => [{ uri: pathToFileURL(real).href }])
      others.push(gateway.client)
      move.apply(real, elsewhere)
      await gateway.client.sendRootsListChanged()
      const refused = await eventually(
        () => /files is shown no roots: (.*)/.exec(gateway.stderr())?.[1],
        'the gateway to refuse the roots request',
      )
      expect(refused).toContain(real)
      expect(gateway.stderr()).not.toContain(`files is not shown the root`)
    },
  )
})

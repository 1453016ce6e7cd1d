import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { isAbsolute, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { codexGatewayToml } from '../scripts/agents/codex-mcp-client.ts'
import { GATEWAY_FLAGS, parseGatewayArgs } from '../src/gateway/gateway-cli.ts'
import { realAgentsOrSkip } from './support/external-agent-testbed.ts'

const DOC = fileURLToPath(new URL('../docs/mcp.md', import.meta.url))
const CHECKOUT = '/home/ada/assent'

interface Entry {
  command: string
  args: string[]
}

/** The client configs section of docs/mcp.md: each `**Client**` line and the
 *  first fenced block after it. */
async function documentedConfigs(): Promise<Map<string, { lang: string; text: string }>> {
  const doc = await readFile(DOC, 'utf8')
  const start = doc.indexOf('### Client configs')
  expect(start).toBeGreaterThan(-1)
  const section = doc.slice(start, doc.indexOf('\n#', start + 1))
  const blocks = new Map<string, { lang: string; text: string }>()
  for (const match of section.matchAll(
    /\*\*([^*]+)\*\* \([^\n]*\n[\s\S]*?```(\w+)\n([\s\S]*?)```/g,
  )) {
    blocks.set(match[1]!, { lang: match[2]!, text: match[3]! })
  }
  return blocks
}

/** Where each client keeps its servers, in its own file format. */
const JSON_CLIENTS: Record<string, (config: Record<string, unknown>) => unknown> = {
  'Claude Desktop': (config) => (config.mcpServers as Record<string, unknown>)?.assent,
  Cursor: (config) => (config.mcpServers as Record<string, unknown>)?.assent,
  'VS Code': (config) => (config.servers as Record<string, unknown>)?.assent,
  Zed: (config) => (config.context_servers as Record<string, unknown>)?.assent,
}

/** An entry starts this checkout's gateway with a Node given by absolute
 *  path, and only flags the gateway accepts, each with an absolute value:
 *  the config, the data folder and the workspace. */
function expectGatewayEntry(entry: Entry) {
  expect(isAbsolute(entry.command)).toBe(true)
  expect(entry.args[0]).toBe(`${CHECKOUT}/src/gateway/main.ts`)
  const flags = entry.args.slice(1)
  const named = flags.filter((_, index) => index % 2 === 0)
  expect(named.sort()).toEqual([...GATEWAY_FLAGS].sort())
  for (const value of flags.filter((_, index) => index % 2 === 1)) {
    expect(isAbsolute(value), value).toBe(true)
  }
  // The gateway's own parser takes them (the workspace must exist here).
  const here = tmpdir()
  const workspaceAt = flags.indexOf('--workspace') + 1
  const parsed = parseGatewayArgs(
    flags.map((value, index) => (index === workspaceAt ? here : value)),
    {},
    '/',
  )
  expect(parsed.config).toBe(flags[flags.indexOf('--config') + 1])
  expect(parsed.dataDir).toBe(flags[flags.indexOf('--data-dir') + 1])
}

describe('the client configs in docs/mcp.md start the real gateway', () => {
  it('documents Claude Desktop, Cursor, VS Code, Zed and Codex', async () => {
    expect([...(await documentedConfigs()).keys()]).toEqual([
      'Claude Desktop',
      'Cursor',
      'VS Code',
      'Zed',
      'Codex',
    ])
  })

  for (const [client, entryOf] of Object.entries(JSON_CLIENTS)) {
    it(`${client}: the JSON parses and names the gateway with its flags`, async () => {
      const block = (await documentedConfigs()).get(client)
      expect(block?.lang).toBe('json')
      const entry = entryOf(JSON.parse(block!.text) as Record<string, unknown>) as Entry
      expectGatewayEntry(entry)
      if (client === 'VS Code') expect(entry).toMatchObject({ type: 'stdio' })
    })
  }

  it('Codex: the TOML is the entry the Codex tests run, with flags the gateway accepts', async () => {
    const block = (await documentedConfigs()).get('Codex')
    expect(block?.lang).toBe('toml')
    const text = block!.text
    const command = JSON.parse(/^command = (.*)$/m.exec(text)?.[1] ?? 'null') as string
    const args = JSON.parse(/^args = (.*)$/m.exec(text)?.[1] ?? 'null') as string[]
    expectGatewayEntry({ command, args })
    // The same table `tests/mcp-gateway-codex.test.ts` gives the real Codex.
    expect(text).toBe(codexGatewayToml({ command, args }))
  })

  // Prints why it skips, and fails instead under ASSENT_REQUIRE_ALL=1.
  const agents = realAgentsOrSkip()
  it.skipIf(!agents)(
    'Codex: the pinned Codex CLI reads the documented table as the gateway',
    async () => {
      if (!agents) return
      const block = (await documentedConfigs()).get('Codex')!
      const home = await mkdtemp(join(tmpdir(), 'assent-codex-config-'))
      try {
        await writeFile(join(home, 'config.toml'), block.text)
        const { stdout } = await promisify(execFile)(
          agents.codex,
          ['mcp', 'get', 'assent', '--json'],
          { env: { ...process.env, HOME: home, CODEX_HOME: home } },
        )
        const server = JSON.parse(stdout) as {
          enabled: boolean
          transport: { type: string } & Entry
          tool_timeout_sec: number
        }
        expect(server.enabled).toBe(true)
        expect(server.transport.type).toBe('stdio')
        expectGatewayEntry(server.transport)
        expect(server.tool_timeout_sec).toBeGreaterThanOrEqual(180)
      } finally {
        await rm(home, { recursive: true, force: true })
      }
    },
  )
})

import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MCP_REFUSAL_CODES } from '../src/runtime/mcp/mcp-refusal.ts'
import {
  AGENT_REQUEST_TIMEOUT_MS,
  GATEWAY_ENTRY,
  gatewayConfigIn,
  NOTES_SERVER,
  connectThroughGateway,
  decide,
  gatewayRoom,
  nextPendingApproval,
  writeNotesConfig,
} from './support/mcp-gateway-harness.ts'
import { timeline } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

const callOptions = { timeout: AGENT_REQUEST_TIMEOUT_MS }

function runGateway(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [GATEWAY_ENTRY, ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8')
    })
    child.on('exit', (code) => resolve({ code, stderr }))
  })
}

describe('assent-gateway refuses a configuration it cannot trust', () => {
  let harness: RuntimeHarness
  beforeAll(async () => {
    harness = await startHarness()
  })
  afterAll(async () => harness?.close())

  it('refuses "*" in allowed_tools at load, naming the field, and serves nothing', async () => {
    const config = await gatewayConfigIn(harness.root, 'wildcard')
    await writeFile(
      config,
      JSON.stringify({
        servers: [
          {
            id: 'notes',
            transport: { type: 'stdio', command: process.execPath, args: [NOTES_SERVER] },
            allowed_tools: ['*'],
          },
        ],
      }),
    )
    const result = await runGateway(['--config', config, '--data-dir', harness.dataDir])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('servers.0.allowed_tools.0: wildcards are refused')
  })

  it('refuses requires_approval: false for a server whose manifest is not read-only', async () => {
    const config = await gatewayConfigIn(harness.root, 'unsafe')
    await writeFile(
      config,
      JSON.stringify({
        servers: [
          {
            id: 'notes',
            transport: { type: 'stdio', command: process.execPath, args: [NOTES_SERVER] },
            allowed_tools: ['write_note'],
            requires_approval: false,
          },
        ],
      }),
    )
    const result = await runGateway(['--config', config, '--data-dir', harness.dataDir])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('servers.0.requires_approval')
  })
})

describe('a pending MCP approval nobody decides', () => {
  let harness: RuntimeHarness
  beforeAll(async () => {
    // A short protected window for the test; the product's is 120 s.
    harness = await startHarness({ approvalTtlMs: 1_500 })
  })
  afterAll(async () => harness?.close())

  it('expires as a timeout: reason expired, not a denial, and nothing runs', async () => {
    const fixture = await writeNotesConfig(harness.root)
    const { client } = await connectThroughGateway(harness, fixture.configPath)
    try {
      const failure = await client
        .callTool(
          { name: 'notes__write_note', arguments: { name: 'late.txt', text: 'too late' } },
          undefined,
          callOptions,
        )
        .then(
          () => undefined,
          (error: unknown) => error,
        )
      expect(failure).toBeInstanceOf(McpError)
      expect((failure as McpError).code).toBe(MCP_REFUSAL_CODES.expired)
      expect((failure as McpError).data).toEqual({ reason: 'expired' })
      expect(existsSync(join(fixture.notesDir, 'late.txt'))).toBe(false)
      const room = await gatewayRoom(harness)
      const { approvals } = await timeline(harness, room.id)
      expect(approvals.map((approval) => [approval.status, approval.decidedBy])).toEqual([
        ['expired', 'timeout'],
      ])
    } finally {
      await client.close()
    }
  })
})

const FILESYSTEM_SERVER = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url),
)

describe('assent-gateway in front of @modelcontextprotocol/server-filesystem', () => {
  let harness: RuntimeHarness
  beforeAll(async () => {
    harness = await startHarness()
  })
  afterAll(async () => harness?.close())

  it('reads through a read-only entry without asking, and writes only after consent', async () => {
    const stdio = {
      type: 'stdio',
      command: process.execPath,
      args: [FILESYSTEM_SERVER, harness.workspace],
    }
    const config = await gatewayConfigIn(harness.root, 'fs')
    await writeFile(
      config,
      JSON.stringify({
        servers: [
          {
            id: 'fs-read',
            transport: stdio,
            allowed_tools: ['read_text_file', 'list_directory'],
            manifest: { readonly: true },
          },
          { id: 'fs', name: 'Workspace files', transport: stdio, allowed_tools: ['write_file'] },
        ],
      }),
    )
    await writeFile(join(harness.workspace, 'readme.txt'), 'read me')
    const { client } = await connectThroughGateway(harness, config)
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name).sort()
      expect(names).toEqual([
        'fs-read__list_directory',
        'fs-read__read_text_file',
        'fs__write_file',
      ])
      const read = await client.callTool(
        {
          name: 'fs-read__read_text_file',
          arguments: { path: join(harness.workspace, 'readme.txt') },
        },
        undefined,
        callOptions,
      )
      expect(read.content).toEqual([{ type: 'text', text: 'read me' }])

      const target = join(harness.workspace, 'written.txt')
      const write = client.callTool(
        { name: 'fs__write_file', arguments: { path: target, content: 'approved content' } },
        undefined,
        callOptions,
      )
      const view = await nextPendingApproval(harness)
      expect(view.action.mcp?.serverName).toBe('Workspace files')
      expect(view.action.arguments).toEqual({ path: target, content: 'approved content' })
      expect(existsSync(target)).toBe(false)
      expect(await decide(harness, view, 'allow-once')).toBe(200)
      const written = await write
      expect(written.isError).not.toBe(true)
      expect(await readFile(target, 'utf8')).toBe('approved content')
    } finally {
      await client.close()
    }
  })
})

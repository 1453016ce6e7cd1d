import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { McpConfigSchema } from '../../contracts/mcp-config.ts'
import { MCP_LAST_GOOD_FILE_NAME, loadMcpConfig } from './mcp-config-loader.ts'

const stdio = { type: 'stdio', command: 'node', args: ['server.js'] }

function server(fields: Record<string, unknown> = {}) {
  return { id: 'notes', transport: stdio, allowed_tools: ['write_note'], ...fields }
}

function firstIssue(value: unknown): string {
  const parsed = McpConfigSchema.safeParse(value)
  if (parsed.success) return 'accepted'
  const issue = parsed.error.issues[0]
  return `${issue?.path.join('.')}: ${issue?.message}`
}

describe('the mcp.json schema', () => {
  it('asks for consent unless the manifest is read-only', () => {
    const parsed = McpConfigSchema.parse({
      servers: [server(), server({ id: 'docs', manifest: { readonly: true } })],
    })
    expect(parsed.servers.map((s) => [s.id, s.requires_approval])).toEqual([
      ['notes', true],
      ['docs', false],
    ])
  })

  it('lets a read-only server still ask, if configured to', () => {
    const parsed = McpConfigSchema.parse({
      servers: [server({ manifest: { readonly: true }, requires_approval: true })],
    })
    expect(parsed.servers[0]?.requires_approval).toBe(true)
  })

  it('refuses to skip consent for a server that is not read-only', () => {
    expect(firstIssue({ servers: [server({ requires_approval: false })] })).toBe(
      'servers.0.requires_approval: may be false only for a server whose manifest says readonly: true',
    )
  })

  it('refuses wildcards, patterns and an empty allowed_tools', () => {
    expect(firstIssue({ servers: [server({ allowed_tools: ['*'] })] })).toContain(
      'servers.0.allowed_tools.0: wildcards are refused',
    )
    expect(firstIssue({ servers: [server({ allowed_tools: ['write_*'] })] })).toContain(
      'servers.0.allowed_tools.0: wildcards are refused',
    )
    expect(firstIssue({ servers: [server({ allowed_tools: [] })] })).toBe(
      'servers.0.allowed_tools: list at least one tool by name',
    )
    expect(firstIssue({ servers: [server({ allowed_tools: undefined })] })).toContain(
      'servers.0.allowed_tools',
    )
  })

  it('refuses unknown keys, remote URLs, duplicate ids and the built-in id', () => {
    expect(firstIssue({ servers: [server({ trust: true })] })).toContain('servers.0')
    expect(
      firstIssue({
        servers: [
          server({ transport: { type: 'streamable-http', url: 'http://example.com/mcp' } }),
        ],
      }),
    ).toContain('servers.0.transport.url: must be an http:// URL on 127.0.0.1')
    expect(
      firstIssue({
        servers: [
          server({ transport: { type: 'streamable-http', url: 'http://127.0.0.1:8123/mcp' } }),
        ],
      }),
    ).toBe('accepted')
    expect(firstIssue({ servers: [server(), server()] })).toBe(
      'servers.1.id: duplicate server id notes',
    )
    expect(firstIssue({ servers: [server({ id: 'filesystem' })] })).toContain('servers.0.id')
    expect(firstIssue({ servers: [server({ id: 'a__b' })] })).toContain('servers.0.id')
  })
})

describe('loading mcp.json', () => {
  let dataDir: string
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'assent-mcp-config-'))
  })
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }))

  const write = (value: unknown) =>
    writeFileSync(
      join(dataDir, 'mcp.json'),
      typeof value === 'string' ? value : JSON.stringify(value),
    )

  it('treats a missing file as no servers', () => {
    expect(loadMcpConfig(dataDir)).toEqual({ config: { servers: [] } })
  })

  it('keeps the last good configuration in force when the file turns bad, naming the field', () => {
    write({ servers: [server()] })
    expect(loadMcpConfig(dataDir).config.servers.map((s) => s.id)).toEqual(['notes'])
    expect(statSync(join(dataDir, MCP_LAST_GOOD_FILE_NAME)).mode & 0o777).toBe(0o600)

    write({ servers: [server({ allowed_tools: ['*'] })] })
    const refused = loadMcpConfig(dataDir)
    expect(refused.refused?.field).toBe('servers.0.allowed_tools.0')
    expect(refused.refused?.message).toContain('wildcards are refused')
    expect(refused.config.servers.map((s) => [s.id, s.allowed_tools])).toEqual([
      ['notes', ['write_note']],
    ])

    write('{ not json')
    const broken = loadMcpConfig(dataDir)
    expect(broken.refused?.field).toBe('(file)')
    expect(broken.config.servers.map((s) => s.id)).toEqual(['notes'])
  })

  it('starts with no servers when the very first file is bad', () => {
    write({ servers: [server({ allowed_tools: [] })] })
    const loaded = loadMcpConfig(dataDir)
    expect(loaded.refused?.field).toBe('servers.0.allowed_tools')
    expect(loaded.config).toEqual({ servers: [] })
  })
})

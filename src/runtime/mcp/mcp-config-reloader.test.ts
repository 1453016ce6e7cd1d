import { mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { waitFor } from '../../../scripts/smoke/wait.ts'
import type { McpConfig } from '../../contracts/mcp-config.ts'
import type { ConfigFileError } from '../config/strict-config-file.ts'
import { MCP_LAST_GOOD_FILE_NAME, loadMcpConfig } from './mcp-config-loader.ts'
import { McpConfigReloader } from './mcp-config-reloader.ts'

const stdio = { type: 'stdio', command: 'node', args: ['server.js'] }
const server = (id: string, tools: string[] = ['write_note']) => ({
  id,
  transport: stdio,
  allowed_tools: tools,
})

describe('McpConfigReloader: mcp.json edits without a restart', () => {
  let dataDir: string
  let reloader: McpConfigReloader
  let applied: McpConfig[]
  let reported: Array<{ servers: string[]; added: string[]; removed: string[] }>
  let refused: Array<{ field: string; inForce: string[] }>
  const file = () => join(dataDir, 'mcp.json')
  const write = (value: unknown) =>
    writeFileSync(file(), typeof value === 'string' ? value : JSON.stringify(value))
  const ids = (config: McpConfig | undefined) => config?.servers.map((each) => each.id)

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'assent-mcp-reload-'))
    write({ servers: [server('notes')] })
    const initial = loadMcpConfig(dataDir).config
    applied = []
    reported = []
    refused = []
    reloader = new McpConfigReloader({
      file: file(),
      load: () => loadMcpConfig(dataDir),
      initial,
      apply: (config) => {
        applied.push(config)
        return { added: [], changed: [], removed: [] }
      },
      reports: {
        refused: (error: ConfigFileError, inForce) => refused.push({ field: error.field, inForce }),
        applied: (servers, change) => reported.push({ servers, ...change }),
      },
      onError: () => undefined,
      debounceMs: 50,
    })
    expect(reloader.start()).toBe(true)
  })
  afterEach(() => {
    reloader.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('applies an edit written in place to the file', async () => {
    write({ servers: [server('notes'), server('docs')] })
    const config = await waitFor(() => applied.at(-1), 'the edit to be applied')
    expect(ids(config)).toEqual(['notes', 'docs'])
    expect(ids(reloader.inForce)).toEqual(['notes', 'docs'])
    expect(reported.at(-1)?.servers).toEqual(['notes', 'docs'])
  })

  it('applies a file saved the way editors save: a new file renamed over the old one', async () => {
    const temporary = join(dataDir, '.mcp.json.swp')
    writeFileSync(temporary, JSON.stringify({ servers: [server('renamed')] }))
    renameSync(temporary, file())
    const config = await waitFor(() => applied.at(-1), 'the renamed file to be applied')
    expect(ids(config)).toEqual(['renamed'])
  })

  it('keeps the configuration in force when an edit is refused, names the field, and recovers on the next good edit', async () => {
    write({ servers: [server('notes', ['*'])] })
    // On a busy machine a read may also catch the file half written: that
    // is refused too, and waiting for the field named is what counts.
    const refusal = await waitFor(
      () => refused.find((each) => each.field === 'servers.0.allowed_tools.0'),
      'the refusal',
    )
    expect(refusal).toEqual({ field: 'servers.0.allowed_tools.0', inForce: ['notes'] })
    expect(applied).toEqual([])
    expect(ids(reloader.inForce)).toEqual(['notes'])
    const lastGood = JSON.parse(readFileSync(join(dataDir, MCP_LAST_GOOD_FILE_NAME), 'utf8'))
    expect(ids(lastGood as McpConfig)).toEqual(['notes'])

    const before = refused.length
    write('{ "servers": [ half a file')
    const notJson = await waitFor(
      () => refused.slice(before).find((each) => each.field === '(file)'),
      'the refusal of a file that is not JSON',
    )
    expect(notJson.inForce).toEqual(['notes'])
    expect(applied).toEqual([])

    write({ servers: [server('fixed')] })
    const config = await waitFor(() => applied.at(-1), 'the good edit to be applied')
    expect(ids(config)).toEqual(['fixed'])
  })

  it('reads a deleted mcp.json as no servers: narrower, never wider', async () => {
    unlinkSync(file())
    const config = await waitFor(() => applied.at(-1), 'the deletion to be applied')
    expect(config.servers).toEqual([])
  })

  it('changes nothing when the file says what is already in force', () => {
    write({ servers: [server('notes')] })
    expect(reloader.reload()).toBe('unchanged')
    expect(applied).toEqual([])
    write({ servers: [server('notes', ['read_note'])] })
    expect(reloader.reload()).toBe('applied')
    expect(applied).toHaveLength(1)
  })
})

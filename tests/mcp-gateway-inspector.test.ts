import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { delimiter, dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RUNTIME_READY_TIMEOUT_MS } from '../scripts/test-timing.ts'
import { MCP_REFUSAL_CODES } from '../src/runtime/mcp/mcp-refusal.ts'
import {
  GATEWAY_ENTRY,
  decide,
  nextPendingApproval,
  writeNotesConfig,
  type NotesFixture,
} from './support/mcp-gateway-harness.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

/** The pinned MCP Inspector's command line (`mcp-inspector-cli`). */
const INSPECTOR_CLI = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli')),
  'cli.js',
)

interface InspectorRun {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * The MCP Inspector, run as a person runs it: `--cli` against a server
 * named in a Claude Desktop style `mcpServers` file. It is started in its own
 * build folder: version 1.0.3 finds its package.json relative to the
 * working folder, and fails to start anywhere else.
 */
function inspector(configFile: string, methodArgs: readonly string[]): Promise<InspectorRun> {
  const child = spawn(
    process.execPath,
    [INSPECTOR_CLI, '--cli', '--config', configFile, '--server', 'assent', ...methodArgs],
    {
      cwd: dirname(INSPECTOR_CLI),
      // It runs its client with the `node` on PATH: this one.
      env: { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('the MCP Inspector CLI driving assent-gateway', () => {
  let harness: RuntimeHarness
  let fixture: NotesFixture
  let configFile: string
  /** `--method tools/call` of `tool` with `key=value` arguments. */
  const callTool = (tool: string, ...pairs: string[]) =>
    inspector(configFile, ['--method', 'tools/call', '--tool-name', tool, '--tool-arg', ...pairs])

  beforeAll(async () => {
    harness = await startHarness()
    fixture = await writeNotesConfig(harness.root)
    configFile = join(harness.root, 'claude_desktop_config.json')
    const args = [GATEWAY_ENTRY, '--config', fixture.configPath, '--data-dir', harness.dataDir]
    await writeFile(
      configFile,
      JSON.stringify({
        mcpServers: {
          assent: { command: process.execPath, args: [...args, '--workspace', harness.workspace] },
        },
      }),
    )
  })
  afterAll(async () => {
    await harness?.close()
  })

  it('lists the allowed tools, namespaced, with gated ones marked destructive', async () => {
    const run = await inspector(configFile, ['--method', 'tools/list'])
    expect(run.code, run.stderr).toBe(0)
    const { tools } = JSON.parse(run.stdout) as {
      tools: Array<{ name: string; annotations?: { destructiveHint?: boolean } }>
    }
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'docs__read_note',
      'notes__read_note',
      'notes__write_note',
    ])
    const write = tools.find((tool) => tool.name === 'notes__write_note')
    expect(write?.annotations?.destructiveHint).toBe(true)
  })

  it('runs a call the policy allows without asking, and prints its result', async () => {
    await writeFile(join(fixture.notesDir, 'hello.txt'), 'hello from a note')
    const run = await callTool('docs__read_note', 'name=hello.txt')
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({
      content: [{ type: 'text', text: 'hello from a note' }],
    })
  })

  it('prints the refusal of a tool outside allowed_tools, exits 1, and nothing runs', async () => {
    const run = await callTool('notes__secret_tool', 'name=secret.txt')
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(
      `Failed to call tool notes__secret_tool: MCP error ${MCP_REFUSAL_CODES.not_allowed}`,
    )
    expect(run.stderr).toContain('notes has no allowed tool named secret_tool')
    expect(existsSync(join(fixture.notesDir, 'secret.txt'))).toBe(false)
  })

  it('waits for the person on a gated call, and prints the denial when they deny it', async () => {
    const denied = callTool('notes__write_note', 'name=denied.txt', 'text=no')
    const view = await nextPendingApproval(harness, new Set(), RUNTIME_READY_TIMEOUT_MS)
    expect(view.action.arguments).toEqual({ name: 'denied.txt', text: 'no' })
    expect(await decide(harness, view, 'deny')).toBe(200)
    const refused = await denied
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(
      `Failed to call tool notes__write_note: MCP error ${MCP_REFUSAL_CODES.denied}`,
    )
    expect(existsSync(join(fixture.notesDir, 'denied.txt'))).toBe(false)
  })

  it('prints the result of a gated call once the person allows it', async () => {
    const allowed = callTool('notes__write_note', 'name=plan.txt', 'text=ship on Friday')
    const view = await nextPendingApproval(harness, new Set(), RUNTIME_READY_TIMEOUT_MS)
    expect(await decide(harness, view, 'allow-once')).toBe(200)
    const ran = await allowed
    expect(ran.code, ran.stderr).toBe(0)
    expect(JSON.parse(ran.stdout)).toMatchObject({
      content: [{ type: 'text', text: 'wrote plan.txt' }],
    })
    expect(await readFile(join(fixture.notesDir, 'plan.txt'), 'utf8')).toBe('ship on Friday')
  })
})

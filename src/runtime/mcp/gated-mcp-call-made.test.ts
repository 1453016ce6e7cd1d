import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { BUILT_IN_FILESYSTEM_SERVER_ID } from '../../contracts/mcp-config.ts'
import {
  expectMovedAside,
  layMadeWorkspace,
  MADE_SCRIPT,
  MADE_WHILE_RUNNING,
  madeScript,
  PERSON_ONLY_MADE,
  WHILE_RUNNING_SEEN,
} from '../../../tests/support/person-only-made.ts'
import { runGatedMcpCall, type McpConsentPort } from './gated-mcp-call.ts'
import type { McpConnection } from './mcp-connection.ts'
import { resultText } from './mcp-connection.ts'
import type { McpToolDefinition } from './mcp-tool-definition.ts'

// An MCP server's tool may make what its call names nowhere: here a tool
// that runs the workspace's script, as a shell server's would. The table
// of what only a person may make (tests/support/person-only-made.ts) goes
// through a call the person allowed and one a grant answered; the doors
// upstream (reviewer, webhook, the gateway's grants) end in the same
// allowed ticket.

const RUN: McpToolDefinition = {
  name: 'run_script',
  description: 'Runs build.sh',
  inputSchema: { type: 'object' },
}

let root: string | undefined
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true })
  root = undefined
})

async function workspaceWith(line: string): Promise<string> {
  root = mkdtempSync(join(tmpdir(), 'assent-mcp-made-'))
  const workspace = await layMadeWorkspace(join(root, 'ws'))
  await writeFile(join(workspace, MADE_SCRIPT), madeScript(line))
  return workspace
}

/** A server started in `workspace` whose one tool runs the script there. */
function scriptServer(workspace: string, options: { id?: string; readOnly?: boolean } = {}) {
  const readOnly = options.readOnly === true
  return {
    server: {
      id: options.id ?? 'shell',
      name: 'Shell',
      transport: { type: 'stdio', command: 'shell-server', args: [], cwd: workspace },
      allowed_tools: ['run_script'],
      requires_approval: !readOnly,
      manifest: { readonly: readOnly },
    },
    listAllowedTools: () => Promise.resolve([RUN]),
    findTool: () => Promise.resolve(RUN),
    // Run as a server runs it: the runtime goes on while the tool runs.
    callTool: async (): Promise<CallToolResult> => {
      await promisify(execFile)('sh', [MADE_SCRIPT], { cwd: workspace })
      return { content: [{ type: 'text', text: 'ran' }] }
    },
  } as unknown as McpConnection
}

function allowing(byGrant: boolean) {
  const reported: Array<{ ok: boolean; output: string }> = []
  const port: McpConsentPort = {
    ask: () =>
      Promise.resolve({
        status: 'allowed',
        reason: null,
        ...(byGrant ? { byGrant: true as const } : {}),
        report: (result) => {
          reported.push(result)
          return Promise.resolve()
        },
      }),
  }
  return { port, reported }
}

describe.each([
  { door: 'the person allowed', byGrant: false },
  { door: 'a grant answered', byGrant: true },
])('an MCP call $door', ({ byGrant }) => {
  it.each(PERSON_ONLY_MADE)('%s: moved aside, the call an error', async (_name, line, moved) => {
    const workspace = await workspaceWith(line)
    const { port, reported } = allowing(byGrant)
    const result = await runGatedMcpCall(scriptServer(workspace), 'run_script', {}, port, workspace)
    expect(result.isError).toBe(true)
    const said = resultText(result)
    expect(said).toMatch(/^ran\n/)
    expect(reported).toEqual([{ ok: false, output: said }])
    await expectMovedAside(workspace, moved, said)
  })
})

describe('an MCP call that is still running', () => {
  it('has what it made moved aside while it runs, not only once it ends', async () => {
    const workspace = await workspaceWith(MADE_WHILE_RUNNING)
    const { port } = allowing(true)
    const result = await runGatedMcpCall(scriptServer(workspace), 'run_script', {}, port, workspace)
    expect(result.isError).toBe(true)
    expect(await readFile(join(workspace, WHILE_RUNNING_SEEN), 'utf8')).toBe('gone\n')
    await expectMovedAside(workspace, ['sub/.git'], resultText(result))
  })
})

describe('an MCP call that makes none of it', () => {
  it('is answered as the server answered', async () => {
    const workspace = await workspaceWith('true')
    const { port, reported } = allowing(false)
    const result = await runGatedMcpCall(scriptServer(workspace), 'run_script', {}, port, workspace)
    expect(result).toEqual({ content: [{ type: 'text', text: 'ran' }] })
    expect(reported).toEqual([{ ok: true, output: 'ran' }])
  })
})

describe('what is not watched', () => {
  it('a call that runs unasked (a read-only manifest): nothing is walked, before or after', async () => {
    const workspace = await workspaceWith('mkdir -p sub/.git')
    const { port } = allowing(false)
    const server = scriptServer(workspace, { readOnly: true })
    const result = await runGatedMcpCall(server, 'run_script', {}, port, workspace)
    expect(result.isError).toBeUndefined()
    expect(existsSync(join(workspace, 'sub', '.git'))).toBe(true)
  })

  it('the built-in filesystem server, whose every path its call names and the rule judged', async () => {
    const workspace = await workspaceWith('mkdir -p sub/.git')
    const { port } = allowing(false)
    const server = scriptServer(workspace, { id: BUILT_IN_FILESYSTEM_SERVER_ID })
    const result = await runGatedMcpCall(server, 'run_script', {}, port, workspace)
    expect(result.isError).toBeUndefined()
    expect(existsSync(join(workspace, 'sub', '.git'))).toBe(true)
  })
})

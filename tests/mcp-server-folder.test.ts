import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BUILT_IN_FILESYSTEM_SERVER_ID } from '../src/contracts/mcp-config.ts'
import { runGatedMcpCall } from '../src/runtime/mcp/gated-mcp-call.ts'
import { runGoverned } from '../src/runtime/mcp/governed-mcp-action.ts'
import type { McpServer } from '../src/runtime/mcp/mcp-connection.ts'
import { McpRefusal } from '../src/runtime/mcp/mcp-refusal.ts'
import { serverFolderOf } from '../src/runtime/mcp/mcp-workspace.ts'
import { mcpTouch, personOnlyReason, touchOfApproval } from '../src/runtime/policy/person-only.ts'
import { countingConnection, denyingConsent } from './support/mcp-stand-ins.ts'

// A stdio MCP server takes a relative path from the folder it works in,
// which is the runtime's or the gateway's (or its configured `cwd`), not
// each room's workspace: a room's servers are shared by every room. Every
// door judges such a path from the server's folder as well as from the
// workspace. One table of places a relative path reaches only from the
// server's folder, walked through the rule, a stored approval (what the
// reviewer, the webhook and "always allow" read), a call that would run
// unasked, and a governed read; the gateway's grant door walks it in
// person-only-doors.test.ts.

let root: string
/** The room's workspace: a plain folder. */
let workspace: string
/** The server's folder: a repository whose config moves its hooks to
 *  conf/hooks, with a link `notes` to its .git/hooks. */
let serverFolder: string

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-server-folder-')))
  workspace = join(root, 'W')
  serverFolder = join(root, 'S')
  mkdirSync(join(workspace, 'docs'), { recursive: true })
  mkdirSync(join(serverFolder, 'conf/hooks'), { recursive: true })
  execFileSync('git', ['init', '-q', serverFolder])
  execFileSync('git', ['-C', serverFolder, 'config', 'core.hooksPath', 'conf/hooks'])
  symlinkSync(join(serverFolder, '.git/hooks'), join(serverFolder, 'notes'))
  writeFileSync(join(serverFolder, 'conf/hooks/pre-commit'), '#!/bin/sh\n')
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** Relative paths that lead somewhere person-only from the server's folder
 *  and nowhere of note from the workspace. */
const FROM_THE_SERVER_FOLDER = [
  ['the hooks folder its repository’s config names', 'conf/hooks/pre-commit'],
  ['a link in its folder to .git/hooks', 'notes/pre-commit'],
] as const

const argsOf = (path: string) => ({ path, content: 'evil' })
const touchFor = (path: string, folder: string | undefined) =>
  mcpTouch(
    { serverId: 'files', toolName: 'put_file', arguments: argsOf(path), serverFolder: folder },
    workspace,
  )

/** A read-only server working in `cwd`: its calls would run unasked. */
function readOnlyServer(cwd: string): McpServer {
  return {
    id: 'files',
    name: 'Files',
    transport: { type: 'stdio', command: 'files', args: [], env: {}, cwd },
    allowed_tools: ['put_file'],
    requires_approval: false,
    manifest: { readonly: true },
  } as McpServer
}

describe.each(FROM_THE_SERVER_FOLDER)('a relative path to %s', (_name, path) => {
  it('needs the person by the rule, judged from the server’s folder', () => {
    expect(personOnlyReason(touchFor(path, serverFolder))).not.toBeNull()
    // From the workspace alone it is nothing: the server's folder is what
    // finds it.
    expect(personOnlyReason(touchFor(path, undefined))).toBeNull()
  })

  it('needs the person when read back from a stored approval', () => {
    const approval = {
      toolName: 'put_file',
      arguments: argsOf(path),
      workingDirectory: workspace,
      mcp: { serverId: 'files', serverFolder },
    }
    expect(personOnlyReason(touchOfApproval(approval))).not.toBeNull()
  })

  it('is asked on a read-only server, never run unasked, and the person is shown the folder', async () => {
    const tool = { name: 'put_file', description: 'Writes a file', inputSchema: { type: 'object' } }
    const { connection, runs } = countingConnection(
      readOnlyServer(relative(process.cwd(), serverFolder)),
      tool,
    )
    const { port, asked } = denyingConsent()
    const refused = await runGatedMcpCall(connection, 'put_file', argsOf(path), port, workspace)
      .then(() => null)
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(McpRefusal)
    expect(runs()).toBe(0)
    // A relative `cwd` is the folder the operating system starts it in.
    expect(asked).toMatchObject([{ serverFolder }])
  })

  it('is asked as a governed read on a read-only server', async () => {
    let runs = 0
    const { port, asked } = denyingConsent()
    const read = runGoverned({
      consent: port,
      server: readOnlyServer(serverFolder),
      method: 'resources/read',
      args: { uri: path },
      workspace,
      run: () => {
        runs += 1
        return Promise.resolve('read')
      },
      outcome: (result) => result,
    })
    await expect(read).rejects.toBeInstanceOf(McpRefusal)
    expect(runs).toBe(0)
    expect(asked).toMatchObject([{ toolName: 'resources/read', serverFolder }])
  })
})

describe('the folder an MCP server works in', () => {
  it('is its configured folder, taken from this process’s, or this process’s own', () => {
    const stdio = { type: 'stdio' as const, command: 'x', args: [], env: {} }
    expect(serverFolderOf({ id: 's', transport: { ...stdio, cwd: serverFolder } })).toBe(
      serverFolder,
    )
    expect(serverFolderOf({ id: 's', transport: { ...stdio, cwd: 'sub' } })).toBe(
      join(process.cwd(), 'sub'),
    )
    expect(serverFolderOf({ id: 's', transport: stdio })).toBe(process.cwd())
  })

  it('is unknown over HTTP, and the workspace for the built-in server', () => {
    expect(
      serverFolderOf({
        id: 's',
        transport: { type: 'streamable-http', url: 'http://127.0.0.1:1/' },
      }),
    ).toBeUndefined()
    expect(
      serverFolderOf({
        id: BUILT_IN_FILESYSTEM_SERVER_ID,
        transport: { type: 'stdio', command: '(in process)', args: [], env: {} },
      }),
    ).toBeUndefined()
  })

  it('lets a door answer for a path that is innocent from both folders', () => {
    expect(personOnlyReason(touchFor('docs/a.txt', serverFolder))).toBeNull()
  })
})

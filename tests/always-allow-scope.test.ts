import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  AGENT_COMMAND_TOOL,
  AGENT_FILE_CHANGE_TOOL,
  AGENT_REQUEST_TOOLS,
  AGENT_TOOL_CALL_TOOL,
  type AgentFileChange,
} from '../src/contracts/agent-request.ts'
import type { ApprovalRecord } from '../src/contracts/approval.ts'
import { alwaysAllowFor, serverAlwaysAllowFor } from '../src/main/core/always-allow-scope.ts'
import { canonicalAction, createApproval } from '../src/runtime/domain/approval.ts'
import { grantScopeFor, serverGrantScopeFor } from '../src/runtime/agent/grant-scope.ts'

// The protected window says what "Always allow" would remember before the
// click (main), and the runtime decides what it does remember when it
// writes the grant (grant-scope.ts). Both are real here: the two must name
// the same scope, or the button must be withheld.

const agent = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' as const }

const SERVER_TOOLS = { names: ['read_note', 'write_note'], hash: 'c'.repeat(64) }

const mcp = {
  serverId: 'notes',
  serverName: 'Notes',
  toolDescription: 'Writes a note.',
  inputSchemaHash: 'a'.repeat(64),
  definitionHash: 'b'.repeat(64),
  preview: null,
}

// An MCP call's words are judged as places on disk (a call naming one
// outside the workspace is a private read, which no "always" may cover),
// so its rows are asked about a real folder.
const WORKSPACE = realpathSync(mkdtempSync(join(tmpdir(), 'assent-always-scope-')))
const OUTSIDE = join(dirname(WORKSPACE), 'diary.txt')
afterAll(() => rmSync(WORKSPACE, { recursive: true, force: true }))

function mcpCall(
  toolName: string,
  args: Record<string, unknown>,
  fields: Partial<ApprovalRecord['mcp']> = {},
): ApprovalRecord {
  return approval(toolName, args, {
    kind: 'mcp-tool-call',
    mcp: { ...mcp, ...fields },
    workingDirectory: WORKSPACE,
  })
}

function approval(
  toolName: string,
  args: Record<string, unknown>,
  extra: Partial<ApprovalRecord> = {},
): ApprovalRecord {
  return createApproval({
    id: 'ap-1',
    roomId: 'room-1',
    turnId: 'turn-1',
    toolCallId: 'call-1',
    kind: toolName === 'run_command' ? 'run-command' : 'apply-changes',
    toolName,
    arguments: args,
    workingDirectory: '/home/ada/project',
    sandboxMode: 'workspace-write',
    summary: toolName,
    now: 0,
    ttlMs: 1_000,
    ...extra,
  })
}

const CASES: ReadonlyArray<readonly [string, ApprovalRecord]> = [
  [
    'a plain command',
    approval(
      'run_command',
      { argv: ['git', 'status'] },
      {
        containment: {
          contained: true,
          writableRoots: ['/home/ada/project'],
          network: false,
          secretsHidden: true,
        },
      },
    ),
  ],
  // Shown running uncontained, a command is allowed one run at a time.
  ['a plain command run uncontained', approval('run_command', { argv: ['git', 'status'] })],
  ['a command through the shell', approval('run_command', { argv: ['ls'], shell: true })],
  ['a command in another folder', approval('run_command', { argv: ['ls'], cwd: 'sub' })],
  ['a command with a time limit', approval('run_command', { argv: ['ls'], timeoutMs: 5 })],
  ['a file write', approval('write_file', { path: 'a.txt', content: 'x' })],
  ['a file read', approval('read_file', { path: 'a.txt' })],
  ['a folder listing', approval('list_dir', { path: '.' })],
  ['a delete', approval('delete_file', { path: 'a.txt' })],
  ['a recursive delete', approval('delete_file', { path: 'build', recursive: true })],
  ['a tool with no grant', approval('fetch_url', { url: 'https://example.test' })],
  ['an MCP call', mcpCall('write_note', { name: 'a' })],
  [
    "an MCP call that shows its server's tool list",
    mcpCall('write_note', { name: 'a' }, { serverTools: SERVER_TOOLS }),
  ],
  // assent-gateway's governed methods: a read's grant answers every read of
  // the server, a prompt's the prompt by name.
  ['a resource read at the gateway', mcpCall('resources/read', { uri: `note://${WORKSPACE}/a` })],
  [
    'a prompt at the gateway',
    mcpCall('prompts/get', { name: 'summarise', arguments: { day: 'Monday' } }),
  ],
  // Each a private read: no grant answers it, so "always" is no promise.
  [
    'an MCP call naming a place outside the workspace',
    mcpCall('write_note', { name: OUTSIDE }, { serverTools: SERVER_TOOLS }),
  ],
  [
    'a resource read outside the workspace at the gateway',
    mcpCall('resources/read', { uri: `note://${OUTSIDE}` }),
  ],
  [
    'a prompt naming a place outside the workspace at the gateway',
    mcpCall('prompts/get', { name: 'summarise', arguments: { file: OUTSIDE } }),
  ],
  [
    "an external agent's command",
    approval(AGENT_COMMAND_TOOL, {
      agent,
      commandLine: "/bin/bash -lc 'ls'",
      argv: null,
      cwd: '/w',
    }),
  ],
  ["an external agent's new file", agentFiles(agentFile('/w/a.txt', { change: 'add' }))],
  ["an external agent's edit", agentFiles(agentFile('/w/a.txt'))],
  ["an external agent's delete", agentFiles(agentFile('/w/a.txt', { change: 'delete' }))],
  ["an external agent's move", agentFiles(agentFile('/w/a.txt', { movePath: '/w/b.txt' }))],
  ["an external agent's two files", agentFiles(agentFile('/w/a.txt'), agentFile('/w/b.txt'))],
  ["an external agent's git hook", agentFiles(agentFile('/w/.git/hooks/pre-push'))],
  [
    "an external agent's other tool call",
    approval(AGENT_TOOL_CALL_TOOL, { agent, toolKind: 'fetch', title: 'Fetch', input: null }),
  ],
]

function agentFile(path: string, overrides: Partial<AgentFileChange> = {}): AgentFileChange {
  return {
    path,
    change: 'update',
    movePath: null,
    preview: null,
    agentDiff: '@@ -1 +1 @@\n-a\n+b\n',
    sourceSha256: 'c'.repeat(64),
    ...overrides,
  }
}

function agentFiles(...changes: AgentFileChange[]): ApprovalRecord {
  return approval(AGENT_FILE_CHANGE_TOOL, { agent, changes })
}

const RUNTIME_SCOPE: Readonly<Record<string, string>> = {
  tool: 'tool',
  command: 'command',
  path: 'path',
  mcp: 'mcp-tool',
}

/** An MCP grant on a governed method is worded for what it answers. */
const GOVERNED_RUNTIME_SCOPE: Readonly<Record<string, string>> = {
  'resources/read': 'mcp-read',
  'prompts/get': 'mcp-prompt',
}

/** An external agent's grants are worded for what they cover. */
const AGENT_RUNTIME_SCOPE: Readonly<Record<string, string>> = {
  path: 'agent-file',
}

/** What each case's Always allow remembers, as the window words it, or null
 *  where no grant can cover it and the button is withheld. Written out, so
 *  a runtime that refused every grant (or granted every one) fails here. */
const EXPECTED_SCOPE: Readonly<Record<string, string | null>> = {
  'a plain command': 'command',
  'a plain command run uncontained': null,
  'a command through the shell': null,
  'a command in another folder': null,
  'a command with a time limit': null,
  'a file write': 'tool',
  'a file read': null,
  'a folder listing': null,
  'a delete': 'path',
  'a recursive delete': null,
  'a tool with no grant': null,
  'an MCP call': 'mcp-tool',
  "an MCP call that shows its server's tool list": 'mcp-tool',
  'a resource read at the gateway': 'mcp-read',
  'a prompt at the gateway': 'mcp-prompt',
  'an MCP call naming a place outside the workspace': null,
  'a resource read outside the workspace at the gateway': null,
  'a prompt naming a place outside the workspace at the gateway': null,
  // It runs outside Assent's sandbox (agent-grant-scope.ts).
  "an external agent's command": null,
  "an external agent's new file": 'agent-file',
  "an external agent's edit": 'agent-file',
  "an external agent's delete": null,
  "an external agent's move": null,
  "an external agent's two files": null,
  "an external agent's git hook": null,
  "an external agent's other tool call": null,
}

describe('what the window says Always allow remembers', () => {
  it('has an expected outcome for every case, and both outcomes among them', () => {
    expect(Object.keys(EXPECTED_SCOPE).sort()).toEqual(CASES.map(([name]) => name).sort())
    expect(Object.values(EXPECTED_SCOPE)).toContain(null)
    expect(Object.values(EXPECTED_SCOPE).filter((scope) => scope !== null).length).toBeGreaterThan(
      0,
    )
  })

  for (const [name, record] of CASES) {
    const expected = EXPECTED_SCOPE[name] ?? null
    it(`${expected === null ? 'withholds the button' : `names the ${expected} grant the runtime writes`} for ${name}`, () => {
      const runtime = grantScopeFor(record, (absolute) => absolute)
      const shown = alwaysAllowFor(canonicalAction(record), runtime.ok)
      const scopes = AGENT_REQUEST_TOOLS.includes(record.toolName)
        ? AGENT_RUNTIME_SCOPE
        : RUNTIME_SCOPE
      if (expected === null) {
        expect(runtime.ok).toBe(false)
        expect(shown.offered).toBe(false)
      } else {
        const scope = runtime.ok
          ? runtime.draft.scope === 'mcp' && record.toolName in GOVERNED_RUNTIME_SCOPE
            ? GOVERNED_RUNTIME_SCOPE[record.toolName]
            : scopes[runtime.draft.scope]
          : undefined
        expect(scope).toBe(expected)
        // The prompt the window names is the one the grant keeps.
        const prompt = runtime.ok ? runtime.draft.mcp?.prompt : undefined
        expect(shown).toEqual({
          offered: true,
          scope: expected,
          ...(prompt === undefined ? {} : { prompt }),
        })
      }
    })
  }

  it('withholds the button whenever the runtime says no grant can cover the action', () => {
    for (const [, record] of CASES) {
      expect(alwaysAllowFor(canonicalAction(record), false).offered).toBe(false)
    }
  })
})

describe('what the window says "Always allow every tool of <server>" remembers', () => {
  for (const [name, record] of CASES) {
    it(`offers it, with the tool list the runtime would bind the grant to, only where the runtime would write one (${name})`, () => {
      const runtime = serverGrantScopeFor(record)
      const shown = serverAlwaysAllowFor(canonicalAction(record), runtime.ok)
      if (runtime.ok) {
        expect(runtime.draft).toMatchObject({
          scope: 'mcp-server',
          mcp: { serverId: 'notes', toolListHash: record.mcp?.serverTools?.hash },
        })
        expect(shown).toEqual({ offered: true, toolNames: record.mcp?.serverTools?.names })
      } else {
        expect(shown).toEqual({ offered: false })
      }
    })
  }

  it('withholds it whenever the runtime does not say it would honour it', () => {
    const offeredSomewhere = CASES.filter(([, record]) => serverGrantScopeFor(record).ok)
    expect(offeredSomewhere).toHaveLength(1)
    for (const [, record] of CASES) {
      expect(serverAlwaysAllowFor(canonicalAction(record), false)).toEqual({ offered: false })
    }
  })
})

import { describe, expect, it } from 'vitest'
import {
  AGENT_COMMAND_TOOL,
  AGENT_FILE_CHANGE_TOOL,
  AGENT_TOOL_CALL_TOOL,
  type AgentFileChange,
} from '../../contracts/agent-request.ts'
import type { Grant } from '../../contracts/room.ts'
import {
  AGENT_COMMAND_UNCONTAINED,
  agentGrantCovers,
  agentGrantScope,
} from './agent-grant-scope.ts'

const agent = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' as const }
const command = (commandLine: string, cwd = '/ws') => ({
  toolName: AGENT_COMMAND_TOOL,
  arguments: { agent, commandLine, argv: null, cwd },
})
const fileChange = (path: string, overrides: Partial<AgentFileChange> = {}): AgentFileChange => ({
  path,
  change: 'update',
  movePath: null,
  preview: null,
  agentDiff: '@@ -1 +1 @@\n-a\n+b\n',
  sourceSha256: 'a'.repeat(64),
  ...overrides,
})
const files = (...changes: AgentFileChange[]) => ({
  toolName: AGENT_FILE_CHANGE_TOOL,
  arguments: { agent, changes },
})

function grantFrom(scope: ReturnType<typeof agentGrantScope>): Grant {
  if (!scope?.ok) throw new Error(`no grant: ${JSON.stringify(scope)}`)
  return { id: 'g', roomId: 'r', approvalId: 'a', createdAt: 1, ...scope.draft }
}

describe('agentGrantScope', () => {
  it('is not its business when the approval is not an agent’s request', () => {
    expect(agentGrantScope({ toolName: 'run_command', arguments: { argv: ['ls'] } })).toBe(null)
  })

  it("remembers no command: the agent runs it outside Assent's sandbox", () => {
    for (const approval of [
      command('/bin/bash -lc ls'),
      { ...command('ls'), arguments: { ...command('ls').arguments, realCwd: '/ws/.git/hooks' } },
    ]) {
      expect(agentGrantScope(approval)).toEqual({ ok: false, reason: AGENT_COMMAND_UNCONTAINED })
    }
  })

  it('remembers one file added or edited in place, by its real path', () => {
    for (const change of ['add', 'update'] as const) {
      expect(agentGrantScope(files(fileChange('/ws/a.txt', { change })))).toEqual({
        ok: true,
        draft: {
          scope: 'path',
          toolName: AGENT_FILE_CHANGE_TOOL,
          command: null,
          path: '/ws/a.txt',
        },
      })
    }
  })

  it('remembers no delete, move, change to several files or other tool call', () => {
    const refused = [
      files(fileChange('/ws/a.txt', { change: 'delete' })),
      files(fileChange('/ws/a.txt', { movePath: '/ws/b.txt' })),
      files(fileChange('/ws/a.txt'), fileChange('/ws/b.txt')),
      {
        toolName: AGENT_TOOL_CALL_TOOL,
        arguments: { agent, toolKind: 'fetch', title: 'get', input: null },
      },
      // Arguments that do not read as the agent's request are not guessed at.
      { toolName: AGENT_COMMAND_TOOL, arguments: { commandLine: 'ls' } },
    ]
    for (const approval of refused) {
      expect(agentGrantScope(approval), JSON.stringify(approval)).toMatchObject({
        ok: false,
      })
    }
  })
})

describe('agentGrantCovers', () => {
  /** A command grant as one was stored before commands were left to one
   *  run at a time: the exact line in its folder. */
  const commandGrant: Grant = {
    id: 'g',
    roomId: 'r',
    approvalId: 'a',
    createdAt: 1,
    scope: 'command',
    toolName: AGENT_COMMAND_TOOL,
    command: ['/bin/bash -lc ls'],
    path: '/ws',
  }
  const fileGrant = grantFrom(agentGrantScope(files(fileChange('/ws/a.txt'))))

  it('covers no command, the exact line in its folder included', () => {
    expect(
      agentGrantCovers(commandGrant, { ...command('/bin/bash -lc ls'), resolvedPaths: ['/ws'] }),
    ).toBe(false)
  })

  it('covers later adds and edits of the one file, and nothing else', () => {
    const covers = (request: ReturnType<typeof files>, resolvedPaths: string[]) =>
      agentGrantCovers(fileGrant, { ...request, resolvedPaths })
    expect(covers(files(fileChange('/ws/a.txt')), ['/ws/a.txt'])).toBe(true)
    expect(covers(files(fileChange('/ws/a.txt', { change: 'add' })), ['/ws/a.txt'])).toBe(true)
    expect(covers(files(fileChange('/ws/a.txt', { change: 'delete' })), ['/ws/a.txt'])).toBe(false)
    expect(
      covers(files(fileChange('/ws/a.txt', { movePath: '/ws/c.txt' })), ['/ws/a.txt', '/ws/c.txt']),
    ).toBe(false)
    expect(covers(files(fileChange('/ws/b.txt')), ['/ws/b.txt'])).toBe(false)
    expect(
      covers(files(fileChange('/ws/a.txt'), fileChange('/ws/b.txt')), ['/ws/a.txt', '/ws/b.txt']),
    ).toBe(false)
    // The path the sandbox resolved decides, not the one the agent named: a
    // link swapped in for the file leads elsewhere.
    expect(covers(files(fileChange('/ws/a.txt')), ['/etc/passwd'])).toBe(false)
  })

  it('never lets a grant of one kind answer for another', () => {
    expect(
      agentGrantCovers(commandGrant, { ...files(fileChange('/ws')), resolvedPaths: ['/ws'] }),
    ).toBe(false)
    expect(
      agentGrantCovers(fileGrant, { ...command('/bin/bash -lc ls'), resolvedPaths: ['/ws/a.txt'] }),
    ).toBe(false)
    expect(
      agentGrantCovers(
        { ...commandGrant, toolName: 'run_command' },
        { ...command('/bin/bash -lc ls'), resolvedPaths: ['/ws'] },
      ),
    ).toBe(false)
  })
})

import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import type { Grant } from '../../contracts/room.ts'
import { folderGrantBlocker, grantMatches, grantScopeFor } from './grant-scope.ts'

const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'assent-grant-scope-')))
writeFileSync(join(workspace, 'old.txt'), 'x')
afterAll(() => rmSync(workspace, { recursive: true, force: true }))

function approval(toolName: string, args: Record<string, unknown>): ApprovalRecord {
  return {
    id: 'a1',
    roomId: 'r1',
    turnId: 't1',
    toolCallId: 'c1',
    kind: toolName === 'run_command' ? 'run-command' : 'apply-changes',
    toolName,
    arguments: args,
    workingDirectory: workspace,
    sandboxMode: 'workspace-write',
    summary: 's',
    status: 'allowed',
    decision: 'allow-always',
    decidedBy: 'user',
    createdAt: 1,
    expiresAt: 2,
  }
}

function grant(fields: Partial<Grant> & Pick<Grant, 'toolName'>): Grant {
  return { id: 'g1', roomId: 'r1', command: null, approvalId: 'a1', createdAt: 1, ...fields }
}

describe('what an allow-always grants', () => {
  it('grants writing files in the room', () => {
    expect(grantScopeFor(approval('write_file', { path: 'a.txt', content: '' }))).toEqual({
      ok: true,
      draft: { scope: 'tool', toolName: 'write_file', command: null },
    })
  })

  it('grants nothing for a read, which asks only when it reaches beyond the workspace', () => {
    for (const toolName of ['read_file', 'list_dir']) {
      expect(grantScopeFor(approval(toolName, { path: '/srv/shared/notes.txt' }))).toEqual({
        ok: false,
        reason: `${toolName} cannot be always allowed`,
      })
    }
  })

  it('narrows a delete to its one real path', () => {
    expect(grantScopeFor(approval('delete_file', { path: 'old.txt' }))).toEqual({
      ok: true,
      draft: {
        scope: 'path',
        toolName: 'delete_file',
        command: null,
        path: join(workspace, 'old.txt'),
      },
    })
  })

  it('grants a plain command line exactly, and nothing for a shell command or a recursive delete', () => {
    const contained = (args: Record<string, unknown>) => ({
      ...approval('run_command', args),
      containment: {
        contained: true as const,
        writableRoots: [workspace],
        network: false as const,
        secretsHidden: true as const,
      },
    })
    expect(grantScopeFor(contained({ argv: ['echo', 'hi'] }))).toMatchObject({
      ok: true,
      draft: { scope: 'command', command: ['echo', 'hi'] },
    })
    expect(grantScopeFor(contained({ argv: ['echo hi'], shell: true }))).toMatchObject({
      ok: false,
    })
    // Seen running uncontained, a command is allowed one run at a time.
    for (const containment of [
      undefined,
      { contained: false as const, why: 'full-access' as const },
      { contained: false as const, why: 'uncontained-setting' as const },
    ]) {
      expect(
        grantScopeFor({
          ...approval('run_command', { argv: ['echo', 'hi'] }),
          ...(containment === undefined ? {} : { containment }),
        }),
      ).toMatchObject({ ok: false, reason: expect.stringMatching(/does not contain/) })
    }
    expect(
      grantScopeFor(approval('delete_file', { path: 'old.txt', recursive: true })),
    ).toMatchObject({ ok: false, reason: expect.stringMatching(/recursive/) })
    expect(grantScopeFor(approval('no_such_tool', {}))).toMatchObject({ ok: false })
  })
})

describe('which calls a grant answers for', () => {
  const resolved = (name: string) => [join(workspace, name)]

  it('a tool grant answers for its tool only', () => {
    const write = grant({ toolName: 'write_file', scope: 'tool' })
    const call = {
      toolName: 'write_file',
      args: { path: 'b.txt' },
      resolvedPaths: resolved('b.txt'),
    }
    expect(grantMatches(write, call)).toBe(true)
    expect(grantMatches(write, { ...call, toolName: 'delete_file' })).toBe(false)
  })

  it('a path grant answers for a plain delete of that real path only', () => {
    const del = grant({ toolName: 'delete_file', scope: 'path', path: join(workspace, 'old.txt') })
    const call = {
      toolName: 'delete_file',
      args: { path: 'old.txt' },
      resolvedPaths: resolved('old.txt'),
    }
    expect(grantMatches(del, call)).toBe(true)
    expect(grantMatches(del, { ...call, resolvedPaths: resolved('other.txt') })).toBe(false)
    expect(grantMatches(del, { ...call, args: { path: 'old.txt', recursive: true } })).toBe(false)
  })

  it('a row without a scope answers for its exact command and never as a tool grant', () => {
    const legacyCommand = grant({ toolName: 'run_command', command: ['ls'] })
    expect(
      grantMatches(legacyCommand, {
        toolName: 'run_command',
        args: { argv: ['ls'] },
        resolvedPaths: [],
      }),
    ).toBe(true)
    const legacyWrite = grant({ toolName: 'write_file' })
    expect(
      grantMatches(legacyWrite, {
        toolName: 'write_file',
        args: { path: 'b.txt' },
        resolvedPaths: resolved('b.txt'),
      }),
    ).toBe(false)
  })
})

describe('folderGrantBlocker: an "always" only for the folder the room works in now', () => {
  const a = { realPath: '/w', dev: '1', ino: '2' }
  const replaced = { realPath: '/w', dev: '1', ino: '3' }

  it("lets an approval asked about the room's folder make a grant", () => {
    expect(folderGrantBlocker({ workspaceIdentity: a }, { workspaceIdentity: a })).toBeNull()
    expect(
      folderGrantBlocker({ workspaceIdentity: a }, { workspaceIdentity: a, integrity: 'ok' }),
    ).toBeNull()
  })

  it('refuses one asked about the folder the room was re-pinned from', () => {
    expect(folderGrantBlocker({ workspaceIdentity: a }, { workspaceIdentity: replaced })).toBe(
      'it was asked about another folder than the one the room works in now',
    )
  })

  it.each([
    ['an unknown turn', undefined, { workspaceIdentity: a }],
    ['an unknown room', { workspaceIdentity: a }, undefined],
    ['a turn without a pin', {}, { workspaceIdentity: a }],
    ['a room without a pin', { workspaceIdentity: a }, {}],
    [
      'a room changed outside Assent',
      { workspaceIdentity: a },
      { workspaceIdentity: a, integrity: 'tampered' },
    ],
  ] as const)('fails closed for %s', (_name, turn, room) => {
    expect(folderGrantBlocker(turn, room)).toMatch(/cannot be compared/)
  })
})

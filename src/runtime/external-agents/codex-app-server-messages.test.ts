import { describe, expect, it } from 'vitest'
import {
  codexAnswerFor,
  codexCommandAction,
  codexFileChanges,
  codexItemStatus,
  codexSandboxAsAsked,
  CodexCommandApprovalSchema,
  CodexFileChangeItemSchema,
  CodexThreadStartResultSchema,
} from './codex-app-server-messages.ts'
import { ExternalDecisionSchema } from './external-agent-port.ts'

const base = { threadId: 't', turnId: 'u', itemId: 'i', command: 'ls', cwd: '/w' }

describe('Codex answers', () => {
  it('accepts only what Assent allowed, and never for the session or by amendment', () => {
    const answers = Object.fromEntries(
      ExternalDecisionSchema.options.map((decision) => [decision, codexAnswerFor(decision)]),
    )
    expect(answers).toEqual({
      'allow-once': 'accept',
      'allow-always': 'accept',
      deny: 'decline',
      expired: 'decline',
      cancelled: 'cancel',
    })
  })
})

describe('Codex command requests as Assent actions', () => {
  it('shows a plain command request as its command line and directory', () => {
    const params = CodexCommandApprovalSchema.parse({ ...base, extraFieldCodexAdded: true })
    expect(codexCommandAction(params)).toEqual({
      action: { kind: 'command', commandLine: 'ls', argv: null, cwd: '/w' },
    })
  })

  it('names why each request that would allow more than its command line is refused', () => {
    const refusal = (fields: Record<string, unknown>) =>
      codexCommandAction(CodexCommandApprovalSchema.parse({ ...base, ...fields }))
    expect(refusal({ kind: 'writeStdin' })).toEqual({
      refused: 'unsupported-command-kind',
      detail: 'a command approval of kind writeStdin',
    })
    expect(refusal({ networkApprovalContext: { host: 'example.com' } })).toEqual({
      refused: 'network-access',
      detail: 'a network-access approval',
    })
    expect(refusal({ additionalPermissions: {} })).toEqual({
      refused: 'extra-permissions',
      detail: 'a command that asks for extra permissions',
    })
    const noCommandLine = {
      refused: 'no-command-line',
      detail: 'a command approval without its command line or directory',
    }
    expect(refusal({ command: null })).toEqual(noCommandLine)
    expect(refusal({ cwd: null })).toEqual(noCommandLine)
    expect(refusal({ command: undefined })).toEqual(noCommandLine)
    // Null is how Codex says "none": no network context, no extra permissions.
    expect(refusal({ networkApprovalContext: null, additionalPermissions: null })).toEqual({
      action: { kind: 'command', commandLine: 'ls', argv: null, cwd: '/w' },
    })
  })

  it('refuses every request that would allow more than its command line', () => {
    const refused = [
      { kind: 'writeStdin' },
      { kind: 'humanCommand' },
      { networkApprovalContext: { host: 'example.com', protocol: 'https' } },
      { additionalPermissions: { fileSystem: { write: ['/'] } } },
      { command: null },
      { cwd: undefined },
    ].map((fields) => codexCommandAction(CodexCommandApprovalSchema.parse({ ...base, ...fields })))
    expect(refused.every((result) => 'refused' in result)).toBe(true)
    expect(
      codexCommandAction(CodexCommandApprovalSchema.parse({ ...base, kind: 'command' })),
    ).toHaveProperty('action')
  })
})

describe('Codex file changes', () => {
  it('makes paths absolute against the workspace, move targets included', () => {
    const item = CodexFileChangeItemSchema.parse({
      type: 'fileChange',
      id: 'i',
      status: 'inProgress',
      changes: [
        { path: 'a.txt', kind: { type: 'add' }, diff: 'x\n' },
        { path: '/abs/b.txt', kind: { type: 'update', move_path: 'c.txt' }, diff: '@@ -1 +1 @@' },
        { path: 'd.txt', kind: { type: 'delete' }, diff: '' },
      ],
    })
    expect(codexFileChanges(item, '/w').map((c) => [c.path, c.change, c.movePath])).toEqual([
      ['/w/a.txt', 'add', null],
      ['/abs/b.txt', 'update', '/w/c.txt'],
      ['/w/d.txt', 'delete', null],
    ])
  })

  it('keeps the diff as sent, moves only an update, and has no before and after texts', () => {
    const item = CodexFileChangeItemSchema.parse({
      type: 'fileChange',
      id: 'i',
      status: 'completed',
      changes: [
        // A stray move_path on another kind is not a move.
        { path: 'a.txt', kind: { type: 'add', move_path: 'elsewhere.txt' }, diff: 'x\n' },
        { path: 'b.txt', kind: { type: 'update', move_path: null }, diff: '@@' },
      ],
    })
    expect(codexFileChanges(item, '/w')).toEqual([
      {
        path: '/w/a.txt',
        change: 'add',
        movePath: null,
        diff: 'x\n',
        oldText: null,
        newText: null,
      },
      {
        path: '/w/b.txt',
        change: 'update',
        movePath: null,
        diff: '@@',
        oldText: null,
        newText: null,
      },
    ])
  })
})

describe('Codex item statuses', () => {
  it('shows each status, and a completed command that exited non-zero as failed', () => {
    expect(codexItemStatus('inProgress', undefined)).toBe('running')
    expect(codexItemStatus('failed', undefined)).toBe('failed')
    expect(codexItemStatus('declined', undefined)).toBe('denied')
    expect(codexItemStatus('completed', undefined)).toBe('succeeded')
    expect(codexItemStatus('completed', null)).toBe('succeeded')
    expect(codexItemStatus('completed', 0)).toBe('succeeded')
    expect(codexItemStatus('completed', 2)).toBe('failed')
    expect(codexItemStatus('completed', -1)).toBe('failed')
  })
})

describe("the sandbox Codex reports for a thread, against the room's", () => {
  const W = '/home/me/project'
  // Each row: the sandbox reported, the kind the room asked for, whether the
  // thread may be used.
  const table: Array<[string, Record<string, unknown>, string, boolean]> = [
    [
      'workspace-write as asked',
      { type: 'workspaceWrite', writableRoots: [], networkAccess: false },
      'workspaceWrite',
      true,
    ],
    [
      'workspace-write naming the workspace',
      { type: 'workspaceWrite', writableRoots: [W, `${W}/`], networkAccess: false },
      'workspaceWrite',
      true,
    ],
    [
      'workspace-write with another folder',
      { type: 'workspaceWrite', writableRoots: ['/opt'], networkAccess: false },
      'workspaceWrite',
      false,
    ],
    [
      'workspace-write with the workspace and its parent',
      { type: 'workspaceWrite', writableRoots: [W, '/home/me'], networkAccess: false },
      'workspaceWrite',
      false,
    ],
    [
      'workspace-write with a path that climbs out',
      { type: 'workspaceWrite', writableRoots: [`${W}/..`], networkAccess: false },
      'workspaceWrite',
      false,
    ],
    [
      'workspace-write with the network',
      { type: 'workspaceWrite', writableRoots: [], networkAccess: true },
      'workspaceWrite',
      false,
    ],
    [
      'workspace-write silent on the network',
      { type: 'workspaceWrite', writableRoots: [] },
      'workspaceWrite',
      false,
    ],
    [
      'workspace-write silent on its folders',
      { type: 'workspaceWrite', networkAccess: false },
      'workspaceWrite',
      false,
    ],
    ['read-only as asked', { type: 'readOnly', networkAccess: false }, 'readOnly', true],
    ['read-only with the network', { type: 'readOnly', networkAccess: true }, 'readOnly', false],
    ['read-only silent on the network', { type: 'readOnly' }, 'readOnly', false],
    [
      'read-only where workspace-write was asked',
      { type: 'readOnly', networkAccess: false },
      'workspaceWrite',
      false,
    ],
    [
      'workspace-write where read-only was asked',
      { type: 'workspaceWrite', writableRoots: [], networkAccess: false },
      'readOnly',
      false,
    ],
    [
      'no sandbox where workspace-write was asked',
      { type: 'dangerFullAccess' },
      'workspaceWrite',
      false,
    ],
    ['no sandbox in a full-access room', { type: 'dangerFullAccess' }, 'dangerFullAccess', true],
    [
      'a sandbox in a full-access room',
      { type: 'workspaceWrite', writableRoots: [], networkAccess: false },
      'dangerFullAccess',
      false,
    ],
  ]

  it.each(table)('%s', (_label, sandbox, asked, usable) => {
    const reported = CodexThreadStartResultSchema.parse({
      thread: { id: 't' },
      approvalPolicy: 'untrusted',
      approvalsReviewer: 'user',
      sandbox,
      cwd: W,
    }).sandbox
    expect(codexSandboxAsAsked(reported, asked, W)).toBe(usable)
  })
})

import { describe, expect, it } from 'vitest'
import {
  codexAnswerFor,
  codexCommandAction,
  codexFileChanges,
  CodexCommandApprovalSchema,
  CodexFileChangeItemSchema,
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
})

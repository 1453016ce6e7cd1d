import { describe, expect, it } from 'vitest'
import {
  CodexAgentMessageItemSchema,
  CodexCommandApprovalSchema,
  CodexCommandItemSchema,
  CodexErrorNotificationSchema,
  CodexFileChangeApprovalSchema,
  CodexFileChangeItemSchema,
  CodexInitializeResultSchema,
  CodexItemNotificationSchema,
  CodexServerRequestResolvedSchema,
  CodexThreadStartResultSchema,
  CodexTurnCompletedSchema,
  CodexTurnStartResultSchema,
  CodexWarningSchema,
} from './codex-app-server-messages.ts'
import {
  expectAcceptsOnly,
  MAX_ID_CHARS,
  MAX_TEXT_CHARS,
  withField,
} from '../../../tests/support/schema-samples.ts'

// What the client reads from Codex must be there and within its bounds, or
// the message does not parse and is never acted on; each schema is checked
// against a message that has every field the client reads, and that message
// with one field missing or wrong.

const ids = { threadId: 'thread-1', turnId: 'turn-1', itemId: 'item-1' }

describe('Codex message bounds', () => {
  it('takes text up to 16 MiB and ids of 1 to 512 characters', () => {
    expectAcceptsOnly(
      CodexWarningSchema,
      { message: 'x'.repeat(MAX_TEXT_CHARS) },
      { 'text past 16 MiB': { message: 'x'.repeat(MAX_TEXT_CHARS + 1) } },
    )
    expectAcceptsOnly(
      CodexTurnStartResultSchema,
      { turn: { id: 'x'.repeat(MAX_ID_CHARS) } },
      {
        'an empty id': { turn: { id: '' } },
        'an id past 512 characters': { turn: { id: 'x'.repeat(MAX_ID_CHARS + 1) } },
        'a turn without an id': { turn: {} },
        'no turn': {},
      },
    )
  })
})

describe('Codex answers the client reads', () => {
  it('reads initialize’s user agent', () => {
    expectAcceptsOnly(
      CodexInitializeResultSchema,
      { userAgent: 'codex/0.169' },
      { 'no user agent': {} },
    )
  })

  it('reads the settings thread/start applied', () => {
    const started = {
      thread: { id: 'thread-1' },
      approvalPolicy: 'untrusted',
      approvalsReviewer: 'user',
      sandbox: { type: 'workspaceWrite' },
      cwd: '/w',
    }
    expectAcceptsOnly(CodexThreadStartResultSchema, started, {
      'a thread without an id': withField(started, 'thread', {}),
      'no approvals reviewer': withField(started, 'approvalsReviewer', undefined),
      'a sandbox without a type': withField(started, 'sandbox', {}),
      'no directory': withField(started, 'cwd', undefined),
    })
  })
})

describe('Codex items', () => {
  const command = {
    type: 'commandExecution',
    id: 'item-1',
    command: 'ls',
    cwd: '/w',
    status: 'completed',
    aggregatedOutput: null,
    exitCode: 0,
  }

  it('reads a command item in each status, and no other status or type', () => {
    for (const status of ['inProgress', 'completed', 'failed', 'declined']) {
      expect(CodexCommandItemSchema.safeParse({ ...command, status }).success, status).toBe(true)
    }
    expectAcceptsOnly(CodexCommandItemSchema, command, {
      'an unknown status': withField(command, 'status', 'running'),
      'another item type': withField(command, 'type', 'fileChange'),
      'no command': withField(command, 'command', undefined),
      'no directory': withField(command, 'cwd', undefined),
      'no id': withField(command, 'id', undefined),
      'a fractional exit code': withField(command, 'exitCode', 1.5),
    })
  })

  it('reads file changes of each kind, up to 4 096 of them', () => {
    const change = { path: 'a.txt', kind: { type: 'add' }, diff: 'x\n' }
    const item = { type: 'fileChange', id: 'item-1', status: 'inProgress', changes: [change] }
    const kinds = [
      { type: 'add' },
      { type: 'delete' },
      { type: 'update' },
      { type: 'update', move_path: null },
      { type: 'update', move_path: 'b.txt' },
    ]
    for (const kind of kinds) {
      expect(
        CodexFileChangeItemSchema.safeParse({ ...item, changes: [{ ...change, kind }] }).success,
        JSON.stringify(kind),
      ).toBe(true)
    }
    expectAcceptsOnly(
      CodexFileChangeItemSchema,
      withField(item, 'changes', Array(4096).fill(change)),
      {
        'more than 4 096 changes': withField(item, 'changes', Array(4097).fill(change)),
        'an unknown change kind': withField(item, 'changes', [
          { ...change, kind: { type: 'rename' } },
        ]),
        'a change without a path': withField(item, 'changes', [
          { kind: { type: 'add' }, diff: '' },
        ]),
        'a change without a diff': withField(item, 'changes', [
          { path: 'a', kind: { type: 'add' } },
        ]),
        'another item type': withField(item, 'type', 'commandExecution'),
        'no status': withField(item, 'status', undefined),
      },
    )
  })

  it('reads an agent message and the item notifications', () => {
    const message = { type: 'agentMessage', id: 'item-1', text: 'done' }
    expectAcceptsOnly(CodexAgentMessageItemSchema, message, {
      'another item type': withField(message, 'type', 'reasoning'),
      'no text': withField(message, 'text', undefined),
    })
    const notification = { threadId: 'thread-1', turnId: 'turn-1', item: { type: 'x', id: 'i' } }
    expectAcceptsOnly(CodexItemNotificationSchema, notification, {
      'an item without a type': withField(notification, 'item', { id: 'i' }),
      'an item without an id': withField(notification, 'item', { type: 'x' }),
      'no turn': withField(notification, 'turnId', undefined),
      'no thread': withField(notification, 'threadId', undefined),
    })
  })
})

describe('Codex notifications', () => {
  it('reads a completed turn in each status, with or without its error', () => {
    const completed = { threadId: 'thread-1', turn: { id: 'turn-1', status: 'completed' } }
    for (const status of ['completed', 'interrupted', 'failed', 'inProgress']) {
      const turn = { id: 'turn-1', status, error: { message: 'boom' } }
      expect(CodexTurnCompletedSchema.safeParse({ ...completed, turn }).success, status).toBe(true)
    }
    expectAcceptsOnly(CodexTurnCompletedSchema, completed, {
      'an unknown status': withField(completed, 'turn', { id: 'turn-1', status: 'done' }),
      'a turn without an id': withField(completed, 'turn', { status: 'completed' }),
      'an error without a message': withField(completed, 'turn', {
        id: 'turn-1',
        status: 'failed',
        error: {},
      }),
      'no thread': withField(completed, 'threadId', undefined),
    })
  })

  it('reads a resolved request by a string or an integer id', () => {
    for (const requestId of ['r-1', 7]) {
      expect(CodexServerRequestResolvedSchema.safeParse({ threadId: 't', requestId }).success).toBe(
        true,
      )
    }
    expectAcceptsOnly(
      CodexServerRequestResolvedSchema,
      { threadId: 't', requestId: 0 },
      {
        'a fractional id': { threadId: 't', requestId: 1.5 },
        'no id': { threadId: 't' },
        'no thread': { requestId: 1 },
      },
    )
  })

  it('reads warnings and errors by their message', () => {
    expectAcceptsOnly(CodexWarningSchema, { message: 'careful' }, { 'no message': {} })
    expectAcceptsOnly(
      CodexErrorNotificationSchema,
      { error: { message: 'boom' }, willRetry: true },
      {
        'an error without a message': { error: {} },
        'a retry flag that is not a boolean': { error: { message: 'boom' }, willRetry: 'yes' },
      },
    )
  })
})

describe('Codex approval requests', () => {
  it('reads a command approval only with its thread, turn and item', () => {
    const request = { ...ids, command: 'ls', cwd: '/w' }
    expectAcceptsOnly(CodexCommandApprovalSchema, request, {
      'no thread': withField(request, 'threadId', undefined),
      'no turn': withField(request, 'turnId', undefined),
      'no item': withField(request, 'itemId', undefined),
    })
  })

  it('reads a file-change approval only with its thread, turn and item', () => {
    const request = { ...ids, reason: null, grantRoot: null }
    expectAcceptsOnly(CodexFileChangeApprovalSchema, request, {
      'no thread': withField(request, 'threadId', undefined),
      'no turn': withField(request, 'turnId', undefined),
      'no item': withField(request, 'itemId', undefined),
    })
  })
})

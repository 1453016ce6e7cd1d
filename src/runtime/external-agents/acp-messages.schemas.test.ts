import { describe, expect, it } from 'vitest'
import {
  AcpEmptyResultSchema,
  AcpInitializeResultSchema,
  AcpMessageChunkSchema,
  AcpModeUpdateSchema,
  AcpNewSessionResultSchema,
  AcpPermissionRequestSchema,
  AcpPromptResultSchema,
  AcpSessionUpdateSchema,
  AcpToolCallSchema,
} from './acp-messages.ts'
import {
  expectAcceptsOnly,
  MAX_ID_CHARS,
  MAX_TEXT_CHARS,
  withField,
} from '../../../tests/support/schema-samples.ts'

// What the client reads from an ACP agent must be there and within its
// bounds, or the message does not parse and is never acted on; each schema is
// checked against a message that has every field the client reads, and that
// message with one field missing or wrong.

describe('ACP message bounds', () => {
  it('takes text up to 16 MiB and ids of 1 to 512 characters', () => {
    const chunk = (text: string) => ({ content: { type: 'text', text } })
    expectAcceptsOnly(AcpMessageChunkSchema, chunk('x'.repeat(MAX_TEXT_CHARS)), {
      'text past 16 MiB': chunk('x'.repeat(MAX_TEXT_CHARS + 1)),
      'content that is not text': { content: { type: 'image', text: 'x' } },
      'text content without its text': { content: { type: 'text' } },
    })
    expectAcceptsOnly(
      AcpToolCallSchema,
      { toolCallId: 'x'.repeat(MAX_ID_CHARS) },
      {
        'an empty id': { toolCallId: '' },
        'an id past 512 characters': { toolCallId: 'x'.repeat(MAX_ID_CHARS + 1) },
        'no id': {},
      },
    )
  })
})

describe('ACP answers the client reads', () => {
  it('reads initialize’s protocol version as an integer', () => {
    expectAcceptsOnly(
      AcpInitializeResultSchema,
      { protocolVersion: 1 },
      { 'no version': {}, 'a fractional version': { protocolVersion: 1.5 } },
    )
  })

  it('reads a new session with its modes, up to 256 of them', () => {
    const modes = { currentModeId: 'default', availableModes: [{ id: 'default' }, { id: 'plan' }] }
    const session = { sessionId: 'session-1', modes }
    expect(AcpNewSessionResultSchema.safeParse({ sessionId: 's', modes: null }).success).toBe(true)
    expect(AcpNewSessionResultSchema.safeParse({ sessionId: 's' }).success).toBe(true)
    const many = Array.from({ length: 256 }, (_, index) => ({ id: `mode-${index}` }))
    expectAcceptsOnly(
      AcpNewSessionResultSchema,
      withField(session, 'modes', { ...modes, availableModes: many }),
      {
        'more than 256 modes': withField(session, 'modes', {
          ...modes,
          availableModes: [...many, { id: 'one-more' }],
        }),
        'modes without the current one': withField(session, 'modes', { availableModes: [] }),
        'a mode without an id': withField(session, 'modes', { ...modes, availableModes: [{}] }),
        'no session': withField(session, 'sessionId', undefined),
      },
    )
  })

  it('reads an empty answer as an object or null', () => {
    expectAcceptsOnly(AcpEmptyResultSchema, {}, { 'a string': 'ok' })
    expect(AcpEmptyResultSchema.safeParse(null).success).toBe(true)
  })

  it('reads each stop reason the SDK defines, and no other', () => {
    for (const stopReason of [
      'end_turn',
      'max_tokens',
      'max_turn_requests',
      'refusal',
      'cancelled',
    ]) {
      expect(AcpPromptResultSchema.safeParse({ stopReason }).success, stopReason).toBe(true)
    }
    expectAcceptsOnly(
      AcpPromptResultSchema,
      { stopReason: 'end_turn' },
      {
        'an unknown stop reason': { stopReason: 'done' },
        'no stop reason': {},
      },
    )
  })
})

describe('ACP notifications and requests', () => {
  it('reads a tool call with bounded kind, status and content', () => {
    const call = {
      toolCallId: 'call-1',
      title: 'Run',
      kind: 'k'.repeat(64),
      status: 's'.repeat(64),
      content: [{ type: 'diff' }],
      rawInput: { command: 'ls' },
    }
    expectAcceptsOnly(AcpToolCallSchema, call, {
      'a kind past 64 characters': withField(call, 'kind', 'k'.repeat(65)),
      'a status past 64 characters': withField(call, 'status', 's'.repeat(65)),
      'content without a type': withField(call, 'content', [{}]),
      'more than 4 096 content items': withField(call, 'content', Array(4097).fill({ type: 'x' })),
      'a location without a path': withField(call, 'locations', [{ line: 1 }]),
      'more than 4 096 locations': withField(call, 'locations', Array(4097).fill({ path: 'a' })),
    })
    expect(
      AcpToolCallSchema.safeParse(withField(call, 'locations', Array(4096).fill({ path: 'a' })))
        .success,
    ).toBe(true)
    expect(AcpToolCallSchema.safeParse(withField(call, 'locations', null)).success).toBe(true)
    expect(
      AcpToolCallSchema.safeParse(withField(call, 'content', Array(4096).fill({ type: 'x' })))
        .success,
    ).toBe(true)
  })

  it('reads a session update by its session and kind, and a mode change by its mode', () => {
    const update = { sessionId: 'session-1', update: { sessionUpdate: 'tool_call' } }
    expectAcceptsOnly(AcpSessionUpdateSchema, update, {
      'an update without its kind': withField(update, 'update', {}),
      'no session': withField(update, 'sessionId', undefined),
    })
    expectAcceptsOnly(AcpModeUpdateSchema, { currentModeId: 'plan' }, { 'no mode': {} })
  })

  it('reads a permission request with 1 to 64 options, each with an id and a kind', () => {
    const option = { optionId: 'once', name: 'Allow', kind: 'allow_once' }
    const request = {
      sessionId: 'session-1',
      toolCall: { toolCallId: 'call-1' },
      options: [option, { optionId: 'no', kind: 'reject_once' }],
    }
    const many = Array.from({ length: 64 }, (_, index) => ({ ...option, optionId: `o-${index}` }))
    expect(AcpPermissionRequestSchema.safeParse(withField(request, 'options', many)).success).toBe(
      true,
    )
    expectAcceptsOnly(AcpPermissionRequestSchema, request, {
      'no options': withField(request, 'options', []),
      'more than 64 options': withField(request, 'options', [...many, option]),
      'an option without an id': withField(request, 'options', [{ kind: 'allow_once' }]),
      'an option without a kind': withField(request, 'options', [{ optionId: 'x' }]),
      'an option kind past 64 characters': withField(request, 'options', [
        { optionId: 'x', kind: 'k'.repeat(65) },
      ]),
      'a tool call without an id': withField(request, 'toolCall', {}),
      'no session': withField(request, 'sessionId', undefined),
    })
  })
})

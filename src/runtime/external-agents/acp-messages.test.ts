import { AGENT_METHODS, CLIENT_METHODS, PROTOCOL_VERSION } from '@agentclientprotocol/sdk'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  ACP_METHODS,
  ACP_PROTOCOL_VERSION,
  acpAction,
  acpAnswerText,
  acpOutcomeFor,
  acpToolOutput,
  acpToolStatus,
  shellQuote,
  type AcpPermissionOption,
} from './acp-messages.ts'
import { ExternalDecisionSchema, type ExternalDecision } from './external-agent-port.ts'

const KINDS = ['allow_once', 'allow_always', 'reject_once', 'reject_always', 'something_else']
const ALLOWS: readonly ExternalDecision[] = ['allow-once', 'allow-always']

const optionsArbitrary = fc.array(
  fc.record({
    optionId: fc.string({ minLength: 1, maxLength: 8 }),
    kind: fc.constantFrom(...KINDS),
  }),
  { maxLength: 6 },
)

describe('ACP permission outcomes', () => {
  it('never selects an allow option unless Assent allowed, and never an "always" option', () => {
    let allowed = 0
    fc.assert(
      fc.property(
        fc.constantFrom(...ExternalDecisionSchema.options),
        optionsArbitrary,
        (decision, options: AcpPermissionOption[]) => {
          const outcome = acpOutcomeFor(decision, options)
          if (outcome.outcome === 'cancelled') return
          // Every option the agent could match the id to has the wanted kind.
          const kinds = new Set(
            options.filter((o) => o.optionId === outcome.optionId).map((o) => o.kind),
          )
          expect([...kinds]).toEqual([ALLOWS.includes(decision) ? 'allow_once' : 'reject_once'])
          if (ALLOWS.includes(decision)) allowed++
        },
      ),
      { numRuns: 2000 },
    )
    // The property must have seen real allows, not only cancellations.
    expect(allowed).toBeGreaterThan(100)
  })

  it('answers allow-always with the allow-once option, never the agent’s own rule', () => {
    const options = [
      { optionId: 'forever', kind: 'allow_always' },
      { optionId: 'once', kind: 'allow_once' },
      { optionId: 'no', kind: 'reject_once' },
    ]
    expect(acpOutcomeFor('allow-always', options)).toEqual({
      outcome: 'selected',
      optionId: 'once',
    })
  })

  it('never sends an option id the agent also uses for another kind', () => {
    const shared = [
      { optionId: 'x', kind: 'allow_once' },
      { optionId: 'x', kind: 'reject_once' },
    ]
    expect(acpOutcomeFor('deny', shared)).toEqual({ outcome: 'cancelled' })
    expect(acpOutcomeFor('allow-once', shared)).toEqual({ outcome: 'cancelled' })
  })

  it('answers deny and expiry with reject_once, or cancelled when there is none', () => {
    const rejectOnce = [
      { optionId: 'never', kind: 'reject_always' },
      { optionId: 'no', kind: 'reject_once' },
    ]
    expect(acpOutcomeFor('deny', rejectOnce)).toEqual({ outcome: 'selected', optionId: 'no' })
    expect(acpOutcomeFor('expired', rejectOnce)).toEqual({ outcome: 'selected', optionId: 'no' })
    expect(acpOutcomeFor('deny', [{ optionId: 'never', kind: 'reject_always' }])).toEqual({
      outcome: 'cancelled',
    })
    expect(acpOutcomeFor('cancelled', rejectOnce)).toEqual({ outcome: 'cancelled' })
  })
})

describe('ACP tool calls as Assent actions', () => {
  it('reads an argument vector as a command line, in its own or the session’s directory', () => {
    const argv = ['/bin/bash', '-lc', "echo 'hi' > out.txt"]
    expect(
      acpAction(
        { toolCallId: 't', kind: 'execute', rawInput: { command: argv, cwd: '/w/sub' } },
        '/w',
      ),
    ).toEqual({
      kind: 'command',
      commandLine: `/bin/bash -lc 'echo '\\''hi'\\'' > out.txt'`,
      argv,
      cwd: '/w/sub',
    })
    expect(
      acpAction(
        { toolCallId: 't', kind: 'execute', rawInput: { command: 'ls', cwd: 'relative' } },
        '/w',
      ),
    ).toEqual({ kind: 'command', commandLine: 'ls', argv: null, cwd: '/w' })
  })

  it('reads a command line without a directory (claude-agent-acp’s Bash) in the session’s', () => {
    expect(
      acpAction(
        {
          toolCallId: 't',
          kind: 'execute',
          title: 'echo hi > a.txt',
          rawInput: { command: 'echo hi > a.txt', description: 'Write a file' },
        },
        '/w',
      ),
    ).toEqual({ kind: 'command', commandLine: 'echo hi > a.txt', argv: null, cwd: '/w' })
  })

  it('reads diffs as file changes with absolute paths', () => {
    const action = acpAction(
      {
        toolCallId: 't',
        kind: 'edit',
        content: [
          { type: 'diff', path: 'new.txt', newText: 'a' },
          { type: 'diff', path: '/w/old.txt', oldText: 'x', newText: 'y' },
          { type: 'content', content: { type: 'text', text: 'ignored' } },
        ],
      },
      '/w',
    )
    expect(action).toEqual({
      kind: 'file-changes',
      changes: [
        {
          path: '/w/new.txt',
          change: 'add',
          movePath: null,
          diff: null,
          oldText: null,
          newText: 'a',
        },
        {
          path: '/w/old.txt',
          change: 'update',
          movePath: null,
          diff: null,
          oldText: 'x',
          newText: 'y',
        },
      ],
    })
  })

  it('shows anything else as the agent’s own title, kind and raw input', () => {
    expect(
      acpAction(
        { toolCallId: 't', kind: 'fetch', title: 'GET example', rawInput: { url: 'u' } },
        '/w',
      ),
    ).toEqual({
      kind: 'tool',
      toolKind: 'fetch',
      title: 'GET example',
      input: { url: 'u' },
      locations: [],
    })
    // Where the call acts, when only its locations say: absolute, shown.
    expect(
      acpAction(
        {
          toolCallId: 't',
          kind: 'edit',
          title: 'Edit',
          rawInput: {},
          locations: [{ path: '.git/config', line: 3 }, { path: '/w/a.txt' }],
        },
        '/w',
      ),
    ).toMatchObject({ kind: 'tool', locations: ['/w/.git/config', '/w/a.txt'] })
    // An execute call without a readable command is not shown as one.
    expect(
      acpAction(
        { toolCallId: 't', kind: 'execute', title: 'run', rawInput: { command: [] } },
        '/w',
      ),
    ).toMatchObject({ kind: 'tool', toolKind: 'execute' })
  })

  it('reads a command only from an execute call whose raw input has a readable one', () => {
    const tool = (call: Record<string, unknown>) => acpAction({ toolCallId: 't', ...call }, '/w')
    expect(tool({ kind: 'read', title: 'ls', rawInput: { command: 'ls' } })).toEqual({
      kind: 'tool',
      toolKind: 'read',
      title: 'ls',
      input: { command: 'ls' },
      locations: [],
    })
    expect(tool({ kind: 'execute', rawInput: 'ls' })).toMatchObject({ kind: 'tool', input: 'ls' })
    expect(tool({ kind: 'execute', rawInput: { command: '' } })).toMatchObject({ kind: 'tool' })
    expect(tool({ kind: 'execute', rawInput: { command: ['ls', 5] } })).toMatchObject({
      kind: 'tool',
    })
    // A directory that is not an absolute path string is the session's.
    expect(tool({ kind: 'execute', rawInput: { command: ['ls'], cwd: 5 } })).toEqual({
      kind: 'command',
      commandLine: 'ls',
      argv: ['ls'],
      cwd: '/w',
    })
  })

  it('shows a call with nothing of its own as an untitled tool of kind other', () => {
    expect(acpAction({ toolCallId: 't' }, '/w')).toEqual({
      kind: 'tool',
      toolKind: 'other',
      title: '',
      input: null,
      locations: [],
    })
  })

  it('reads a diff of a delete call as a deletion, and skips a diff without a path', () => {
    const action = acpAction(
      {
        toolCallId: 't',
        kind: 'delete',
        content: [
          { type: 'diff', path: '', newText: '' },
          { type: 'diff', path: 'gone.txt', oldText: 'x', newText: '' },
        ],
      },
      '/w',
    )
    expect(action).toEqual({
      kind: 'file-changes',
      changes: [
        {
          path: '/w/gone.txt',
          change: 'delete',
          movePath: null,
          diff: null,
          oldText: 'x',
          newText: '',
        },
      ],
    })
  })

  it('leaves arguments a shell reads as they are bare', () => {
    expect(shellQuote(['ls', '-la', 'AZaz09_@%+=:,./-'])).toBe('ls -la AZaz09_@%+=:,./-')
    expect(shellQuote(['a b', 'x$', '', "it's"])).toBe(`'a b' 'x$' '' 'it'\\''s'`)
  })

  it('quotes every argument a shell would split or expand', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 5 }), (argv) => {
        const line = shellQuote(argv)
        for (const arg of argv) {
          if (!/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) {
            expect(line).toContain(`'${arg.replaceAll("'", `'\\''`)}'`)
          }
        }
      }),
    )
  })
})

describe('ACP tool results', () => {
  it('reads a tool call’s text content, else its raw output as sent or as JSON', () => {
    const call = (fields: Record<string, unknown>) => acpToolOutput({ toolCallId: 't', ...fields })
    expect(
      call({
        content: [
          { type: 'content', content: { type: 'text', text: 'one' } },
          { type: 'diff', path: 'a', newText: 'b' },
          { type: 'content', content: { type: 'image', data: 'x' } },
          { type: 'content', content: { type: 'text', text: 'two' } },
        ],
        rawOutput: 'ignored',
      }),
    ).toBe('one\ntwo')
    expect(call({ content: [], rawOutput: 'plain' })).toBe('plain')
    expect(call({ rawOutput: { exit: 0 } })).toBe('{"exit":0}')
    expect(call({ rawOutput: 0 })).toBe('0')
    expect(call({ rawOutput: null })).toBeNull()
    expect(call({ content: null })).toBeNull()
  })

  it('shows each tool-call status, and any other as unknown', () => {
    expect(acpToolStatus('completed')).toBe('succeeded')
    expect(acpToolStatus('failed')).toBe('failed')
    expect(acpToolStatus('pending')).toBe('running')
    expect(acpToolStatus('in_progress')).toBe('running')
    expect(acpToolStatus('paused')).toBe('unknown')
    expect(acpToolStatus(undefined)).toBe('unknown')
  })

  it('shows an answer as the option chosen, or cancelled', () => {
    expect(acpAnswerText({ outcome: 'selected', optionId: 'once' })).toBe('once')
    expect(acpAnswerText({ outcome: 'cancelled' })).toBe('cancelled')
  })
})

describe('ACP names from the official SDK', () => {
  it('speaks the protocol version and method names the SDK defines', () => {
    expect(ACP_PROTOCOL_VERSION).toBe(PROTOCOL_VERSION)
    const sdkMethods = new Set<string>([
      ...Object.values(AGENT_METHODS),
      ...Object.values(CLIENT_METHODS),
    ])
    for (const method of Object.values(ACP_METHODS)) expect(sdkMethods).toContain(method)
    expect(ACP_METHODS.requestPermission).toBe(CLIENT_METHODS.session_request_permission)
    expect(ACP_METHODS.prompt).toBe(AGENT_METHODS.session_prompt)
  })
})

import { AGENT_METHODS, CLIENT_METHODS, PROTOCOL_VERSION } from '@agentclientprotocol/sdk'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  ACP_METHODS,
  ACP_PROTOCOL_VERSION,
  acpAction,
  acpOutcomeFor,
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
    ).toEqual({ kind: 'tool', toolKind: 'fetch', title: 'GET example', input: { url: 'u' } })
    // An execute call without a readable command is not shown as one.
    expect(
      acpAction(
        { toolCallId: 't', kind: 'execute', title: 'run', rawInput: { command: [] } },
        '/w',
      ),
    ).toMatchObject({ kind: 'tool', toolKind: 'execute' })
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

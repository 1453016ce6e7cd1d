import { AGENT_METHODS, CLIENT_METHODS, PROTOCOL_VERSION } from '@agentclientprotocol/sdk'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  ACP_METHODS,
  ACP_PROTOCOL_VERSION,
  acpAnswerText,
  acpOutcomeFor,
  acpToolOutput,
  acpToolStatus,
  AcpInitializeResultSchema,
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

describe('who an ACP agent says it is', () => {
  it('reads the name it gives, and nothing else of it', () => {
    const initialized = AcpInitializeResultSchema.parse({
      protocolVersion: 1,
      agentInfo: { name: 'codex-acp', title: 'Codex', version: '0.16.0' },
    })
    expect(initialized.agentInfo?.name).toBe('codex-acp')
    expect(AcpInitializeResultSchema.parse({ protocolVersion: 1 }).agentInfo).toBeUndefined()
  })

  it('refuses an answer whose agent info has no name, or one past 256 characters', () => {
    for (const agentInfo of [{ title: 'Codex' }, { name: 7 }, { name: 'x'.repeat(257) }, 'codex']) {
      expect(AcpInitializeResultSchema.safeParse({ protocolVersion: 1, agentInfo }).success).toBe(
        false,
      )
    }
    expect(
      AcpInitializeResultSchema.safeParse({
        protocolVersion: 1,
        agentInfo: { name: 'x'.repeat(256) },
      }).success,
    ).toBe(true)
  })
})

import { describe, expect, it } from 'vitest'
import { pageOf, type ExpectedSender } from '../core/sender-validator.ts'
import { CONSENT_SITE } from '../core/page-sites.ts'
import { takeDecision, type DecisionIntakeInput } from './decision-intake.ts'

/** Event and frame shaped like Electron's; the binary cannot run here. */
const mainFrame = { url: CONSENT_SITE.pageUrl, parent: null }
const expected: ExpectedSender = {
  webContentsId: 3,
  mainFrame: () => mainFrame,
  ...pageOf(CONSENT_SITE.pageUrl),
}

function input(overrides: Partial<DecisionIntakeInput> = {}): DecisionIntakeInput {
  return {
    event: { sender: { id: 3 }, senderFrame: mainFrame },
    message: { promptId: 'p-1', answer: 'allow-once' },
    promptId: 'p-1',
    expected,
    lastInputAtMs: 9_950,
    nowMs: 10_000,
    ...overrides,
  }
}

describe('takeDecision', () => {
  it("accepts a clicked answer from the prompt's own consent page", () => {
    expect(takeDecision(input())).toEqual({ ok: true, answer: 'allow-once' })
  })

  it('refuses another sender before reading the payload', () => {
    let payloadRead = false
    const message = {
      get promptId() {
        payloadRead = true
        return 'p-1'
      },
      answer: 'allow-once',
    }
    const verdict = takeDecision(
      input({ event: { sender: { id: 4 }, senderFrame: mainFrame }, message }),
    )
    expect(verdict).toEqual({
      ok: false,
      reason: 'sender refused: sender is webContents 4, not 3',
    })
    expect(payloadRead).toBe(false)
  })

  it('refuses a subframe of the protected window', () => {
    const subframe = { url: CONSENT_SITE.pageUrl, parent: mainFrame }
    const verdict = takeDecision(input({ event: { sender: { id: 3 }, senderFrame: subframe } }))
    expect(verdict.ok).toBe(false)
  })

  it('refuses a malformed message or an extra field', () => {
    expect(takeDecision(input({ message: { promptId: 'p-1', answer: 'allow' } })).ok).toBe(false)
    expect(
      takeDecision(input({ message: { promptId: 'p-1', answer: 'deny', source: 'policy' } })).ok,
    ).toBe(false)
    expect(takeDecision(input({ message: 'allow-once' })).ok).toBe(false)
  })

  it('refuses a decision for another prompt', () => {
    expect(takeDecision(input({ message: { promptId: 'p-2', answer: 'deny' } }))).toEqual({
      ok: false,
      reason: 'the decision names another prompt',
    })
  })

  it('refuses a widening answer without a recent mouse press or Space key', () => {
    for (const answer of ['allow-once', 'allow-always', 'confirm']) {
      const verdict = takeDecision(
        input({ message: { promptId: 'p-1', answer }, lastInputAtMs: undefined }),
      )
      expect(verdict, answer).toEqual({
        ok: false,
        reason: 'no mouse press, touch tap or Space key in this window just before the decision',
      })
      expect(
        takeDecision(input({ message: { promptId: 'p-1', answer }, lastInputAtMs: 8_000 })).ok,
      ).toBe(false)
    }
  })

  it('accepts deny and cancel from the keyboard', () => {
    for (const answer of ['deny', 'cancel'] as const) {
      expect(
        takeDecision(input({ message: { promptId: 'p-1', answer }, lastInputAtMs: undefined })),
      ).toEqual({ ok: true, answer })
    }
  })
})

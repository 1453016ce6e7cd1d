import { describe, expect, it } from 'vitest'
import type { ConsentAnswer } from '../../common/consent-view.ts'
import type { PermissionMode } from '../../contracts/policy-axes.ts'
import { activeLongEnough, widens } from './decision-timing.ts'

const ANSWERS: readonly ConsentAnswer[] = [
  'allow-once',
  'allow-always',
  'allow-always-server',
  'deny',
  'confirm',
  'cancel',
  'submit',
  'decline',
]

describe('widens', () => {
  it('counts allowing an approval, once, always or for the whole server, and nothing else on an approval', () => {
    const widening = ANSWERS.filter((answer) => widens({ kind: 'approval' }, answer))
    expect(widening).toEqual(['allow-once', 'allow-always', 'allow-always-server'])
  })

  it('never counts a form answer: sending a form widens no permission', () => {
    expect(ANSWERS.filter((answer) => widens({ kind: 'form' }, answer))).toEqual([])
    // Whatever else a form prompt carries, it is not read as a mode change.
    const oddForm = { kind: 'form', from: 'ask-for-approval', to: 'full-access' } as never
    expect(ANSWERS.filter((answer) => widens(oddForm, answer))).toEqual([])
  })

  const modes: readonly PermissionMode[] = [
    'plan',
    'ask-for-approval',
    'approve-for-me',
    'full-access',
  ]
  const change = (from: PermissionMode, to: PermissionMode, vouches = false) =>
    ANSWERS.filter((answer) => widens({ kind: 'mode-change', from, to, vouches }, answer))

  it('counts confirming a mode that reaches as far or further, and only the confirm', () => {
    expect(change('ask-for-approval', 'approve-for-me')).toEqual(['confirm'])
    expect(change('ask-for-approval', 'full-access')).toEqual(['confirm'])
    expect(change('approve-for-me', 'full-access')).toEqual(['confirm'])
    // Confirming the same mode trusts a tampered room's grants again.
    for (const mode of modes) expect(change(mode, mode)).toEqual(['confirm'])
  })

  it('does not count narrowing a room', () => {
    expect(change('full-access', 'approve-for-me')).toEqual([])
    expect(change('full-access', 'ask-for-approval')).toEqual([])
    expect(change('approve-for-me', 'ask-for-approval')).toEqual([])
  })

  it('counts confirming any mode, a narrowing or plan included, that accepts a replaced folder or seals a room again', () => {
    for (const from of modes) {
      for (const to of modes) expect(change(from, to, true)).toEqual(['confirm'])
    }
  })

  it('counts leaving plan mode for any other mode, and never entering it', () => {
    for (const mode of modes.filter((other) => other !== 'plan')) {
      expect(change('plan', mode)).toEqual(['confirm'])
      expect(change(mode, 'plan')).toEqual([])
    }
  })
})

describe('widens, for an approver webhook', () => {
  it('counts confirming a new webhook, and only the confirm: it hands the person’s decisions to someone else', () => {
    const setting = ANSWERS.filter((answer) =>
      widens({ kind: 'approver-webhook', sets: true }, answer),
    )
    expect(setting).toEqual(['confirm'])
  })

  it('does not count removing one, nor closing the window that shows a new secret', () => {
    expect(
      ANSWERS.filter((answer) => widens({ kind: 'approver-webhook', sets: false }, answer)),
    ).toEqual([])
    expect(ANSWERS.filter((answer) => widens({ kind: 'webhook-secret' }, answer))).toEqual([])
  })

  it('reads `sets` only on a webhook prompt: a form or the secret window that carries one widens nothing', () => {
    for (const kind of ['form', 'webhook-secret']) {
      const odd = { kind, sets: true } as never
      expect(
        ANSWERS.filter((answer) => widens(odd, answer)),
        kind,
      ).toEqual([])
    }
  })
})

describe('activeLongEnough', () => {
  it('is in time from exactly the delay after the window was shown and focused', () => {
    expect(activeLongEnough(1_000, 1_600, 600)).toBe(true)
    expect(activeLongEnough(1_000, 5_000, 600)).toBe(true)
    expect(activeLongEnough(1_000, 1_000, 0)).toBe(true)
  })

  it('is too soon a millisecond before, and never before the window was shown', () => {
    expect(activeLongEnough(1_000, 1_599, 600)).toBe(false)
    expect(activeLongEnough(undefined, 1_000_000, 0)).toBe(false)
  })

  it('is too soon when the clock runs backwards', () => {
    expect(activeLongEnough(2_000, 1_000, 0)).toBe(false)
  })
})

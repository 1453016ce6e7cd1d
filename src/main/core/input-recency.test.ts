import { describe, expect, it } from 'vitest'
import {
  MAX_INPUT_TO_DECISION_MS,
  TrustedInputLog,
  decisionHasRecentInput,
  inputPrecedesDecision,
  isPrimaryMouseInput,
  isSpaceKeyInput,
  isTouchTapInput,
} from './input-recency.ts'

describe('isPrimaryMouseInput', () => {
  it('counts a primary mouse press and release', () => {
    expect(isPrimaryMouseInput({ type: 'mouseDown', button: 'left' })).toBe(true)
    expect(isPrimaryMouseInput({ type: 'mouseUp', button: 'left' })).toBe(true)
    expect(isPrimaryMouseInput({ type: 'mouseUp' })).toBe(true)
  })

  it('does not count other buttons, moves, keys or touch', () => {
    for (const event of [
      { type: 'mouseDown', button: 'right' },
      { type: 'mouseUp', button: 'middle' },
      { type: 'mouseMove', button: 'left' },
      { type: 'mouseEnter' },
      { type: 'contextMenu' },
      { type: 'keyDown' },
      { type: 'char' },
      { type: 'gestureTap' },
      { type: 'touchEnd' },
      null,
      'mouseDown',
    ]) {
      expect(isPrimaryMouseInput(event), JSON.stringify(event)).toBe(false)
    }
  })
})

describe('isTouchTapInput', () => {
  // Electron reports a tap as touchStart, gestureTapDown, touchEnd and
  // gestureTap ('input-event'; the type names of blink_converter.cc).
  it('counts the end of a tap and the tap gesture', () => {
    expect(isTouchTapInput({ type: 'touchEnd' })).toBe(true)
    expect(isTouchTapInput({ type: 'gestureTap' })).toBe(true)
  })

  it('does not count a touch that starts, moves, scrolls or is held, or a mouse event', () => {
    for (const event of [
      { type: 'touchStart' },
      { type: 'touchMove' },
      { type: 'gestureTapDown' },
      { type: 'gestureScrollBegin' },
      { type: 'gestureLongPress' },
      { type: 'mouseDown', button: 'left' },
      null,
      'gestureTap',
    ]) {
      expect(isTouchTapInput(event), JSON.stringify(event)).toBe(false)
    }
  })
})

describe('TrustedInputLog kinds', () => {
  it('counts a touch tap in every window, so a tap can allow', () => {
    for (const kinds of ['pointer', 'pointer-and-space'] as const) {
      const log = new TrustedInputLog(kinds)
      log.record({ type: 'gestureTap' }, 40)
      expect(log.lastInputAtMs, kinds).toBe(40)
      expect(
        decisionHasRecentInput({
          answer: 'allow-once',
          lastInputAtMs: log.lastInputAtMs,
          decisionAtMs: 90,
        }),
      ).toBe(true)
    }
  })

  it('counts no key where only pointer presses count (the workbench, where people type)', () => {
    const log = new TrustedInputLog('pointer')
    log.record({ type: 'keyUp', key: ' ', code: 'Space' }, 10)
    log.record({ type: 'keyDown', key: 'Enter', code: 'Enter' }, 11)
    expect(log.lastInputAtMs).toBeUndefined()
    log.record({ type: 'mouseUp', button: 'left' }, 12)
    expect(log.lastInputAtMs).toBe(12)
  })
})

describe('isSpaceKeyInput', () => {
  it('counts a Space key press or release: a keyboard activation', () => {
    // The shape Electron's 'input-event' reports (blink_converter.cc).
    for (const type of ['rawKeyDown', 'keyDown', 'keyUp']) {
      expect(isSpaceKeyInput({ type, key: ' ', code: 'Space' }), type).toBe(true)
    }
    // A layout that puts Space elsewhere still types ' '; the physical key
    // is still Space where a layout types something else on it.
    expect(isSpaceKeyInput({ type: 'keyUp', key: ' ', code: 'Digit0' })).toBe(true)
    expect(isSpaceKeyInput({ type: 'keyUp', key: 'Unidentified', code: 'Space' })).toBe(true)
  })

  it("does not take sendInputEvent's keyCode for a reported key", () => {
    // Electron never sets keyCode on an event it reports; a double that
    // does must not make an Enter count as Space.
    expect(isSpaceKeyInput({ type: 'keyUp', keyCode: 'Space', key: 'Enter', code: 'Enter' })).toBe(
      false,
    )
    expect(isSpaceKeyInput({ type: 'keyUp', keyCode: 'Space' })).toBe(false)
  })

  it('does not count Enter, a key with no code, a typed character or a mouse event', () => {
    for (const event of [
      { type: 'keyDown', key: 'Enter', code: 'Enter' },
      { type: 'keyUp', key: 'Enter', code: 'NumpadEnter' },
      { type: 'keyDown' },
      { type: 'char', key: ' ', code: 'Space' },
      { type: 'mouseDown', key: ' ', code: 'Space' },
      null,
      'keyDown',
    ]) {
      expect(isSpaceKeyInput(event), JSON.stringify(event)).toBe(false)
    }
  })
})

describe('TrustedInputLog', () => {
  it('keeps the time of a Space key as an activation too', () => {
    const log = new TrustedInputLog()
    log.record({ type: 'keyUp', key: ' ', code: 'Space' }, 2_000)
    log.record({ type: 'keyUp', key: 'Enter', code: 'Enter' }, 2_100)
    expect(log.lastInputAtMs).toBe(2_000)
  })

  it('keeps the time of the last primary press or release only', () => {
    const log = new TrustedInputLog()
    expect(log.lastInputAtMs).toBeUndefined()
    log.record({ type: 'mouseDown', button: 'left' }, 1_000)
    log.record({ type: 'mouseUp', button: 'left' }, 1_080)
    log.record({ type: 'mouseMove' }, 1_500)
    log.record({ type: 'keyDown' }, 1_600)
    log.record({ type: 'mouseDown', button: 'right' }, 1_700)
    expect(log.lastInputAtMs).toBe(1_080)
  })

  it('ignores a time that is not a finite number', () => {
    const log = new TrustedInputLog()
    log.record({ type: 'mouseUp', button: 'left' }, Number.NaN)
    expect(log.lastInputAtMs).toBeUndefined()
  })
})

describe('inputPrecedesDecision', () => {
  it('accepts a decision within the limit after the input, bounds included', () => {
    expect(inputPrecedesDecision(10_000, 10_000)).toBe(true)
    expect(inputPrecedesDecision(10_000, 10_050)).toBe(true)
    expect(inputPrecedesDecision(10_000, 10_000 + MAX_INPUT_TO_DECISION_MS)).toBe(true)
  })

  it('refuses a decision that comes later than the limit', () => {
    expect(inputPrecedesDecision(10_000, 10_001 + MAX_INPUT_TO_DECISION_MS)).toBe(false)
  })

  it('refuses when there was no trusted input at all', () => {
    expect(inputPrecedesDecision(undefined, 10_000)).toBe(false)
  })

  it('refuses an input that claims to come after the decision', () => {
    expect(inputPrecedesDecision(10_001, 10_000)).toBe(false)
  })

  it('refuses times that are not finite', () => {
    expect(inputPrecedesDecision(Number.NaN, 10_000)).toBe(false)
    expect(inputPrecedesDecision(10_000, Number.POSITIVE_INFINITY)).toBe(false)
  })

  it('uses the limit it is given', () => {
    expect(inputPrecedesDecision(10_000, 10_300, 200)).toBe(false)
    expect(inputPrecedesDecision(10_000, 10_200, 200)).toBe(true)
  })

  it('allows one second between the input and the decision', () => {
    expect(MAX_INPUT_TO_DECISION_MS).toBe(1_000)
  })
})

describe('decisionHasRecentInput', () => {
  it('needs a recent click for every widening answer', () => {
    for (const answer of ['allow-once', 'allow-always', 'confirm']) {
      expect(
        decisionHasRecentInput({ answer, lastInputAtMs: undefined, decisionAtMs: 5_000 }),
        answer,
      ).toBe(false)
      expect(
        decisionHasRecentInput({ answer, lastInputAtMs: 1_000, decisionAtMs: 5_000 }),
        answer,
      ).toBe(false)
      expect(
        decisionHasRecentInput({ answer, lastInputAtMs: 4_900, decisionAtMs: 5_000 }),
        answer,
      ).toBe(true)
    }
  })

  it('lets deny, decline and cancel through without a click: they never widen anything', () => {
    for (const answer of ['deny', 'decline', 'cancel']) {
      expect(
        decisionHasRecentInput({ answer, lastInputAtMs: undefined, decisionAtMs: 5_000 }),
        answer,
      ).toBe(true)
    }
  })

  it('refuses an answer that is not a string', () => {
    expect(
      decisionHasRecentInput({
        answer: { toString: () => 'deny' },
        lastInputAtMs: 4_900,
        decisionAtMs: 5_000,
      }),
    ).toBe(false)
  })
})

/**
 * The Electron host's window selection, tested on the facts main reports.
 * These machines have no Electron binary: this stands in for running the
 * driver against it, and covers the choice of window, not Playwright's or
 * Electron's behaviour (see "On the Electron host" in docs/qa.md).
 */
import { describe, expect, it } from 'vitest'
import {
  promptWindowAt,
  promptWindowFor,
  visibleConsentWindows,
  workbenchWindow,
  type WindowFacts,
} from './electron-windows.ts'

const consentUrl = 'assent-consent://app/consent/index.html'
const workbench: WindowFacts = { windowId: 1, visible: true, url: 'assent-app://app/index.html' }
// The spare prepared at start, then shown for prompt p1.
const shownSpare: WindowFacts = { windowId: 2, visible: true, url: consentUrl }
// The next spare, created ~500 ms after p1 took the first: hidden, no prompt.
const nextSpare: WindowFacts = { windowId: 3, visible: false, url: consentUrl }

describe("the Electron driver's window selection", () => {
  it('picks the window the prompt was shown in, not the newer hidden spare', () => {
    const opened = [{ promptId: 'p1', windowId: 2 }]
    const windows = [workbench, shownSpare, nextSpare]
    expect(promptWindowAt(opened, 0, windows)).toMatchObject({
      state: 'shown',
      window: { windowId: 2 },
    })
    expect(promptWindowFor(opened, 'p1', windows)).toMatchObject({ window: { windowId: 2 } })
  })

  it('waits while the prompt has no window yet or its window is not shown yet', () => {
    expect(promptWindowAt([], 0, [workbench, nextSpare])).toEqual({ state: 'not-yet' })
    const hidden = [{ promptId: 'p1', windowId: 3 }]
    expect(promptWindowAt(hidden, 0, [workbench, nextSpare]).state).toBe('hidden')
    expect(promptWindowFor(hidden, 'p2', [workbench, nextSpare])).toEqual({ state: 'not-yet' })
  })

  it('reports a prompt whose window is already gone as closed', () => {
    const opened = [{ promptId: 'p1', windowId: 2 }]
    expect(promptWindowAt(opened, 0, [workbench, nextSpare])).toMatchObject({
      state: 'closed',
      record: { promptId: 'p1' },
    })
  })

  it('takes the second prompt in order, whatever order main lists windows in', () => {
    const opened = [
      { promptId: 'p1', windowId: 2 },
      { promptId: 'p2', windowId: 3 },
    ]
    const windows = [{ ...nextSpare, visible: true }, workbench, shownSpare]
    expect(promptWindowAt(opened, 1, windows)).toMatchObject({ window: { windowId: 3 } })
  })

  it('counts only protected windows handed to a prompt and visible, never the spare', () => {
    const opened = [{ promptId: 'p1', windowId: 2 }]
    expect(visibleConsentWindows(opened, [workbench, shownSpare, nextSpare])).toEqual([shownSpare])
    // A spare that somehow became visible is still no prompt's window.
    expect(visibleConsentWindows([], [workbench, { ...nextSpare, visible: true }])).toEqual([])
    expect(visibleConsentWindows(opened, [workbench, { ...shownSpare, visible: false }])).toEqual(
      [],
    )
  })

  it('identifies the workbench by the id main gives, never by order or a protected window', () => {
    const windows = [nextSpare, shownSpare, workbench]
    expect(workbenchWindow(1, [], windows)).toBe(workbench)
    expect(workbenchWindow(undefined, [], windows)).toBeUndefined()
    expect(workbenchWindow(2, [{ promptId: 'p1', windowId: 2 }], windows)).toBeUndefined()
    expect(workbenchWindow(9, [], windows)).toBeUndefined()
  })
})

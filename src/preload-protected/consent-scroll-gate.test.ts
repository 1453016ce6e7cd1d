// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest'
import type { ConsentView } from '../common/consent-view.ts'
import { CONSENT_PAGE_IDS } from './consent-page-ids.ts'
import {
  DELAY_MS,
  approvalView,
  buttonFor,
  byId,
  click,
  clock,
  inbox,
  modeChangeView,
  sent,
  start,
  useConsentPage,
} from './test-support/consent-page-harness.ts'

// What each view keeps disabled until its end has been scrolled into view.
// happy-dom lays nothing out, so the scrolling area and the element that
// marks the view's end are given their places by hand, as Chromium would
// give them to a view taller than the window (tests/consent-keyboard.test.ts
// scrolls the real page).
useConsentPage()

/** The scrolling area's bottom edge, and where the view's end is drawn. */
function layOut(end: HTMLElement, endBottom: () => number) {
  const content = byId(CONSENT_PAGE_IDS.content)
  const rect = (bottom: number) => ({
    top: 0,
    bottom,
    left: 0,
    right: 500,
    width: 500,
    height: bottom,
  })
  content.getBoundingClientRect = () => rect(400) as DOMRect
  end.getBoundingClientRect = () => rect(endBottom()) as DOMRect
  return content
}

const webhookView = (): ConsentView => ({
  subject: 'approver-webhook',
  promptId: 'prompt-3',
  roomLabel: 'Design review',
  url: 'https://approver.example/hook',
  currentUrl: null,
  timeoutSeconds: 30,
  lang: 'en',
  theme: 'light',
  enableDelayMs: DELAY_MS,
})

const ROWS: ReadonlyArray<{
  name: string
  view: () => ConsentView
  end: string
  gated: 'confirm' | 'allow-once'
  open: 'cancel' | 'deny'
}> = [
  {
    name: 'a mode change to full access',
    view: modeChangeView,
    end: CONSENT_PAGE_IDS.modeChangeSection,
    gated: 'confirm',
    open: 'cancel',
  },
  {
    name: 'a mode change that accepts a replaced folder and seals the room again',
    view: () => ({
      ...modeChangeView(),
      toMode: 'ask-for-approval',
      fromMode: 'full-access',
      workspace: '/home/ada/project',
      acceptsReplacedWorkspace: true,
      resealsRoom: true,
    }),
    end: CONSENT_PAGE_IDS.modeChangeSection,
    gated: 'confirm',
    open: 'cancel',
  },
  {
    name: 'setting an approver webhook',
    view: webhookView,
    end: CONSENT_PAGE_IDS.webhookSection,
    gated: 'confirm',
    open: 'cancel',
  },
  {
    name: 'an approval',
    view: () => approvalView(),
    end: CONSENT_PAGE_IDS.actionEnd,
    gated: 'allow-once',
    open: 'deny',
  },
]

describe('the scroll gate', () => {
  for (const row of ROWS) {
    it(`keeps ${row.gated} of ${row.name} off until its end has been in view, and says so`, () => {
      let endBottom = 900
      const content = layOut(byId(row.end), () => endBottom)
      start()
      inbox.deliver(row.view())
      clock.advance(DELAY_MS)
      expect(buttonFor(row.open).disabled).toBe(false)
      expect(buttonFor(row.gated).disabled).toBe(true)
      const cue = byId(CONSENT_PAGE_IDS.scrollCue)
      expect(cue.hidden).toBe(false)
      expect(cue.textContent).toContain('scrolled to')
      click(buttonFor(row.gated))
      expect(sent).toEqual([])

      endBottom = 400
      content.dispatchEvent(new Event('scroll'))
      expect(buttonFor(row.gated).disabled).toBe(false)
      expect(cue.hidden).toBe(true)
      click(buttonFor(row.gated))
      expect(sent.map((message) => message.answer)).toEqual([row.gated])
    })
  }

  it('gates nothing of a view that fits, and says nothing', () => {
    layOut(byId(CONSENT_PAGE_IDS.modeChangeSection), () => 380)
    start()
    inbox.deliver(modeChangeView())
    clock.advance(DELAY_MS)
    expect(buttonFor('confirm').disabled).toBe(false)
    expect(byId(CONSENT_PAGE_IDS.scrollCue).hidden).toBe(true)
  })

  // The Electron host draws the view in its hidden window, then places the
  // window, shrinking it to fit a small screen, and only then shows it.
  for (const row of ROWS) {
    it(`measures ${row.name} only once shown: a window shrunk after drawing keeps ${row.gated} off`, () => {
      const visibility = vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('hidden')
      let endBottom = 380
      const content = layOut(byId(row.end), () => endBottom)
      start()
      inbox.deliver(row.view())
      // Placed: the window is shorter than it was drawn, and the end falls
      // below the buttons' edge. Then shown.
      endBottom = 460
      visibility.mockReturnValue('visible')
      document.dispatchEvent(new Event('visibilitychange'))
      clock.advance(DELAY_MS)
      expect(buttonFor(row.open).disabled).toBe(false)
      expect(buttonFor(row.gated).disabled).toBe(true)
      expect(byId(CONSENT_PAGE_IDS.scrollCue).hidden).toBe(false)
      click(buttonFor(row.gated))
      expect(sent).toEqual([])

      endBottom = 400
      content.dispatchEvent(new Event('scroll'))
      expect(buttonFor(row.gated).disabled).toBe(false)
      click(buttonFor(row.gated))
      expect(sent.map((message) => message.answer)).toEqual([row.gated])
    })
  }
})

// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest'
import { FOOTER_CUT_CLASS, watchFooterRegions } from './footer-scroll-regions.ts'

// happy-dom lays nothing out, so each region's heights are given here;
// tests/consent-footer-bound.test.ts measures the real ones in Chromium.

const region = (scrollHeight: number, clientHeight: number) => {
  const element = document.createElement('div')
  Object.defineProperty(element, 'scrollHeight', { configurable: true, value: scrollHeight })
  Object.defineProperty(element, 'clientHeight', { configurable: true, value: clientHeight })
  document.body.append(element)
  return element
}

const stopped = new AbortController()
afterEach(() => {
  document.body.replaceChildren()
})

describe('footer regions whose text may not fit', () => {
  it('marks a region that does not fit as cut and makes it a tab stop; leaves one that fits alone', () => {
    const cut = region(300, 60)
    const fits = region(60, 60)
    watchFooterRegions(window, [cut, fits], stopped.signal)
    expect(cut.classList.contains(FOOTER_CUT_CLASS)).toBe(true)
    expect(cut.getAttribute('tabindex')).toBe('0')
    expect(fits.classList.contains(FOOTER_CUT_CLASS)).toBe(false)
    expect(fits.hasAttribute('tabindex')).toBe(false)
  })

  it('measures again when the window is resized, in both directions', () => {
    const element = region(300, 60)
    const controller = new AbortController()
    watchFooterRegions(window, [element], controller.signal)
    Object.defineProperty(element, 'clientHeight', { configurable: true, value: 300 })
    window.dispatchEvent(new Event('resize'))
    expect(element.classList.contains(FOOTER_CUT_CLASS)).toBe(false)
    expect(element.hasAttribute('tabindex')).toBe(false)
    Object.defineProperty(element, 'clientHeight', { configurable: true, value: 100 })
    window.dispatchEvent(new Event('resize'))
    expect(element.classList.contains(FOOTER_CUT_CLASS)).toBe(true)
    controller.abort()
  })

  it('allows one pixel of fractional layout before calling a region cut', () => {
    const element = region(61, 60)
    watchFooterRegions(window, [element], stopped.signal)
    expect(element.classList.contains(FOOTER_CUT_CLASS)).toBe(false)
  })
})

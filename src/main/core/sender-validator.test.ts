import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isExactPage, pageOf, validateSender, type ExpectedSender } from './sender-validator.ts'

const PAGE_URL = 'assent-consent://consent/index.html'
const WINDOW_ID = 7

/** Frames and events shaped like Electron's `WebFrameMain` and
 *  `IpcMainEvent`; the Electron binary itself cannot run here. */
interface FakeFrame {
  url: string
  parent: FakeFrame | null
}

function setup(url = PAGE_URL) {
  const mainFrame: FakeFrame = { url, parent: null }
  const expected: ExpectedSender = {
    webContentsId: WINDOW_ID,
    mainFrame: () => mainFrame,
    ...pageOf(PAGE_URL),
  }
  const event = (overrides: { id?: unknown; frame?: unknown } = {}) => ({
    sender: { id: 'id' in overrides ? overrides.id : WINDOW_ID },
    senderFrame: 'frame' in overrides ? overrides.frame : mainFrame,
  })
  return { mainFrame, expected, event }
}

function verdictFor(url: string) {
  const { expected, event } = setup(url)
  return validateSender({ event: event(), expected })
}

describe('validateSender', () => {
  it("accepts the expected window's main frame on the exact page", () => {
    const { expected, event } = setup()
    expect(validateSender({ event: event(), expected })).toEqual({ ok: true })
  })

  it('refuses a message from another webContents', () => {
    const { expected, event } = setup()
    const verdict = validateSender({ event: event({ id: WINDOW_ID + 1 }), expected })
    expect(verdict).toEqual({ ok: false, reason: 'sender is webContents 8, not 7' })
  })

  it('refuses a sender id that is not a number, even when it looks equal', () => {
    const { expected, event } = setup()
    expect(validateSender({ event: event({ id: '7' }), expected }).ok).toBe(false)
    expect(validateSender({ event: event({ id: undefined }), expected }).ok).toBe(false)
  })

  it('refuses an event without a sender', () => {
    const { expected, mainFrame } = setup()
    expect(validateSender({ event: { senderFrame: mainFrame }, expected }).ok).toBe(false)
    expect(validateSender({ event: null, expected }).ok).toBe(false)
  })

  it('refuses a null or missing sender frame (navigated away or destroyed)', () => {
    const { expected, event } = setup()
    expect(validateSender({ event: event({ frame: null }), expected })).toEqual({
      ok: false,
      reason: 'no sender frame',
    })
    expect(validateSender({ event: event({ frame: undefined }), expected }).ok).toBe(false)
  })

  it('refuses a subframe on the exact page', () => {
    const { expected, event, mainFrame } = setup()
    const subframe: FakeFrame = { url: PAGE_URL, parent: mainFrame }
    expect(validateSender({ event: event({ frame: subframe }), expected })).toEqual({
      ok: false,
      reason: 'sender is a subframe, not the main frame',
    })
  })

  it('refuses a frame whose parent is not stated as null', () => {
    const { expected, event } = setup()
    const frame = { url: PAGE_URL }
    expect(validateSender({ event: event({ frame }), expected }).ok).toBe(false)
  })

  it("refuses a top-level frame that is not the window's current main frame", () => {
    const { expected, event } = setup()
    const stale: FakeFrame = { url: PAGE_URL, parent: null }
    expect(validateSender({ event: event({ frame: stale }), expected })).toEqual({
      ok: false,
      reason: "sender frame is not the window's current main frame",
    })
  })

  it('refuses when the expected webContents id is missing', () => {
    const { expected, event } = setup()
    const verdict = validateSender({
      event: event(),
      expected: { ...expected, webContentsId: Number.NaN },
    })
    expect(verdict.ok).toBe(false)
  })

  it('refuses look-alike origins and paths', () => {
    for (const url of [
      'assent-consent://consent.evil/index.html',
      'assent-consent://evil/index.html',
      'assent-consent://consent:8080/index.html',
      'assent-consent://consent@evil/index.html',
      'assent-consent://user:pass@consent/index.html',
      'assent-consent://user@consent/index.html',
      'assent://consent.evil/index.html',
      'assent://consent/index.html',
      'assent-app://consent/index.html',
      'https://consent/index.html',
      'http://assent-consent/index.html',
      'file:///index.html',
      'assent-consent://consent/index.html.evil',
      'assent-consent://consent/index.htm',
      'assent-consent://consent/Index.html',
      'assent-consent://consent/index%2Ehtml',
      'assent-consent://consent//index.html',
      'assent-consent://consent/index.html/',
      'assent-consent://consent/',
      'assent-consent://consent/index.html?x=1',
      'assent-consent://consent/index.html?',
      'assent-consent:/consent/index.html',
      'assent-consent:consent/index.html',
    ]) {
      expect(verdictFor(url).ok, url).toBe(false)
    }
  })

  it('refuses about:blank, data:, blob: and javascript: documents', () => {
    for (const url of [
      'about:blank',
      'about:srcdoc',
      'data:text/html,<p>assent-consent://consent/index.html</p>',
      'blob:assent-consent://consent/5d1b8f3e-52f4-4d5b-9f1e-1f2f3a4b5c6d',
      'javascript:void 0',
      '',
      'not a url',
    ]) {
      expect(verdictFor(url).ok, url).toBe(false)
    }
  })

  it('refuses a URL that is not a string', () => {
    const { expected, event } = setup()
    const frameWithoutUrl = { parent: null, url: new URL(PAGE_URL) }
    const verdict = validateSender({
      event: event({ frame: frameWithoutUrl }),
      expected: { ...expected, mainFrame: () => frameWithoutUrl },
    })
    expect(verdict).toEqual({ ok: false, reason: 'sender frame has no URL' })
  })

  it('treats a fragment as the same page', () => {
    expect(verdictFor(`${PAGE_URL}#deny`).ok).toBe(true)
  })

  it('refuses when any getter throws', () => {
    const { expected, mainFrame } = setup()
    const throwing = () => {
      throw new Error('object has been destroyed')
    }
    const cases: unknown[] = [
      Object.defineProperty({ senderFrame: mainFrame }, 'sender', { get: throwing }),
      { sender: Object.defineProperty({}, 'id', { get: throwing }), senderFrame: mainFrame },
      Object.defineProperty({ sender: { id: WINDOW_ID } }, 'senderFrame', { get: throwing }),
    ]
    for (const event of cases) {
      expect(validateSender({ event, expected })).toEqual({
        ok: false,
        reason: 'reading the sender threw: object has been destroyed',
      })
    }
    const urlThrows = Object.defineProperty({ parent: null }, 'url', { get: throwing })
    const parentThrows = Object.defineProperty({ url: PAGE_URL }, 'parent', { get: throwing })
    for (const frame of [urlThrows, parentThrows]) {
      const verdict = validateSender({
        event: { sender: { id: WINDOW_ID }, senderFrame: frame },
        expected: { ...expected, mainFrame: () => frame },
      })
      expect(verdict.ok).toBe(false)
    }
    const destroyedWindow = validateSender({
      event: { sender: { id: WINDOW_ID }, senderFrame: mainFrame },
      expected: { ...expected, mainFrame: throwing },
    })
    expect(destroyedWindow.ok).toBe(false)
  })

  it('refuses every URL other than the exact page (property)', () => {
    const schemes = [
      'assent-consent',
      'ASSENT-CONSENT',
      'assent-app',
      'assent',
      'https',
      'file',
      'blob',
    ]
    const hosts = ['consent', 'CONSENT', 'consent.evil', 'evil', 'consent:1', 'a@consent', '']
    const paths = [
      '/index.html',
      '/index.html/',
      '/Index.html',
      '/',
      '/consent.css',
      '/x/../index.html',
    ]
    const structured = fc
      .tuple(
        fc.constantFrom(...schemes),
        fc.constantFrom('://', ':', ':/', ':///'),
        fc.constantFrom(...hosts),
        fc.constantFrom(...paths),
        fc.constantFrom('', '?', '?a=1'),
      )
      .map((parts) => parts.join(''))
    const mutated = fc
      .tuple(fc.nat(PAGE_URL.length), fc.nat(3), fc.string({ minLength: 0, maxLength: 3 }))
      .map(([at, drop, insert]) => PAGE_URL.slice(0, at) + insert + PAGE_URL.slice(at + drop))
    // The page itself, with and without a same-document fragment: without
    // these, under 3 % of the URLs above are ones the validator accepts.
    const exact = fc
      .constantFrom('', '#', '#top', '#a/b?c')
      .map((fragment) => `${PAGE_URL}${fragment}`)
    const anyUrl = fc.oneof(
      exact,
      structured,
      mutated,
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.string(),
    )
    // Counted, so the property cannot pass by refusing every URL it is
    // given: enough of them must be accepted (and checked) for it to mean
    // anything, and enough refused.
    const tally = { accepted: 0, refused: 0 }
    fc.assert(
      fc.property(anyUrl, (url) => {
        if (!verdictFor(url).ok) {
          tally.refused += 1
          return
        }
        tally.accepted += 1
        // Accepted: then it must be the exact page, up to URL canonicalisation
        // and a same-document fragment.
        expect(new URL(url).href.split('#')[0]).toBe(PAGE_URL)
      }),
      { numRuns: 2_000 },
    )
    expect(tally.accepted).toBeGreaterThan(2_000 / 20)
    expect(tally.refused).toBeGreaterThan(2_000 / 20)
  })
})

describe('pageOf', () => {
  it('splits a page URL into the origin and path the validator compares', () => {
    expect(pageOf('assent-app://workbench/index.html')).toEqual({
      origin: 'assent-app://workbench',
      pathname: '/index.html',
    })
  })

  it('refuses a URL without a host, or with a query or fragment', () => {
    expect(() => pageOf('about:blank')).toThrow('not a page URL')
    expect(() => pageOf('assent-app://workbench/index.html?x')).toThrow('not a page URL')
    expect(() => pageOf('assent-app://workbench/index.html#x')).toThrow('not a page URL')
  })
})

describe('isExactPage', () => {
  const page = pageOf('assent-consent://consent/consent/index.html')

  it('is true for the page itself, with or without a fragment', () => {
    expect(isExactPage('assent-consent://consent/consent/index.html', page)).toBe(true)
    expect(isExactPage('assent-consent://consent/consent/index.html#end', page)).toBe(true)
  })

  it('is false for any other document, compared part by part as a sender is', () => {
    for (const url of [
      'assent-consent://consent/consent/index.html?',
      'assent-consent://consent/consent/index.html?x=1',
      'assent-consent://user:pw@consent/consent/index.html',
      'assent-consent://consent.evil/consent/index.html',
      'assent-consent://consent/consent/index.html.evil',
      'assent-consent://consent/other.html',
      'https://consent/consent/index.html',
      'about:blank',
      'not a url',
    ]) {
      expect(isExactPage(url, page), url).toBe(false)
    }
  })
})

describe('validateSender names why it refused', () => {
  // Each check names its own reason, so a log shows which rule held; a rule
  // silently covered by a later one would show up here with the wrong name.
  it.each<[string, string]>([
    ['assent-consent://user@consent/index.html', 'sender URL has userinfo'],
    ['assent-consent://:secret@consent/index.html', 'sender URL has userinfo'],
    ['assent-consent://user:secret@consent/index.html', 'sender URL has userinfo'],
    ['about:blank', 'sender URL has no host (about:)'],
    ['data:text/html,x', 'sender URL has no host (data:)'],
    [
      'assent-consent://evil/index.html',
      'sender origin is assent-consent://evil, not assent-consent://consent',
    ],
    ['assent-consent://consent/index.htm', 'sender path is /index.htm, not /index.html'],
    ['assent-consent://consent/index.html?x=1', 'sender URL has a query'],
    ['assent-consent://consent/index.html?', 'sender URL is not exactly the page'],
    ['not a url', 'sender URL does not parse'],
  ])('refuses %s: %s', (url, reason) => {
    expect(verdictFor(url)).toEqual({ ok: false, reason })
  })

  it('names a missing expected window, event and sender', () => {
    const { expected, event, mainFrame } = setup()
    expect(
      validateSender({ event: event(), expected: { ...expected, webContentsId: Number.NaN } }),
    ).toEqual({ ok: false, reason: 'no expected webContents' })
    for (const missing of [null, undefined, 'event', 7]) {
      expect(validateSender({ event: missing, expected })).toEqual({
        ok: false,
        reason: 'no IPC event',
      })
    }
    for (const sender of [null, 'webContents', 7]) {
      expect(validateSender({ event: { sender, senderFrame: mainFrame }, expected })).toEqual({
        ok: false,
        reason: 'no sender webContents',
      })
    }
  })

  it('refuses, rather than crashing, when a getter throws something that is not an Error', () => {
    const { expected, mainFrame } = setup()
    for (const thrown of [null, undefined, 'gone']) {
      const event = Object.defineProperty({ senderFrame: mainFrame }, 'sender', {
        get: () => {
          throw thrown
        },
      })
      expect(validateSender({ event, expected })).toEqual({
        ok: false,
        reason: `reading the sender threw: ${String(thrown)}`,
      })
    }
  })

  it('accepts a sender and frame that are callable objects (host proxies), judged by their facts', () => {
    const frame = Object.assign(() => {}, { url: PAGE_URL, parent: null })
    const sender = Object.assign(() => {}, { id: WINDOW_ID })
    const { expected } = setup()
    expect(
      validateSender({
        event: Object.assign(() => {}, { sender, senderFrame: frame }),
        expected: { ...expected, mainFrame: () => frame },
      }),
    ).toEqual({ ok: true })
  })
})

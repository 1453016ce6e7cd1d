import { beforeEach, describe, expect, it, vi } from 'vitest'
import { CONSENT_SITE, WORKBENCH_SITE } from '../src/main/core/page-sites.ts'
import { ElectronProtectedWindowFactory } from '../src/main/electron/protected-window.ts'
import { openWorkbenchWindow } from '../src/main/electron/workbench-window.ts'
import {
  FakeBrowserWindow,
  openedExternally,
  resetFakeElectron,
  sessions,
  type FakeSession,
} from './support/fake-electron.ts'

// No Electron binary exists here, so a recording double of `electron`
// (tests/support/fake-electron.ts) stands in for it. The window and session
// set-up code under test is the real one; the test then calls the handlers it
// registered the way Electron would and checks what they answer.
vi.mock('electron', () => import('./support/fake-electron.ts'))

const SIZE = { width: 560, height: 680 }
const OTHER_URLS = [
  'https://example.com/',
  'http://127.0.0.1:1234/v1/approvals',
  'file:///etc/passwd',
  'data:text/html,<script>1</script>',
  'assent-app://app/workbench/index.html',
  'assent-consent://evil/consent/index.html',
  'assent-consent://user:pw@consent/consent/index.html',
]

beforeEach(() => resetFakeElectron())

function protectedFactory(isPackaged: boolean) {
  return new ElectronProtectedWindowFactory({
    appRoot: '/app',
    isPackaged,
    now: () => 0,
    onDecision: () => {},
  })
}

/** The first consent window and its session, once it has loaded. */
async function openConsentWindow(isPackaged = true) {
  const factory = protectedFactory(isPackaged)
  await factory.open('prompt-1', SIZE)
  factory.close()
  const win = FakeBrowserWindow.created[0]
  const consentSession = sessions[0]
  if (!win || !consentSession) throw new Error('no consent window was created')
  return { win, consentSession }
}

function preventedBy(emit: (event: unknown) => void): boolean {
  const event = { preventDefault: vi.fn(), url: 'https://example.com/' }
  emit(event)
  return event.preventDefault.mock.calls.length > 0
}

function grantsNothing(target: FakeSession) {
  const requested: unknown[] = []
  target.permissionRequestHandler?.({}, 'media', (granted: unknown) => requested.push(granted))
  target.permissionRequestHandler?.({}, 'notifications', (granted: unknown) =>
    requested.push(granted),
  )
  return {
    requested,
    checked: [
      target.permissionCheckHandler?.({}, 'media', 'assent-consent://consent', {}),
      target.permissionCheckHandler?.({}, 'clipboard-read', 'assent-app://app', {}),
    ],
    device: target.devicePermissionHandler?.({ deviceType: 'usb' }),
  }
}

describe('the protected consent window on Electron (electron mocked: no binary here)', () => {
  it('opens each window in its own in-memory session with a random, non-persist name', async () => {
    const factory = protectedFactory(true)
    await factory.open('prompt-1', SIZE)
    await factory.open('prompt-2', SIZE)
    factory.close()
    const names = sessions.map((each) => each.partition)
    expect(names.length).toBeGreaterThanOrEqual(2)
    expect(new Set(names).size).toBe(names.length)
    for (const name of names) {
      expect(name).toMatch(/^assent-consent-[0-9a-f]{8}-[0-9a-f-]{27}$/)
      expect(name.startsWith('persist:')).toBe(false)
    }
    FakeBrowserWindow.created.forEach((win, index) =>
      expect(win.options.webPreferences.session).toBe(sessions[index]),
    )
  })

  it('loads the consent page from its own scheme with the hardened settings', async () => {
    const { win } = await openConsentWindow(true)
    expect(win.loadedUrl).toBe(CONSENT_SITE.pageUrl)
    expect(win.menuRemoved).toBe(true)
    expect(win.options.webPreferences).toMatchObject({
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      nodeIntegrationInWorker: false,
      webviewTag: false,
      webSecurity: true,
      devTools: false,
      spellcheck: false,
      safeDialogs: true,
      disableBlinkFeatures: 'Auxclick',
      preload: '/app/out/preload/protected.cjs',
    })
  })

  it('allows DevTools only in the development build', async () => {
    const { win } = await openConsentWindow(false)
    expect(win.options.webPreferences.devTools).toBe(true)
  })

  it('prevents navigation, redirects, frame navigation and webviews, and denies new windows', async () => {
    const { win, consentSession } = await openConsentWindow()
    const contents = win.webContents
    for (const event of ['will-navigate', 'will-redirect', 'will-frame-navigate']) {
      expect(contents.count(event), event).toBeGreaterThan(0)
      expect(
        preventedBy((e) => contents.emit(event, e)),
        event,
      ).toBe(true)
    }
    expect(preventedBy((e) => contents.emit('will-attach-webview', e, {}, {}))).toBe(true)
    expect(contents.windowOpenHandler?.({ url: 'https://example.com/' })).toEqual({
      action: 'deny',
    })
    expect(preventedBy((e) => consentSession.emit('will-download', e))).toBe(true)
  })

  it('denies every permission request and check', async () => {
    const { consentSession } = await openConsentWindow()
    expect(grantsNothing(consentSession)).toEqual({
      requested: [false, false],
      checked: [false, false],
      device: false,
    })
    expect(consentSession.spellChecker).toBe(false)
  })

  it("cancels every request but the consent page's own files", async () => {
    const { consentSession } = await openConsentWindow()
    expect(consentSession.verdictFor(CONSENT_SITE.pageUrl)).toEqual({ cancel: false })
    expect(consentSession.verdictFor('assent-consent://consent/consent/consent.css')).toEqual({
      cancel: false,
    })
    for (const url of OTHER_URLS) {
      expect(consentSession.verdictFor(url), url).toEqual({ cancel: true })
    }
    expect([...consentSession.protocols.keys()]).toEqual([CONSENT_SITE.scheme])
  })
})

describe('the workbench window on Electron (electron mocked: no binary here)', () => {
  function open(isPackaged = true) {
    let now = 10_000
    const workbench = openWorkbenchWindow({ appRoot: '/app', isPackaged, now: () => now })
    const win = FakeBrowserWindow.created.at(-1)
    const workbenchSession = sessions.at(-1)
    if (!win || !workbenchSession) throw new Error('no workbench window was created')
    return {
      workbench,
      win,
      workbenchSession,
      click: () => win.webContents.emit('input-event', {}, { type: 'mouseDown', button: 'left' }),
      later: (ms: number) => {
        now += ms
      },
    }
  }

  it('is sandboxed and isolated, and loads the app from its own scheme', () => {
    const { win } = open()
    expect(win.loadedUrl).toBe(WORKBENCH_SITE.pageUrl)
    expect(win.options.webPreferences).toMatchObject({
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      nodeIntegrationInWorker: false,
      webviewTag: false,
      webSecurity: true,
      devTools: false,
      preload: '/app/out/preload/workbench.cjs',
    })
  })

  it('never navigates, and opens only a just-clicked http(s) link in the browser', () => {
    const { win, click, later } = open()
    const contents = win.webContents
    for (const event of ['will-navigate', 'will-redirect', 'will-frame-navigate']) {
      expect(
        preventedBy((e) => contents.emit(event, e)),
        event,
      ).toBe(true)
    }
    expect(preventedBy((e) => contents.emit('will-attach-webview', e, {}, {}))).toBe(true)
    // No click: nothing opens.
    expect(contents.windowOpenHandler?.({ url: 'https://example.com/a' })).toEqual({
      action: 'deny',
    })
    contents.emit('will-navigate', { preventDefault: () => {}, url: 'https://example.com/b' })
    expect(openedExternally).toEqual([])
    click()
    expect(contents.windowOpenHandler?.({ url: 'https://example.com/c' })).toEqual({
      action: 'deny',
    })
    contents.emit('will-navigate', { preventDefault: () => {}, url: 'javascript:alert(1)' })
    contents.emit('will-navigate', { preventDefault: () => {}, url: 'file:///etc/passwd' })
    expect(openedExternally).toEqual(['https://example.com/c'])
    later(60_000)
    contents.emit('will-navigate', { preventDefault: () => {}, url: 'https://example.com/d' })
    expect(openedExternally).toEqual(['https://example.com/c'])
  })

  it('denies every permission and cancels every request but its own files', () => {
    const { workbenchSession } = open(true)
    expect(grantsNothing(workbenchSession)).toEqual({
      requested: [false, false],
      checked: [false, false],
      device: false,
    })
    expect(preventedBy((e) => workbenchSession.emit('will-download', e))).toBe(true)
    expect(workbenchSession.verdictFor(WORKBENCH_SITE.pageUrl)).toEqual({ cancel: false })
    for (const url of [
      ...OTHER_URLS.filter((url) => !url.startsWith('assent-app:')),
      'assent-consent://consent/consent/index.html',
      'devtools://devtools/bundled/inspector.html',
    ]) {
      expect(workbenchSession.verdictFor(url), url).toEqual({ cancel: true })
    }
  })

  it("lets DevTools' own pages load only in the development build", () => {
    const { workbenchSession } = open(false)
    expect(workbenchSession.verdictFor('devtools://devtools/bundled/inspector.html')).toEqual({
      cancel: false,
    })
    expect(workbenchSession.verdictFor('https://example.com/')).toEqual({ cancel: true })
  })
})

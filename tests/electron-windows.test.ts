import { beforeEach, describe, expect, it, vi } from 'vitest'
import { IPC } from '../src/common/ipc-channels.ts'
import { CONSENT_SITE, WORKBENCH_SITE } from '../src/main/core/page-sites.ts'
import { approvalView } from '../src/preload-protected/test-support/consent-views.ts'
import { ElectronProtectedWindowFactory } from '../src/main/electron/protected-window.ts'
import { openWorkbenchWindow } from '../src/main/electron/workbench-window.ts'
import {
  FakeBrowserWindow,
  fakeEvent,
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

function protectedFactory(developmentBuild: boolean) {
  return new ElectronProtectedWindowFactory({
    appRoot: '/app',
    developmentBuild,
    now: () => 0,
    onDecision: () => {},
  })
}

/** The first consent window and its session, once it has loaded. */
async function openConsentWindow(developmentBuild = false) {
  const factory = protectedFactory(developmentBuild)
  await factory.open('prompt-1', SIZE)
  factory.close()
  const win = FakeBrowserWindow.created[0]
  const consentSession = sessions[0]
  if (!win || !consentSession) throw new Error('no consent window was created')
  return { win, consentSession }
}

function preventedBy(emit: (event: unknown) => void): boolean {
  const event = fakeEvent({ url: 'https://example.com/' })
  emit(event)
  return event.defaultPrevented
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

/** Every way a page can try to leave or reshape its window, as Electron
 *  reports each (tests/support/fake-electron.ts follows its source). */
function escapeAttempts(win: FakeBrowserWindow) {
  const contents = win.webContents
  const before = { ...win.bounds }
  const outcome = {
    mainFrame: contents.navigate('https://example.com/a'),
    subframe: contents.navigate('https://example.com/frame', { isMainFrame: false }),
    sameApp: contents.navigate(String(win.loadedUrl)),
    redirect: contents.redirect('https://example.com/r'),
    windowOpen: contents.open('https://example.com/w'),
    webview: preventedBy((e) => contents.emit('will-attach-webview', e, {}, {})),
    moved: false,
  }
  contents.requestContentBounds({ x: -5_000, y: -5_000, width: 10, height: 10 })
  outcome.moved = JSON.stringify(win.bounds) !== JSON.stringify(before)
  return outcome
}

const NO_ESCAPE = {
  mainFrame: 'cancelled',
  subframe: 'cancelled',
  sameApp: 'cancelled',
  redirect: 'cancelled',
  windowOpen: { action: 'deny' },
  webview: true,
  moved: false,
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
  it('gives live windows distinct in-memory sessions with random, non-persist names', async () => {
    const factory = protectedFactory(false)
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

  it("reuses a closed window's session only after clearing it, so prompts do not grow memory", async () => {
    const factory = protectedFactory(false)
    for (let prompt = 0; prompt < 50; prompt += 1) {
      const window = await factory.open(`prompt-${prompt}`, SIZE)
      window.close()
      await settle()
    }
    factory.close()
    expect(FakeBrowserWindow.created).toHaveLength(50)
    // Electron never frees a session (its context map empties only at
    // shutdown), so the count of sessions is what memory follows.
    expect(sessions).toHaveLength(1)
    expect(sessions[0]?.cleared).toEqual({ data: 50, authCache: 50 })
  })

  it('never lets a session that could not be cleared serve another window', async () => {
    const factory = protectedFactory(false)
    const first = await factory.open('prompt-1', SIZE)
    sessions[0]!.failNextClear = true
    first.close()
    await settle()
    await factory.open('prompt-2', SIZE)
    factory.close()
    expect(sessions).toHaveLength(2)
    expect(FakeBrowserWindow.created[1]?.options.webPreferences.session).toBe(sessions[1])
  })

  it('loads the consent page from its own scheme with the hardened settings', async () => {
    const { win } = await openConsentWindow(false)
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
    const { win } = await openConsentWindow(true)
    expect(win.options.webPreferences.devTools).toBe(true)
  })

  it('cancels every navigation, redirect, new window, webview and self-move, and refuses downloads', async () => {
    const { win, consentSession } = await openConsentWindow()
    expect(escapeAttempts(win)).toEqual(NO_ESCAPE)
    expect(win.webContents.navigated).toEqual([])
    expect(preventedBy((e) => consentSession.emit('will-download', e))).toBe(true)
  })

  it('keeps WebRTC off the direct UDP path', async () => {
    const { win } = await openConsentWindow()
    expect(win.webContents.getWebRTCIPHandlingPolicy()).toBe('disable_non_proxied_udp')
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

describe('what the protected window tells main on Electron (electron mocked: no binary here)', () => {
  /** A consent window handed to a prompt, its BrowserWindow, and the
   *  decisions it passed on to main's controller. */
  async function prompted() {
    const decisions: string[] = []
    let clock = 10_000
    const factory = new ElectronProtectedWindowFactory({
      appRoot: '/app',
      developmentBuild: false,
      now: () => clock,
      onDecision: (_promptId, answer) => decisions.push(answer),
    })
    const window = await factory.open('prompt-1', SIZE)
    factory.close()
    const win = FakeBrowserWindow.created[0]
    if (!win) throw new Error('no consent window was created')
    const decide = (answer: string) =>
      win.webContents.ipc.emit(
        IPC.consentDecide,
        { sender: { id: win.webContents.id }, senderFrame: win.webContents.mainFrame },
        { promptId: 'prompt-1', answer },
      )
    const tick = (ms: number) => {
      clock += ms
    }
    return { window, win, decisions, decide, tick }
  }

  it('tells main each time the window gains focus', async () => {
    const { window, win } = await prompted()
    let focused = 0
    window.onFocused?.(() => (focused += 1))
    win.emit('focus')
    win.emit('focus')
    expect(focused).toBe(2)
  })

  it('reports a reload only after the prompt was shown, and only once the page has loaded', async () => {
    const { window, win } = await prompted()
    const resets: boolean[] = []
    window.onPageReset?.((onConsentPage) => resets.push(onConsentPage))
    // The spare's own first load, before any prompt was shown, is no reset.
    win.webContents.reload()
    expect(resets).toEqual([])
    await window.show(approvalView())
    win.webContents.emit('did-navigate', fakeEvent(), CONSENT_SITE.pageUrl, 200, 'OK')
    expect(resets).toEqual([])
    win.webContents.emit('did-finish-load', fakeEvent())
    expect(resets).toEqual([true])
  })

  it('reports leaving the consent page, or losing its renderer, as a reset off the page', async () => {
    const { window, win } = await prompted()
    const resets: boolean[] = []
    window.onPageReset?.((onConsentPage) => resets.push(onConsentPage))
    await window.show(approvalView())
    for (const url of OTHER_URLS) {
      win.webContents.emit('did-navigate', fakeEvent(), url, 200, 'OK')
    }
    win.webContents.emit('render-process-gone', fakeEvent(), { reason: 'crashed' })
    expect(resets).toEqual([...OTHER_URLS.map(() => false), false])
    // A document that finished loading anywhere but the consent page is no
    // way back to the prompt.
    win.webContents.mainFrame.url = 'https://example.com/'
    win.webContents.emit('did-finish-load', fakeEvent())
    expect(resets).toHaveLength(OTHER_URLS.length + 1)
  })

  it('passes on an allow after a Space key as Electron reports it, and refuses one after Enter', async () => {
    const { window, win, decisions, decide, tick } = await prompted()
    await window.show(approvalView())
    const key = (key: string, code: string) =>
      win.webContents.emit('input-event', fakeEvent(), { type: 'keyUp', key, code })
    key('Enter', 'Enter')
    tick(50)
    decide('allow-once')
    expect(decisions).toEqual([])
    key(' ', 'Space')
    tick(50)
    decide('allow-once')
    expect(decisions).toEqual(['allow-once'])
  })
})

describe('the workbench window on Electron (electron mocked: no binary here)', () => {
  function open(developmentBuild = false) {
    const workbench = openWorkbenchWindow({ appRoot: '/app', developmentBuild })
    const win = FakeBrowserWindow.created.at(-1)
    const workbenchSession = sessions.at(-1)
    if (!win || !workbenchSession) throw new Error('no workbench window was created')
    return { workbench, win, workbenchSession }
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

  it('never navigates, moves itself or opens anything, in the app or outside it, even right after a click', () => {
    const { win } = open()
    const click = () =>
      win.webContents.emit('input-event', fakeEvent(), { type: 'mouseDown', button: 'left' })
    click()
    expect(escapeAttempts(win)).toEqual(NO_ESCAPE)
    click()
    for (const url of ['https://example.com/', 'mailto:a@example.com', 'file:///etc/passwd']) {
      expect(win.webContents.open(url)).toEqual({ action: 'deny' })
      expect(win.webContents.navigate(url)).toBe('cancelled')
    }
    expect(win.webContents.navigated).toEqual([])
    expect(openedExternally).toEqual([])
  })

  it('keeps WebRTC off the direct UDP path', () => {
    const { win } = open()
    expect(win.webContents.getWebRTCIPHandlingPolicy()).toBe('disable_non_proxied_udp')
  })

  it('denies every permission and cancels every request but its own files', () => {
    const { workbenchSession } = open(false)
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
    const { win, workbenchSession } = open(true)
    expect(win.options.webPreferences.devTools).toBe(true)
    expect(workbenchSession.verdictFor('devtools://devtools/bundled/inspector.html')).toEqual({
      cancel: false,
    })
    expect(workbenchSession.verdictFor('https://example.com/')).toEqual({ cancel: true })
  })
})

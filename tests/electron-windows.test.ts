import { beforeEach, describe, expect, it, vi } from 'vitest'
import { IPC } from '../src/common/ipc-channels.ts'
import { CONSENT_SITE, WORKBENCH_SITE } from '../src/main/core/page-sites.ts'
import { approvalView } from '../src/preload-protected/test-support/consent-views.ts'
import { ElectronProtectedWindowFactory } from '../src/main/electron/protected-window.ts'
import {
  MAX_WORKBENCH_RELOADS,
  openWorkbenchWindow,
} from '../src/main/electron/workbench-window.ts'
import {
  FakeBrowserWindow,
  fakeDisplays,
  fakeEvent,
  openedExternally,
  resetFakeElectron,
  sessions,
  settled,
  type FakeSession,
} from './support/fake-electron.ts'
import { drawViews, mainFrameEvent } from './support/electron-consent-page.ts'

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

/** The first protected window and its session, once it has loaded. */
async function openConsentWindow(developmentBuild = false) {
  const factory = protectedFactory(developmentBuild)
  await factory.open('prompt-1', SIZE)
  factory.close()
  const win = FakeBrowserWindow.created[0]
  const consentSession = sessions[0]
  if (!win || !consentSession) throw new Error('no protected window was created')
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

describe('the protected window on Electron (electron mocked: no binary here)', () => {
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
  /** A protected window handed to a prompt, its BrowserWindow, and the
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
    if (!win) throw new Error('no protected window was created')
    drawViews(win)
    const decide = (answer: string) =>
      win.webContents.ipc.emit(IPC.consentDecide, mainFrameEvent(win), {
        promptId: 'prompt-1',
        answer,
      })
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
    // A load before any prompt was shown is no reset.
    win.webContents.reload()
    await settled()
    expect(resets).toEqual([])
    await window.show(approvalView())
    let navigated = false
    win.webContents.once('did-navigate', () => {
      navigated = true
      // Committed, not loaded yet: the view would not reach the preload.
      expect(resets).toEqual([])
    })
    win.webContents.reload()
    await settled()
    expect(navigated).toBe(true)
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
    const key = (key: string, code: string) => win.webContents.input({ type: 'keyUp', key, code })
    key('Enter', 'Enter')
    tick(50)
    decide('allow-once')
    expect(decisions).toEqual([])
    key(' ', 'Space')
    tick(50)
    decide('allow-once')
    expect(decisions).toEqual(['allow-once'])
  })

  it('passes on an allow after a touch tap, and a decline with no press at all', async () => {
    const { window, win, decisions, decide, tick } = await prompted()
    await window.show(approvalView())
    tick(5_000)
    decide('decline')
    win.webContents.input({ type: 'gestureTap' })
    tick(50)
    decide('allow-once')
    expect(decisions).toEqual(['decline', 'allow-once'])
  })

  it('tells the page when it refuses a decision, so the page re-arms its buttons', async () => {
    const { window, win, decisions, decide } = await prompted()
    await window.show(approvalView())
    decide('allow-once')
    expect(decisions).toEqual([])
    expect(win.webContents.sent.filter(([channel]) => channel === IPC.consentRefused)).toEqual([
      [IPC.consentRefused, { promptId: 'prompt-1' }],
    ])
  })

  it('keeps the window hidden until the page reports the view drawn, and times from that report', async () => {
    const { window, win, tick } = await prompted()
    win.webContents.onSend = undefined
    const showing = window.show(approvalView())
    await settled()
    expect(win.isVisible()).toBe(false)
    tick(120)
    // A report from another prompt, or not from the main frame, is no report.
    win.webContents.ipc.emit(IPC.consentDrawn, mainFrameEvent(win), { promptId: 'another' })
    win.webContents.ipc.emit(
      IPC.consentDrawn,
      {
        sender: { id: win.webContents.id },
        senderFrame: { url: CONSENT_SITE.pageUrl, parent: {} },
      },
      { promptId: 'prompt-1' },
    )
    await settled()
    expect(win.isVisible()).toBe(false)
    win.webContents.ipc.emit(IPC.consentDrawn, mainFrameEvent(win), { promptId: 'prompt-1' })
    await expect(showing).resolves.toEqual({ drawnAtMs: 10_120 })
    expect([win.isVisible(), win.isFocused()]).toEqual([true, true])
  })

  it('shows the window anyway, without waiting for ever, when the page never reports', async () => {
    const factory = new ElectronProtectedWindowFactory({
      appRoot: '/app',
      developmentBuild: false,
      now: () => 7,
      onDecision: () => {},
      viewDrawnTimeoutMs: 1,
    })
    const window = await factory.open('prompt-1', SIZE)
    factory.close()
    await expect(window.show(approvalView())).resolves.toEqual({ drawnAtMs: 7 })
    expect(FakeBrowserWindow.created[0]?.isVisible()).toBe(true)
  })

  it('shows a review that may not take focus inactive, flashing, and focus stays where it was', async () => {
    const { window, win } = await prompted()
    const front = new FakeBrowserWindow({ webPreferences: {} })
    await window.show(approvalView(), { activate: false })
    expect([win.isVisible(), win.isFocused(), front.isFocused()]).toEqual([true, false, true])
    expect(win.flashes).toEqual([true])
    window.requestAttention?.()
    expect(win.flashes).toEqual([true, true])
    win.focus()
    await settled()
    expect(win.flashes).toEqual([true, true, false])
  })
})

describe('where a protected window opens (electron mocked: no binary here)', () => {
  it("is the workbench's child, on the workbench's display, sized to fit its work area", async () => {
    fakeDisplays.push(
      {
        id: 1,
        bounds: { x: 0, y: 0, width: 1920, height: 1080 },
        workArea: { x: 0, y: 0, width: 1920, height: 1040 },
      },
      {
        id: 2,
        bounds: { x: 1920, y: 0, width: 1366, height: 768 },
        workArea: { x: 1920, y: 0, width: 1366, height: 620 },
      },
    )
    const workbench = new FakeBrowserWindow({ webPreferences: {} })
    workbench.setBounds({ x: 2000, y: 50, width: 1200, height: 560 })
    const factory = new ElectronProtectedWindowFactory({
      appRoot: '/app',
      developmentBuild: false,
      now: () => 0,
      onDecision: () => {},
      parent: () => workbench as never,
    })
    const window = await factory.open('prompt-1', SIZE)
    factory.close()
    const win = FakeBrowserWindow.created.at(-1)!
    drawViews(win)
    await window.show(approvalView())
    expect(win.getParentWindow()).toBe(workbench)
    const bounds = win.getBounds()
    expect(bounds.height).toBe(620)
    expect(bounds.x).toBeGreaterThanOrEqual(1920)
    expect(bounds.x + bounds.width).toBeLessThanOrEqual(1920 + 1366)
    expect(bounds.y + bounds.height).toBeLessThanOrEqual(620)
  })

  it('keeps its content out of screen capture', async () => {
    const { win } = await openConsentWindow()
    expect(win.contentProtected).toBe(true)
  })
})

describe('spare protected windows on Electron (electron mocked: no binary here)', () => {
  it('closes a spare whose renderer crashed before any prompt, and never hands it out', async () => {
    const factory = protectedFactory(false)
    factory.warm(SIZE)
    await settled(20)
    const spare = FakeBrowserWindow.created[0]!
    let allClosed = 0
    const { app } = await import('./support/fake-electron.ts')
    app.on('window-all-closed', () => (allClosed += 1))
    await spare.webContents.crash()
    await settled()
    expect(spare.isDestroyed()).toBe(true)
    // Nothing else was open: the app may quit now.
    expect(allClosed).toBe(1)
    await factory.open('prompt-1', SIZE)
    factory.close()
    expect(FakeBrowserWindow.created).toHaveLength(2)
  })

  it('prepares no spare while a prompt is open, and one once it has closed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      const factory = protectedFactory(false)
      const window = await factory.open('prompt-1', SIZE)
      await vi.advanceTimersByTimeAsync(5_000)
      expect(FakeBrowserWindow.created).toHaveLength(1)
      window.close()
      await settled()
      await vi.advanceTimersByTimeAsync(0)
      expect(FakeBrowserWindow.created).toHaveLength(2)
      factory.close()
    } finally {
      vi.useRealTimers()
    }
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

  it('has no spellchecker in its session', () => {
    const { workbenchSession } = open()
    expect(workbenchSession.spellChecker).toBe(false)
  })

  it('stays hidden until its page is ready to show', async () => {
    const { win } = open()
    expect(win.isVisible()).toBe(false)
    await settled(10)
    expect(win.isVisible()).toBe(true)
  })

  it('loads its page again when its renderer is gone, a bounded number of times in a row', async () => {
    const { workbench, win } = open()
    await settled(10)
    const firstFrame = win.webContents.mainFrame
    await win.webContents.crash()
    await settled(10)
    expect(win.webContents.isCrashed()).toBe(false)
    expect(win.webContents.mainFrame).not.toBe(firstFrame)
    expect(win.webContents.mainFrame.url).toBe(WORKBENCH_SITE.pageUrl)
    // A page that crashes every time it loads is not loaded for ever...
    let loads = 0
    const crashOnLoad = () => {
      loads += 1
      void win.webContents.crash()
    }
    win.webContents.on('did-navigate', crashOnLoad)
    await win.webContents.crash()
    await settled(40)
    expect(loads).toBe(MAX_WORKBENCH_RELOADS)
    expect(win.webContents.isCrashed()).toBe(true)
    // ...and bringing the window forward tries again.
    win.webContents.off('did-navigate', crashOnLoad)
    workbench.revive()
    await settled(10)
    expect(win.webContents.isCrashed()).toBe(false)
  })

  it('records a pointer press or tap as the time of the last press, and no key', () => {
    let clock = 100
    const workbench = openWorkbenchWindow({
      appRoot: '/app',
      developmentBuild: false,
      now: () => clock,
    })
    const win = FakeBrowserWindow.created.at(-1)!
    win.webContents.input({ type: 'keyUp', key: ' ', code: 'Space' })
    expect(workbench.lastPressAtMs()).toBeUndefined()
    clock = 200
    win.webContents.input({ type: 'gestureTap' })
    expect(workbench.lastPressAtMs()).toBe(200)
    clock = 300
    win.webContents.input({ type: 'mouseDown', button: 'left' })
    expect(workbench.lastPressAtMs()).toBe(300)
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

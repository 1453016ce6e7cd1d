import { beforeEach, describe, expect, it } from 'vitest'
import {
  DEFAULT_APPLICATION_MENU,
  FakeBrowserWindow,
  FakeWebContents,
  Menu,
  app,
  type FakeEvent,
  fakePlatform,
  resetFakeElectron,
  settled,
} from './support/fake-electron.ts'

// The fake `electron` module stands in for the Electron binary, which cannot
// run here. A test against it is only as good as its likeness where our code
// depends on Electron's behaviour, so these pin that likeness to Electron's
// source and docs (cited here and in the fake): if a change made the fake
// kinder than Electron, the window tests could pass on code that fails in
// the app.

beforeEach(() => resetFakeElectron())

describe('the fake electron module, where it must behave as Electron does', () => {
  it("emits 'will-frame-navigate' first and, when it is prevented, never 'will-navigate'", () => {
    const contents = new FakeWebContents()
    const seen: string[] = []
    contents.on('will-frame-navigate', (event) => {
      seen.push('will-frame-navigate')
      ;(event as { preventDefault(): void }).preventDefault()
    })
    contents.on('will-navigate', () => seen.push('will-navigate'))
    expect(contents.navigate('https://example.com/')).toBe('cancelled')
    expect(seen).toEqual(['will-frame-navigate'])
  })

  it("emits 'will-navigate' only for the main frame, after 'will-frame-navigate'", () => {
    const contents = new FakeWebContents()
    const seen: string[] = []
    contents.on('will-frame-navigate', () => seen.push('frame'))
    contents.on('will-navigate', () => seen.push('main'))
    expect(contents.navigate('https://example.com/sub', { isMainFrame: false })).toBe('proceeded')
    expect(contents.navigate('https://example.com/')).toBe('proceeded')
    expect(seen).toEqual(['frame', 'frame', 'main'])
    expect(contents.navigated).toEqual(['https://example.com/sub', 'https://example.com/'])
  })

  it('moves the window when a page asks, unless content-bounds-updated is prevented', () => {
    const win = new FakeBrowserWindow({ webPreferences: {} })
    win.webContents.requestContentBounds({ x: 1, y: 2, width: 3, height: 4 })
    expect(win.bounds).toEqual({ x: 1, y: 2, width: 3, height: 4 })
    win.webContents.on('content-bounds-updated', (event) =>
      (event as { preventDefault(): void }).preventDefault(),
    )
    win.webContents.requestContentBounds({ x: 9, y: 9, width: 9, height: 9 })
    expect(win.bounds).toEqual({ x: 1, y: 2, width: 3, height: 4 })
  })

  it('allows window.open when no handler says otherwise', () => {
    expect(new FakeWebContents().open('https://example.com/')).toEqual({ action: 'allow' })
  })

  it('keeps the default menu when macOS is given a null application menu', () => {
    fakePlatform.current = 'darwin'
    Menu.setApplicationMenu(null)
    expect(Menu.getApplicationMenu()).toBe(DEFAULT_APPLICATION_MENU)
    fakePlatform.current = 'linux'
    Menu.setApplicationMenu(null)
    expect(Menu.getApplicationMenu()).toBeNull()
  })

  it("announces every webContents on app's 'web-contents-created' as it is made", () => {
    const announced: unknown[] = []
    app.on('web-contents-created', (_event, contents) => announced.push(contents))
    const win = new FakeBrowserWindow({ webPreferences: {} })
    expect(announced).toEqual([win.webContents])
  })

  it('destroys the webContents once its window has closed, and calls once-listeners once', async () => {
    const win = new FakeBrowserWindow({ webPreferences: {} })
    const order: string[] = []
    win.once('closed', () => order.push('closed'))
    win.webContents.once('destroyed', () => order.push('destroyed'))
    const closing = win.close()
    win.close()
    await closing
    await settled()
    expect(order).toEqual(['closed', 'destroyed'])
    expect(win.webContents.isDestroyed()).toBe(true)
  })
})

const hidden = () => new FakeBrowserWindow({ show: false, webPreferences: {} })

describe('windows: shown, hidden and focused as Electron keeps them', () => {
  // shell/browser/native_window_views.cc: Show() shows and activates,
  // ShowInactive() only shows, Focus() does nothing on a hidden window;
  // electron_api_base_window.cc emits 'show' at once and 'focus'/'blur'
  // with EmitEventSoon (a task later).
  it('starts hidden and unfocused with show: false, and visible and focused without it', () => {
    const win = hidden()
    expect([win.isVisible(), win.isFocused()]).toEqual([false, false])
    const shown = new FakeBrowserWindow({ webPreferences: {} })
    expect([shown.isVisible(), shown.isFocused()]).toEqual([true, true])
  })

  it("show() shows and focuses, 'show' at once and 'focus' a task later", async () => {
    const win = hidden()
    const seen: string[] = []
    win.on('show', () => seen.push('show'))
    win.on('focus', () => seen.push('focus'))
    win.show()
    expect(seen).toEqual(['show'])
    expect([win.isVisible(), win.isFocused()]).toEqual([true, true])
    await settled()
    expect(seen).toEqual(['show', 'focus'])
  })

  it('showInactive() shows without taking focus from the focused window', async () => {
    const front = new FakeBrowserWindow({ webPreferences: {} })
    const win = hidden()
    win.showInactive()
    expect([win.isVisible(), win.isFocused(), front.isFocused()]).toEqual([true, false, true])
  })

  it('focus() on a hidden window does nothing; on a visible one it blurs the other', async () => {
    const front = new FakeBrowserWindow({ webPreferences: {} })
    const win = hidden()
    win.focus()
    expect([win.isVisible(), win.isFocused(), front.isFocused()]).toEqual([false, false, true])
    const blurred: string[] = []
    front.on('blur', () => blurred.push('front'))
    win.showInactive()
    win.focus()
    expect([win.isFocused(), front.isFocused()]).toEqual([true, false])
    await settled()
    expect(blurred).toEqual(['front'])
  })

  it('hide() and blur() give up focus; a hidden window is not visible', () => {
    const win = new FakeBrowserWindow({ webPreferences: {} })
    win.blur()
    expect([win.isVisible(), win.isFocused()]).toEqual([true, false])
    win.focus()
    win.hide()
    expect([win.isVisible(), win.isFocused()]).toEqual([false, false])
  })
})

describe('loading a page, as Electron reports it', () => {
  // WebContents::DidFinishNavigation ('did-navigate'), DOMContentLoaded
  // ('dom-ready'), DidFinishLoad ('did-finish-load'); loadURL's promise
  // settles on 'did-finish-load' (lib/browser/api/web-contents.ts);
  // 'ready-to-show' on the first paint of a window not shown yet
  // (WebContents::OnFirstNonEmptyLayout; docs/api/browser-window.md).
  it('emits did-navigate, dom-ready, did-finish-load, then ready-to-show, none of them synchronously', async () => {
    const win = hidden()
    const seen: string[] = []
    for (const name of ['did-navigate', 'dom-ready', 'did-finish-load']) {
      win.webContents.on(name, () => seen.push(name))
    }
    win.on('ready-to-show', () => seen.push('ready-to-show'))
    const loading = win.loadURL('assent-consent://consent/consent/index.html')
    expect(seen).toEqual([])
    await loading
    expect(seen).toEqual(['did-navigate', 'dom-ready', 'did-finish-load'])
    await settled()
    expect(seen).toEqual(['did-navigate', 'dom-ready', 'did-finish-load', 'ready-to-show'])
    expect(win.webContents.getURL()).toBe('assent-consent://consent/consent/index.html')
  })

  it('emits no ready-to-show for a window that was already shown, nor for a second load', async () => {
    const shown = new FakeBrowserWindow({ webPreferences: {} })
    const win = hidden()
    let ready = 0
    shown.on('ready-to-show', () => (ready += 1))
    win.on('ready-to-show', () => (ready += 1))
    await shown.loadURL('assent-app://app/workbench/index.html')
    await win.loadURL('assent-app://app/workbench/index.html')
    await settled()
    win.webContents.reload()
    await settled()
    expect(ready).toBe(1)
  })
})

describe('closing a window, as Electron does it', () => {
  // BaseWindow::WillCloseWindow emits 'close', which prevented keeps the
  // window; BaseWindow::OnWindowClosed marks it destroyed and emits
  // 'closed' once the native window has closed, after close() returned.
  it("asks with 'close' first: prevented, the window stays", async () => {
    const win = new FakeBrowserWindow({ webPreferences: {} })
    win.on('close', (event) => (event as { preventDefault(): void }).preventDefault())
    await win.close()
    await settled()
    expect(win.isDestroyed()).toBe(false)
  })

  it("closes later, not inside close(): 'closed' comes after close() returned", async () => {
    const win = new FakeBrowserWindow({ webPreferences: {} })
    let closed = false
    win.on('closed', () => (closed = true))
    const closing = win.close()
    expect([closed, win.isDestroyed()]).toEqual([false, false])
    await closing
    expect([closed, win.isDestroyed()]).toEqual([true, true])
  })

  it("emits the app's 'window-all-closed' when the last window has closed, not before", async () => {
    const first = new FakeBrowserWindow({ webPreferences: {} })
    const second = hidden()
    let allClosed = 0
    app.on('window-all-closed', () => (allClosed += 1))
    await first.close()
    expect(allClosed).toBe(0)
    await second.close()
    expect(allClosed).toBe(1)
  })
})

describe('a destroyed window or webContents, as Electron treats it', () => {
  // gin_helper (shell/common/gin_helper/function_template.h) throws
  // "Object has been destroyed" for any native method of a destroyed
  // object; isDestroyed() answers.
  it('throws "Object has been destroyed" from its methods, and answers isDestroyed()', async () => {
    const win = new FakeBrowserWindow({ webPreferences: {} })
    const contents = win.webContents
    await win.close()
    expect(win.isDestroyed()).toBe(true)
    expect(contents.isDestroyed()).toBe(true)
    for (const call of [
      () => win.show(),
      () => win.focus(),
      () => win.isVisible(),
      () => win.isFocused(),
      () => win.close(),
      () => win.getBounds(),
      () => contents.send('channel', {}),
      () => contents.isCrashed(),
      () => contents.getURL(),
      () => contents.mainFrame,
    ]) {
      expect(call).toThrow('Object has been destroyed')
    }
  })
})

describe('a renderer that dies, and a reload', () => {
  // WebContents::PrimaryMainFrameRenderProcessGone posts
  // 'render-process-gone' with details { reason, exitCode } to a later
  // task (electron_api_web_contents.cc); docs/api/web-contents.md
  // `contents.isCrashed()`. A reload commits a new document, so a new
  // main frame (WebFrameMain) object.
  it('emits render-process-gone a task later with details.reason, and isCrashed() says so', async () => {
    const win = new FakeBrowserWindow({ webPreferences: {} })
    await win.loadURL('assent-app://app/workbench/index.html')
    const reasons: unknown[] = []
    win.webContents.on('render-process-gone', (_event, details) =>
      reasons.push((details as { reason: string }).reason),
    )
    const crashing = win.webContents.crash('oom')
    expect(reasons).toEqual([])
    expect(win.webContents.isCrashed()).toBe(true)
    await crashing
    expect(reasons).toEqual(['oom'])
  })

  it('gives a new main frame on reload, and a reloaded renderer is no longer crashed', async () => {
    const win = new FakeBrowserWindow({ webPreferences: {} })
    await win.loadURL('assent-app://app/workbench/index.html')
    const before = win.webContents.mainFrame
    await win.webContents.crash()
    let loaded = 0
    win.webContents.on('did-finish-load', () => (loaded += 1))
    win.webContents.reload()
    await settled()
    expect(loaded).toBe(1)
    expect(win.webContents.mainFrame).not.toBe(before)
    expect(win.webContents.mainFrame.url).toBe('assent-app://app/workbench/index.html')
    expect(win.webContents.isCrashed()).toBe(false)
  })
})

describe('the app before and after ready', () => {
  it('refuses enableSandbox once the app is ready (App::EnableSandbox)', () => {
    app.enableSandbox()
    expect(app.sandboxEnabled).toBe(true)
    app.becomeReady()
    expect(() => app.enableSandbox()).toThrow(/before app is ready/)
  })

  it("lets 'before-quit' be prevented, and quits only when it is not", () => {
    const win = new FakeBrowserWindow({ webPreferences: {} })
    const prevent = (event: unknown) => (event as FakeEvent).preventDefault()
    app.on('before-quit', prevent)
    app.quit()
    expect(win.isDestroyed()).toBe(false)
    app.off('before-quit', prevent)
    app.quit()
    expect(win.isDestroyed()).toBe(true)
  })
})

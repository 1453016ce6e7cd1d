// Stands in for the Electron binary, which cannot run on these machines: a
// recording double of the few `electron` main-process APIs the host calls, so
// tests can drive the real window, session and menu set-up code and then act
// as Electron would. Where Electron's own behaviour decides whether our code
// works (the order of navigation events, what preventDefault cancels, what
// `Menu.setApplicationMenu(null)` does on macOS, how a page moves its
// window, when a window is visible or focused, when events come and what a
// destroyed object does), the double follows Electron's source, cited at
// each place; tests/fake-electron.test.ts pins those behaviours.
//
// Events Electron posts to a later task (a window's 'focus' and 'blur',
// 'render-process-gone', a load's events, a window's 'closed') come from
// `soon`, after the caller's own code has run: a test awaits `settled()`.

/** Runs `task` after the current task, as Electron's PostTask does. */
function soon(task: () => void): void {
  setImmediate(task)
}

/** Resolves once every task posted so far (and those they post) has run. */
export async function settled(rounds = 5): Promise<void> {
  for (let round = 0; round < rounds; round += 1) {
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/** What a method of a destroyed window or webContents throws: gin_helper's
 *  check before every native method (shell/common/gin_helper/
 *  function_template.h: "Object has been destroyed"). */
function assertAlive(target: { isDestroyed(): boolean }): void {
  if (target.isDestroyed()) throw new TypeError('Object has been destroyed')
}

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

type Listener = (...args: unknown[]) => unknown

class Emitter {
  readonly listeners = new Map<string, Listener[]>()

  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener])
    return this
  }
  once(event: string, listener: Listener): this {
    const wrapped: Listener = (...args) => {
      this.off(event, wrapped)
      return listener(...args)
    }
    return this.on(event, wrapped)
  }
  off(event: string, listener: Listener): this {
    this.listeners.set(
      event,
      (this.listeners.get(event) ?? []).filter((each) => each !== listener),
    )
    return this
  }
  /** Calls every listener for `event`, as Electron would emit it. */
  emit(event: string, ...args: unknown[]): unknown[] {
    return [...(this.listeners.get(event) ?? [])].map((listener) => listener(...args))
  }
  count(event: string): number {
    return this.listeners.get(event)?.length ?? 0
  }
}

/** An Electron `Event`: `preventDefault` sets `defaultPrevented`. */
export interface FakeEvent {
  preventDefault(): void
  readonly defaultPrevented: boolean
  [detail: string]: unknown
}

export function fakeEvent(details: Record<string, unknown> = {}): FakeEvent {
  let prevented = false
  return {
    ...details,
    preventDefault: () => {
      prevented = true
    },
    get defaultPrevented() {
      return prevented
    },
  }
}

export interface FakeRectangle {
  x: number
  y: number
  width: number
  height: number
}

/** Shaped like Electron's WebFrameMain as the sender check reads it. */
export interface FakeFrame {
  url: string
  parent: null
}

export class FakeWebContents extends Emitter {
  static nextId = 1
  readonly id = FakeWebContents.nextId++
  readonly ipc = new Emitter()
  /** The main frame now; a reload or a new renderer makes a new one, as a
   *  new document gets a new RenderFrameHost (and WebFrameMain). */
  private frame: FakeFrame = { url: '', parent: null }
  private crashed = false
  /** How many documents finished loading ('did-finish-load'). */
  finishedLoads = 0
  readonly sent: Array<[string, unknown]> = []
  /** Called with each message main sends the page (a test plays the page). */
  onSend: ((channel: string, payload: unknown) => void) | undefined
  /** Every navigation that was not cancelled, in order. */
  readonly navigated: string[] = []
  windowOpenHandler: ((details: { url: string }) => unknown) | undefined
  webRTCIPHandlingPolicy = 'default'
  destroyed = false
  owner: FakeBrowserWindow | undefined

  constructor() {
    super()
    // Electron emits 'web-contents-created' while the webContents is being
    // made, before its creator sees it (like app.on in the real API).
    app.emit('web-contents-created', fakeEvent(), this)
  }

  get mainFrame(): FakeFrame {
    assertAlive(this)
    return this.frame
  }

  setWindowOpenHandler(handler: (details: { url: string }) => unknown): void {
    assertAlive(this)
    this.windowOpenHandler = handler
  }
  send(channel: string, payload: unknown): void {
    assertAlive(this)
    this.sent.push([channel, payload])
    this.onSend?.(channel, payload)
  }
  /** docs/api/web-contents.md `contents.isCrashed()`: whether the renderer
   *  process has crashed; true from the crash until a new one loads. */
  isCrashed(): boolean {
    assertAlive(this)
    return this.crashed
  }
  getURL(): string {
    assertAlive(this)
    return this.frame.url
  }

  /**
   * Loads `url` in a new document, as Electron reports it: the main frame's
   * navigation when it commits ('did-navigate', WebContents::
   * DidFinishNavigation), 'dom-ready' (DOMContentLoaded), then
   * 'did-finish-load' (WebContents::DidFinishLoad, main frame only), each a
   * task later; `loadURL`'s promise settles on 'did-finish-load'
   * (lib/browser/api/web-contents.ts). The first paint of a window that was
   * not shown yet is its 'ready-to-show' (WebContents::OnFirstNonEmptyLayout).
   */
  async load(url: string): Promise<void> {
    assertAlive(this)
    this.frame = { url, parent: null }
    this.crashed = false
    const steps: Array<() => void> = [
      () => this.emit('did-navigate', fakeEvent(), url, 200, 'OK'),
      () => this.emit('dom-ready', fakeEvent()),
      () => {
        this.finishedLoads += 1
        this.emit('did-finish-load', fakeEvent())
      },
    ]
    for (const step of steps) {
      await new Promise<void>((resolve) => soon(resolve))
      // A window closed mid-load: Electron rejects the load ('destroyed'
      // ends it with ERR_FAILED).
      if (this.destroyed) throw new Error('ERR_FAILED (-2) loading ' + url)
      // A renderer that died mid-load finishes nothing.
      if (this.crashed) throw new Error('ERR_FAILED (-2) renderer gone loading ' + url)
      step()
    }
    soon(() => this.owner?.firstPaint())
  }

  async loadURL(url: string): Promise<void> {
    return this.load(url)
  }

  /** The page reloads (a shortcut, DevTools, or main after a crash): a new
   *  document, in a new renderer if the old one is gone. */
  reload(): void {
    void this.load(this.frame.url).catch(() => undefined)
  }

  /**
   * The renderer process dies: WebContents::PrimaryMainFrameRenderProcessGone
   * posts 'render-process-gone' with `details.reason` and `exitCode` to a
   * later task (electron_api_web_contents.cc); `isCrashed()` is true from
   * then on. Resolves once the event was emitted.
   */
  async crash(reason = 'crashed', exitCode = 139): Promise<void> {
    assertAlive(this)
    this.crashed = true
    await new Promise<void>((resolve) =>
      soon(() => {
        if (!this.destroyed) this.emit('render-process-gone', fakeEvent(), { reason, exitCode })
        resolve()
      }),
    )
  }

  /** Input the browser process saw (`input-event`): a press, a key, a tap. */
  input(details: Record<string, unknown>): void {
    this.emit('input-event', fakeEvent(), details)
  }

  isDestroyed(): boolean {
    return this.destroyed
  }
  setWebRTCIPHandlingPolicy(policy: string): void {
    assertAlive(this)
    this.webRTCIPHandlingPolicy = policy
  }
  getWebRTCIPHandlingPolicy(): string {
    assertAlive(this)
    return this.webRTCIPHandlingPolicy
  }

  /**
   * A navigation the page starts (a link, `location = …`, a form), as
   * ElectronNavigationThrottle::WillStartRequest handles it
   * (shell/browser/electron_navigation_throttle.cc): 'will-frame-navigate'
   * first, for any frame, and a prevented one cancels the navigation, so
   * 'will-navigate' is then never emitted; 'will-navigate' only for the
   * main frame, and a prevented one cancels it too.
   */
  navigate(url: string, options: { isMainFrame?: boolean } = {}): 'cancelled' | 'proceeded' {
    assertAlive(this)
    const isMainFrame = options.isMainFrame ?? true
    const frameEvent = fakeEvent({ url, isMainFrame })
    this.emit('will-frame-navigate', frameEvent)
    if (frameEvent.defaultPrevented) return 'cancelled'
    if (isMainFrame) {
      const event = fakeEvent({ url, isMainFrame })
      this.emit('will-navigate', event)
      if (event.defaultPrevented) return 'cancelled'
    }
    this.navigated.push(url)
    return 'proceeded'
  }

  /** A server redirect during a navigation (WillRedirectRequest). */
  redirect(url: string): 'cancelled' | 'proceeded' {
    const event = fakeEvent({ url })
    this.emit('will-redirect', event)
    if (event.defaultPrevented) return 'cancelled'
    this.navigated.push(url)
    return 'proceeded'
  }

  /** `window.open(url)` from the page: the handler's answer. */
  open(url: string): unknown {
    return this.windowOpenHandler?.({ url }) ?? { action: 'allow' }
  }

  /**
   * The page calls `window.moveTo`/`resizeTo`: WebContents::SetContentsBounds
   * (shell/browser/api/electron_api_web_contents.cc) emits
   * 'content-bounds-updated' and, unless it was prevented, moves the window.
   */
  requestContentBounds(bounds: FakeRectangle): void {
    const event = fakeEvent()
    this.emit('content-bounds-updated', event, bounds)
    if (!event.defaultPrevented && this.owner) this.owner.bounds = { ...bounds }
  }

  destroy(): void {
    if (this.destroyed) return
    this.destroyed = true
    this.emit('destroyed')
  }
}

export class FakeBrowserWindow extends Emitter {
  static readonly created: FakeBrowserWindow[] = []
  static nextId = 1
  /** The one window with OS focus, as the window system keeps it. */
  static focused: FakeBrowserWindow | undefined
  readonly id = FakeBrowserWindow.nextId++
  readonly options: { webPreferences: Record<string, unknown> } & Record<string, unknown>
  readonly webContents = new FakeWebContents()
  loadedUrl: string | undefined
  menuRemoved = false
  destroyed = false
  bounds: FakeRectangle
  minimumSize: [number, number] | undefined
  parent: FakeBrowserWindow | undefined
  contentProtected = false
  /** Each `flashFrame` call, in order. */
  readonly flashes: boolean[] = []
  private visible = false
  private minimized = false
  private painted = false

  constructor(options: FakeBrowserWindow['options']) {
    super()
    this.options = options
    this.webContents.owner = this
    this.bounds = {
      x: 0,
      y: 0,
      width: Number(options.width ?? 800),
      height: Number(options.height ?? 600),
    }
    FakeBrowserWindow.created.push(this)
    // docs/api/browser-window.md: `show` defaults to true.
    if (options.show !== false) this.show()
  }
  static getFocusedWindow(): FakeBrowserWindow | null {
    return FakeBrowserWindow.focused ?? null
  }
  removeMenu(): void {
    assertAlive(this)
    this.menuRemoved = true
  }
  async loadURL(url: string): Promise<void> {
    assertAlive(this)
    this.loadedUrl = url
    return this.webContents.load(url)
  }
  /** The first paint after a load: 'ready-to-show' if the window is hidden
   *  then (docs/api/browser-window.md, "Using the ready-to-show event"). */
  firstPaint(): void {
    if (this.painted || this.destroyed) return
    this.painted = true
    if (!this.visible) this.emit('ready-to-show')
  }

  /** NativeWindowViews::Show: shows the window and activates it; 'show'
   *  at once (BaseWindow::OnWindowShow), 'focus' a task later
   *  (OnWindowFocus uses EmitEventSoon). */
  show(): void {
    assertAlive(this)
    const wasVisible = this.visible
    this.visible = true
    this.minimized = false
    if (!wasVisible) this.emit('show')
    this.activate()
  }
  /** NativeWindowViews::ShowInactive: shown, focus stays where it was. */
  showInactive(): void {
    assertAlive(this)
    if (this.visible) return
    this.visible = true
    this.emit('show')
  }
  hide(): void {
    assertAlive(this)
    if (!this.visible) return
    this.visible = false
    this.deactivate()
    this.emit('hide')
  }
  /** NativeWindowViews::Focus: "For hidden window focus() should do
   *  nothing". */
  focus(): void {
    assertAlive(this)
    if (this.visible && !this.minimized) this.activate()
  }
  blur(): void {
    assertAlive(this)
    this.deactivate()
  }
  isVisible(): boolean {
    assertAlive(this)
    return this.visible
  }
  isFocused(): boolean {
    assertAlive(this)
    return FakeBrowserWindow.focused === this
  }
  isMinimized(): boolean {
    assertAlive(this)
    return this.minimized
  }
  minimize(): void {
    assertAlive(this)
    this.minimized = true
    this.deactivate()
  }
  restore(): void {
    assertAlive(this)
    this.minimized = false
  }
  flashFrame(flag: boolean): void {
    assertAlive(this)
    this.flashes.push(flag)
  }
  setContentProtection(enable: boolean): void {
    assertAlive(this)
    this.contentProtected = enable
  }
  setParentWindow(parent: FakeBrowserWindow | null): void {
    assertAlive(this)
    this.parent = parent ?? undefined
  }
  getParentWindow(): FakeBrowserWindow | null {
    assertAlive(this)
    return this.parent ?? null
  }
  setMinimumSize(width: number, height: number): void {
    assertAlive(this)
    this.minimumSize = [width, height]
  }
  getBounds(): FakeRectangle {
    assertAlive(this)
    return { ...this.bounds }
  }
  setBounds(bounds: Partial<FakeRectangle>): void {
    assertAlive(this)
    this.bounds = { ...this.bounds, ...bounds }
  }

  /**
   * BaseWindow::Close asks first: 'close' (WillCloseWindow), which a
   * listener may prevent, and then nothing happens. Otherwise the window
   * closes a task later: marked destroyed, then 'closed'
   * (BaseWindow::OnWindowClosed), then its webContents is destroyed.
   * Resolves once it has closed (or at once, when prevented).
   */
  close(): Promise<void> {
    assertAlive(this)
    const event = fakeEvent()
    this.emit('close', event)
    if (event.defaultPrevented) return Promise.resolve()
    return new Promise((resolve) =>
      soon(() => {
        this.destroy()
        resolve()
      }),
    )
  }
  /** Closes at once, with no 'close' event (`win.destroy()`). */
  destroy(): void {
    if (this.destroyed) return
    this.deactivate()
    this.visible = false
    // MarkDestroyed comes before Emit("closed"): a 'closed' listener already
    // sees isDestroyed() true.
    this.destroyed = true
    this.emit('closed')
    this.webContents.destroy()
    // WindowList::RemoveWindow: the last window gone is 'window-all-closed'.
    if (FakeBrowserWindow.created.every((win) => win.destroyed) && !app.quitting) {
      app.emit('window-all-closed')
    }
  }
  isDestroyed(): boolean {
    return this.destroyed
  }

  private activate(): void {
    const previous = FakeBrowserWindow.focused
    if (previous === this) return
    FakeBrowserWindow.focused = this
    if (previous && !previous.destroyed) soon(() => previous.emit('blur'))
    soon(() => {
      if (!this.destroyed) this.emit('focus')
    })
  }
  private deactivate(): void {
    if (FakeBrowserWindow.focused !== this) return
    FakeBrowserWindow.focused = undefined
    soon(() => {
      if (!this.destroyed) this.emit('blur')
    })
  }
}

export interface FakeRequestVerdict {
  cancel: boolean
}

export class FakeSession extends Emitter {
  readonly partition: string
  permissionRequestHandler: Listener | undefined
  permissionCheckHandler: Listener | undefined
  devicePermissionHandler: Listener | undefined
  beforeRequest:
    | ((details: { url: string }, callback: (verdict: FakeRequestVerdict) => void) => void)
    | undefined
  spellChecker: boolean | undefined
  /** How often each clearing call ran. */
  readonly cleared = { data: 0, authCache: 0 }
  /** Makes the next `clearData` reject (a clearing that failed). */
  failNextClear = false
  readonly protocols = new Map<string, Listener>()
  readonly webRequest = {
    onBeforeRequest: (listener: NonNullable<FakeSession['beforeRequest']>) => {
      this.beforeRequest = listener
    },
  }
  readonly protocol = {
    handle: (scheme: string, handler: Listener) => {
      // Electron allows one handler per scheme and session.
      if (this.protocols.has(scheme)) throw new Error(`${scheme} is already handled`)
      this.protocols.set(scheme, handler)
    },
  }

  constructor(partition: string) {
    super()
    this.partition = partition
  }
  setPermissionRequestHandler(handler: Listener): void {
    this.permissionRequestHandler = handler
  }
  setPermissionCheckHandler(handler: Listener): void {
    this.permissionCheckHandler = handler
  }
  setDevicePermissionHandler(handler: Listener): void {
    this.devicePermissionHandler = handler
  }
  setSpellCheckerEnabled(enabled: boolean): void {
    this.spellChecker = enabled
  }
  async clearData(): Promise<void> {
    if (this.failNextClear) {
      this.failNextClear = false
      throw new Error('clearing failed')
    }
    this.cleared.data += 1
  }
  async clearAuthCache(): Promise<void> {
    this.cleared.authCache += 1
  }
  /** What the session's request filter answers for `url`. */
  verdictFor(url: string): FakeRequestVerdict | undefined {
    let verdict: FakeRequestVerdict | undefined
    this.beforeRequest?.({ url }, (given) => {
      verdict = given
    })
    return verdict
  }
}

export const sessions: FakeSession[] = []
const byPartition = new Map<string, FakeSession>()

/** Like ElectronBrowserContext::From: one session per partition name, kept
 *  for the life of the app. */
function sessionFor(partition: string): FakeSession {
  const existing = byPartition.get(partition)
  if (existing) return existing
  const created = new FakeSession(partition)
  byPartition.set(partition, created)
  sessions.push(created)
  return created
}

export const session = {
  fromPartition(partition: string): FakeSession {
    if (partition === '') throw new Error('the default session is session.defaultSession')
    return sessionFor(partition)
  },
  get defaultSession(): FakeSession {
    return sessionFor('')
  },
}

export const openedExternally: string[] = []
export const shell = {
  async openExternal(url: string): Promise<void> {
    openedExternally.push(url)
  },
}

/** Stands for the menu Electron installs at 'will-finish-launching'
 *  (lib/browser/default-menu.ts): it has View with Reload and DevTools. */
export const DEFAULT_APPLICATION_MENU = {
  template: [{ role: 'viewMenu' }],
} as const

export interface FakeMenu {
  readonly template: readonly unknown[]
}

/** Which platform the fake Menu behaves as (its macOS rule differs). */
export const fakePlatform: { current: NodeJS.Platform } = { current: 'linux' }

export const Menu = {
  applicationMenu: DEFAULT_APPLICATION_MENU as FakeMenu | null,
  buildFromTemplate(template: readonly unknown[]): FakeMenu {
    return { template }
  },
  /** lib/browser/api/menu.ts: on macOS a null menu is ignored and the
   *  current (default) menu stays; elsewhere it removes every window's. */
  setApplicationMenu(menu: FakeMenu | null): void {
    if (fakePlatform.current === 'darwin' && !menu) return
    Menu.applicationMenu = menu
  },
  getApplicationMenu(): FakeMenu | null {
    return Menu.applicationMenu
  },
}

/** How the fake app was started and what it did (the parts of `app` main
 *  reads before and after 'ready'). */
class FakeApp extends Emitter {
  name = 'Assent'
  ready = false
  quitting = false
  sandboxEnabled = false
  /** Command-line switches Chromium was given (`app.commandLine`). */
  readonly switches = new Set<string>()
  /** False when another instance holds Electron's single-instance lock. */
  singleInstanceLock = true
  exitCode: number | undefined
  quitCalls = 0
  appPath = '/app'
  userData = '/nonexistent/userData'
  readonly commandLine = {
    hasSwitch: (name: string) => this.switches.has(name),
  }
  private readyWaiters: Array<() => void> = []

  /** App::EnableSandbox: "can only be called before app is ready". */
  enableSandbox(): void {
    if (this.ready) throw new Error('app.enableSandbox() can only be called before app is ready')
    this.sandboxEnabled = true
  }
  requestSingleInstanceLock(): boolean {
    return this.singleInstanceLock
  }
  isReady(): boolean {
    return this.ready
  }
  whenReady(): Promise<void> {
    if (this.ready) return Promise.resolve()
    return new Promise((resolve) => this.readyWaiters.push(resolve))
  }
  /** Electron's 'ready': `whenReady()` resolves and 'ready' is emitted. */
  becomeReady(): void {
    this.ready = true
    this.emit('ready', fakeEvent())
    for (const resolve of this.readyWaiters.splice(0)) resolve()
  }
  getAppPath(): string {
    return this.appPath
  }
  getPath(name: string): string {
    if (name === 'userData') return this.userData
    throw new Error(`the fake has no path ${name}`)
  }
  getPreferredSystemLanguages(): string[] {
    return ['en-US']
  }
  getLocale(): string {
    return 'en-US'
  }
  /** Browser::Quit: 'before-quit', which a listener may prevent; then every
   *  window closes and the app ends ('will-quit', 'quit'). */
  quit(): void {
    this.quitCalls += 1
    const event = fakeEvent()
    this.emit('before-quit', event)
    if (event.defaultPrevented) return
    this.quitting = true
    for (const win of FakeBrowserWindow.created) win.destroy()
    this.emit('will-quit', fakeEvent())
    this.emit('quit', fakeEvent(), 0)
  }
  /** Ends at once: no 'before-quit', no window asked. */
  exit(code = 0): void {
    this.exitCode = code
    this.quitting = true
  }
}
export const app = new FakeApp()

export const BrowserWindow = FakeBrowserWindow

/** The displays the fake screen reports; the first is the primary. */
export const fakeDisplays: Array<{ id: number; bounds: FakeRectangle; workArea: FakeRectangle }> =
  []
const DEFAULT_DISPLAY = {
  id: 1,
  bounds: { x: 0, y: 0, width: 1920, height: 1080 },
  workArea: { x: 0, y: 0, width: 1920, height: 1040 },
}

function overlap(a: FakeRectangle, b: FakeRectangle): number {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y)
  return Math.max(0, width) * Math.max(0, height)
}

export const screen = {
  getPrimaryDisplay() {
    return fakeDisplays[0] ?? DEFAULT_DISPLAY
  },
  /** docs/api/screen.md: the display that most closely intersects `rect`. */
  getDisplayMatching(rect: FakeRectangle) {
    const displays = fakeDisplays.length > 0 ? fakeDisplays : [DEFAULT_DISPLAY]
    return displays.reduce((best, each) =>
      overlap(each.bounds, rect) > overlap(best.bounds, rect) ? each : best,
    )
  },
}

export const errorBoxes: Array<[string, string]> = []
export const dialog = {
  showErrorBox(title: string, content: string): void {
    errorBoxes.push([title, content])
  },
}

export const privilegedSchemes: unknown[] = []
export const protocol = {
  /** "This method can only be used before the ready event of the app gets
   *  emitted" (docs/api/protocol.md). */
  registerSchemesAsPrivileged(schemes: unknown[]): void {
    if (app.ready) throw new Error('registerSchemesAsPrivileged must be called before ready')
    privilegedSchemes.push(...schemes)
  },
}

/** ipcMain.handle: one handler per channel (a second one throws, as in
 *  lib/browser/ipc-main-impl.ts); `invoke` plays a renderer's call. */
class FakeIpcMain extends Emitter {
  readonly handlers = new Map<string, Listener>()
  handle(channel: string, handler: Listener): void {
    if (this.handlers.has(channel)) {
      throw new Error(`Attempted to register a second handler for '${channel}'`)
    }
    this.handlers.set(channel, handler)
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel)
  }
  async invoke(channel: string, event: unknown, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel)
    if (!handler) throw new Error(`No handler registered for '${channel}'`)
    return handler(event, ...args)
  }
}
export const ipcMain = new FakeIpcMain()

export const nativeTheme = { shouldUseDarkColors: false }

export class Notification extends Emitter {
  static isSupported(): boolean {
    return false
  }
  show(): void {}
}

/** Forgets every session, window and menu, so the next `fromPartition`
 *  makes a new session (as a fresh app launch would). */
export function resetFakeElectron(): void {
  byPartition.clear()
  sessions.length = 0
  FakeBrowserWindow.created.length = 0
  FakeBrowserWindow.focused = undefined
  openedExternally.length = 0
  app.listeners.clear()
  Object.assign(app, {
    ready: false,
    quitting: false,
    sandboxEnabled: false,
    singleInstanceLock: true,
    exitCode: undefined,
    quitCalls: 0,
  })
  app.switches.clear()
  fakeDisplays.length = 0
  errorBoxes.length = 0
  privilegedSchemes.length = 0
  ipcMain.handlers.clear()
  ipcMain.listeners.clear()
  Menu.applicationMenu = DEFAULT_APPLICATION_MENU
  fakePlatform.current = 'linux'
}

// ---- safeStorage (begin) ------------------------------------------------
// Electron's docs/api/safe-storage.md (Electron 45), asynchronous API: the
// text is sealed with a key the OS keeps (a keychain entry on Linux and
// macOS, DPAPI on Windows), so the ciphertext opens only for this user on
// this machine; opening ciphertext made with another key, or altered,
// rejects; `getSelectedStorageBackend()` names the Linux keychain in use,
// `basic_text` when there is none (then the seal is a password built into
// Chromium). The fake seals with AES-256-GCM under a key of its own, so a
// test sees ciphertext on disk, a failed open, and a changed key.

export class FakeSafeStorage {
  available = true
  backend: 'basic_text' | 'gnome_libsecret' | 'kwallet6' | 'unknown' = 'gnome_libsecret'
  private key = randomBytes(32)
  /** Set by `rotateKey`: older ciphertext still opens, with shouldReEncrypt. */
  private previousKey: Buffer | undefined

  async isAsyncEncryptionAvailable(): Promise<boolean> {
    return this.available
  }

  async encryptStringAsync(plainText: string): Promise<Buffer> {
    if (!this.available) throw new Error('Encryption is not available.')
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.key, iv)
    const sealed = Buffer.concat([cipher.update(plainText, 'utf8'), cipher.final()])
    return Buffer.concat([Buffer.from('v11'), iv, cipher.getAuthTag(), sealed])
  }

  async decryptStringAsync(
    encrypted: Buffer,
  ): Promise<{ shouldReEncrypt: boolean; result: string }> {
    for (const [key, shouldReEncrypt] of [
      [this.key, false],
      [this.previousKey, true],
    ] as const) {
      if (key === undefined) continue
      try {
        return { shouldReEncrypt, result: open(key, encrypted) }
      } catch {
        // try the next key
      }
    }
    throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.')
  }

  getSelectedStorageBackend(): string {
    return this.backend
  }

  /** The OS's sealing key changed (a new keychain entry). */
  rotateKey(): void {
    this.previousKey = this.key
    this.key = randomBytes(32)
  }

  /** Another user, another machine, or the keychain entry removed. */
  loseKey(): void {
    this.previousKey = undefined
    this.key = randomBytes(32)
  }
}

function open(key: Buffer, encrypted: Buffer): string {
  if (encrypted.subarray(0, 3).toString() !== 'v11') throw new Error('not sealed')
  const decipher = createDecipheriv('aes-256-gcm', key, encrypted.subarray(3, 15))
  decipher.setAuthTag(encrypted.subarray(15, 31))
  return Buffer.concat([decipher.update(encrypted.subarray(31)), decipher.final()]).toString('utf8')
}

export let safeStorage = new FakeSafeStorage()

/** A fresh safeStorage: a new OS key, available, on a keychain. */
export function resetFakeSafeStorage(): void {
  safeStorage = new FakeSafeStorage()
}
// ---- safeStorage (end) --------------------------------------------------

// Stands in for the Electron binary, which cannot run on these machines: a
// recording double of the few `electron` main-process APIs the host calls, so
// tests can drive the real window, session and menu set-up code and then act
// as Electron would. Where Electron's own behaviour decides whether our code
// works (the order of navigation events, what preventDefault cancels, what
// `Menu.setApplicationMenu(null)` does on macOS, how a page moves its
// window), the double follows Electron 45's source, cited at each place;
// tests/fake-electron.test.ts pins those behaviours.

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

export class FakeWebContents extends Emitter {
  static nextId = 1
  readonly id = FakeWebContents.nextId++
  readonly ipc = new Emitter()
  /** Shaped like Electron's WebFrameMain as the sender check reads it. */
  readonly mainFrame: { url: string; parent: null } = { url: '', parent: null }
  readonly sent: Array<[string, unknown]> = []
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

  setWindowOpenHandler(handler: (details: { url: string }) => unknown): void {
    this.windowOpenHandler = handler
  }
  send(channel: string, payload: unknown): void {
    this.sent.push([channel, payload])
  }
  isCrashed(): boolean {
    return false
  }
  getURL(): string {
    return this.mainFrame.url
  }

  /**
   * The page reloads (a shortcut, or the renderer restarting it): Electron
   * reports the main frame's navigation when it commits ('did-navigate',
   * WebContents::DidFinishNavigation) and 'did-finish-load' once the new
   * document has loaded (WebContents::DidFinishLoad, main frame only).
   */
  reload(): void {
    this.emit('did-navigate', fakeEvent(), this.mainFrame.url, 200, 'OK')
    this.emit('did-finish-load', fakeEvent())
  }
  isDestroyed(): boolean {
    return this.destroyed
  }
  setWebRTCIPHandlingPolicy(policy: string): void {
    this.webRTCIPHandlingPolicy = policy
  }
  getWebRTCIPHandlingPolicy(): string {
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
  readonly id = FakeBrowserWindow.nextId++
  readonly options: { webPreferences: Record<string, unknown> } & Record<string, unknown>
  readonly webContents = new FakeWebContents()
  loadedUrl: string | undefined
  menuRemoved = false
  destroyed = false
  bounds: FakeRectangle

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
  }
  removeMenu(): void {
    this.menuRemoved = true
  }
  async loadURL(url: string): Promise<void> {
    this.loadedUrl = url
    this.webContents.mainFrame.url = url
  }
  show(): void {}
  focus(): void {}
  /** The window closes, then its webContents is destroyed. */
  close(): void {
    if (this.destroyed) return
    this.destroyed = true
    this.emit('closed')
    this.webContents.destroy()
  }
  isDestroyed(): boolean {
    return this.destroyed
  }
  isVisible(): boolean {
    return !this.destroyed
  }
  isFocused(): boolean {
    return !this.destroyed
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

class FakeApp extends Emitter {
  name = 'Assent'
}
export const app = new FakeApp()

export const BrowserWindow = FakeBrowserWindow

/** Forgets every session, window and menu, so the next `fromPartition`
 *  makes a new session (as a fresh app launch would). */
export function resetFakeElectron(): void {
  byPartition.clear()
  sessions.length = 0
  FakeBrowserWindow.created.length = 0
  openedExternally.length = 0
  app.listeners.clear()
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

// Stands in for the Electron binary, which cannot run on these machines: a
// recording double of the few `electron` main-process APIs the window modules
// call, so tests can drive the real window and session set-up code and then
// call the handlers it registered, as Electron would.

type Listener = (...args: unknown[]) => unknown

class Emitter {
  readonly listeners = new Map<string, Listener[]>()

  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener])
    return this
  }
  once(event: string, listener: Listener): this {
    return this.on(event, listener)
  }
  /** Calls every listener for `event`, as Electron would emit it. */
  emit(event: string, ...args: unknown[]): unknown[] {
    return (this.listeners.get(event) ?? []).map((listener) => listener(...args))
  }
  count(event: string): number {
    return this.listeners.get(event)?.length ?? 0
  }
}

export class FakeWebContents extends Emitter {
  static nextId = 1
  readonly id = FakeWebContents.nextId++
  readonly ipc = new Emitter()
  readonly mainFrame = { url: '' }
  readonly sent: Array<[string, unknown]> = []
  windowOpenHandler: ((details: { url: string }) => unknown) | undefined

  setWindowOpenHandler(handler: (details: { url: string }) => unknown): void {
    this.windowOpenHandler = handler
  }
  send(channel: string, payload: unknown): void {
    this.sent.push([channel, payload])
  }
  isCrashed(): boolean {
    return false
  }
}

export class FakeBrowserWindow extends Emitter {
  static readonly created: FakeBrowserWindow[] = []
  readonly options: { webPreferences: Record<string, unknown> } & Record<string, unknown>
  readonly webContents = new FakeWebContents()
  loadedUrl: string | undefined
  menuRemoved = false
  destroyed = false

  constructor(options: FakeBrowserWindow['options']) {
    super()
    this.options = options
    FakeBrowserWindow.created.push(this)
  }
  removeMenu(): void {
    this.menuRemoved = true
  }
  async loadURL(url: string): Promise<void> {
    this.loadedUrl = url
  }
  show(): void {}
  focus(): void {}
  close(): void {
    this.destroyed = true
    this.emit('closed')
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
  readonly protocols = new Map<string, Listener>()
  readonly webRequest = {
    onBeforeRequest: (listener: NonNullable<FakeSession['beforeRequest']>) => {
      this.beforeRequest = listener
    },
  }
  readonly protocol = {
    handle: (scheme: string, handler: Listener) => {
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

export const session = {
  fromPartition(partition: string): FakeSession {
    const existing = byPartition.get(partition)
    if (existing) return existing
    const created = new FakeSession(partition)
    byPartition.set(partition, created)
    sessions.push(created)
    return created
  },
}

export const openedExternally: string[] = []
export const shell = {
  async openExternal(url: string): Promise<void> {
    openedExternally.push(url)
  },
}

export const BrowserWindow = FakeBrowserWindow

/** Forgets every session and window, so the next `fromPartition` makes a
 *  new session (as a fresh app launch would). */
export function resetFakeElectron(): void {
  byPartition.clear()
  sessions.length = 0
  FakeBrowserWindow.created.length = 0
  openedExternally.length = 0
}

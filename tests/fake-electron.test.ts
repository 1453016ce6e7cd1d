import { beforeEach, describe, expect, it } from 'vitest'
import {
  DEFAULT_APPLICATION_MENU,
  FakeBrowserWindow,
  FakeWebContents,
  Menu,
  app,
  fakePlatform,
  resetFakeElectron,
} from './support/fake-electron.ts'

// The fake `electron` module stands in for the Electron binary, which cannot
// run here. A test against it is only as good as its likeness where our code
// depends on Electron's behaviour, so these pin that likeness to Electron
// 45's source (cited in the fake): if a change made the fake kinder than
// Electron, the window tests could pass on code that fails in the app.

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

  it('destroys the webContents once its window has closed, and calls once-listeners once', () => {
    const win = new FakeBrowserWindow({ webPreferences: {} })
    const order: string[] = []
    win.once('closed', () => order.push('closed'))
    win.webContents.once('destroyed', () => order.push('destroyed'))
    win.close()
    win.close()
    expect(order).toEqual(['closed', 'destroyed'])
    expect(win.webContents.isDestroyed()).toBe(true)
  })
})

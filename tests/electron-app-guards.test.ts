import { beforeEach, describe, expect, it, vi } from 'vitest'
import {
  applicationMenuTemplate,
  installApplicationMenu,
  type ApplicationMenuFacts,
} from '../src/main/electron/application-menu.ts'
import {
  guardEveryWebContents,
  lockDownDefaultSession,
} from '../src/main/electron/web-contents-guard.ts'
import {
  DEFAULT_APPLICATION_MENU,
  FakeBrowserWindow,
  FakeWebContents,
  Menu,
  app,
  fakeEvent,
  fakePlatform,
  resetFakeElectron,
  session,
  type FakeMenu,
} from './support/fake-electron.ts'

// No Electron binary exists here, so the fake `electron` module
// (tests/support/fake-electron.ts, pinned by fake-electron.test.ts) stands in
// for it: the app-wide guards and the menu are the real code, driven the way
// Electron drives them.
vi.mock('electron', () => import('./support/fake-electron.ts'))

beforeEach(() => resetFakeElectron())

describe('every webContents, whoever made it (electron mocked: no binary here)', () => {
  it('cannot navigate any frame, open windows, attach webviews, move itself or use direct UDP', () => {
    guardEveryWebContents(app as never)
    const stray = new FakeBrowserWindow({ webPreferences: {} })
    const contents = stray.webContents
    const before = { ...stray.bounds }
    expect(contents.navigate('https://example.com/')).toBe('cancelled')
    expect(contents.navigate('https://example.com/f', { isMainFrame: false })).toBe('cancelled')
    expect(contents.open('https://example.com/')).toEqual({ action: 'deny' })
    const webview = fakeEvent()
    contents.emit('will-attach-webview', webview, {}, {})
    expect(webview.defaultPrevented).toBe(true)
    contents.requestContentBounds({ x: 7, y: 7, width: 1, height: 1 })
    expect(stray.bounds).toEqual(before)
    expect(contents.getWebRTCIPHandlingPolicy()).toBe('disable_non_proxied_udp')
  })

  it('is guarded even when it has no window (e.g. made by a library)', () => {
    guardEveryWebContents(app as never)
    const contents = new FakeWebContents()
    expect(contents.getWebRTCIPHandlingPolicy()).toBe('disable_non_proxied_udp')
    expect(contents.navigate('https://example.com/')).toBe('cancelled')
  })
})

describe('the default session, which nothing of Assent uses (electron mocked)', () => {
  it('grants no permission, device or download and cancels every request', () => {
    const defaultSession = session.defaultSession
    lockDownDefaultSession(defaultSession as never)
    const requested: unknown[] = []
    defaultSession.permissionRequestHandler?.({}, 'media', (granted: unknown) =>
      requested.push(granted),
    )
    expect(requested).toEqual([false])
    expect(defaultSession.permissionCheckHandler?.({}, 'notifications', '', {})).toBe(false)
    expect(defaultSession.devicePermissionHandler?.({ deviceType: 'hid' })).toBe(false)
    expect(defaultSession.spellChecker).toBe(false)
    const download = fakeEvent()
    defaultSession.emit('will-download', download)
    expect(download.defaultPrevented).toBe(true)
    for (const url of ['https://example.com/', 'file:///etc/passwd', 'devtools://devtools/']) {
      expect(defaultSession.verdictFor(url), url).toEqual({ cancel: true })
    }
  })
})

const FORBIDDEN_ROLES = ['reload', 'forcereload', 'toggledevtools']
/** Roles whose submenu Electron fills in itself (menu-item-roles.ts). */
const SUBMENU_ROLES = ['appmenu', 'filemenu', 'editmenu', 'viewmenu', 'windowmenu', 'sharemenu']

/** Every role in a template, lowercased as Electron matches them. */
function rolesIn(items: readonly unknown[]): string[] {
  return items.flatMap((item) => {
    const { role, submenu } = item as { role?: string; submenu?: unknown[] }
    return [
      ...(role ? [role.toLowerCase()] : []),
      ...(Array.isArray(submenu) ? rolesIn(submenu) : []),
    ]
  })
}

function facts(platform: NodeJS.Platform, developmentBuild: boolean): ApplicationMenuFacts {
  return {
    platform,
    developmentBuild,
    appName: 'Assent',
    labels: { edit: 'Edit', window: 'Window', developer: 'Developer' },
  }
}

describe('the application menu (electron mocked)', () => {
  for (const platform of ['darwin', 'linux', 'win32'] as const) {
    it(`replaces Electron's default menu and has no Reload or DevTools in a release build (${platform})`, () => {
      fakePlatform.current = platform
      installApplicationMenu(Menu as never, facts(platform, false))
      const installed = Menu.getApplicationMenu() as FakeMenu | null
      expect(installed).not.toBe(DEFAULT_APPLICATION_MENU)
      const roles = rolesIn(installed?.template ?? [])
      expect(roles.filter((role) => FORBIDDEN_ROLES.includes(role))).toEqual([])
      expect(roles.filter((role) => SUBMENU_ROLES.includes(role))).toEqual([])
    })
  }

  it('keeps copy and paste and a way to quit on macOS', () => {
    const roles = rolesIn(applicationMenuTemplate(facts('darwin', false)) ?? [])
    expect(roles).toEqual(expect.arrayContaining(['copy', 'paste', 'cut', 'selectall', 'quit']))
  })

  it('has no menu bar at all on Windows and Linux in a release build', () => {
    expect(applicationMenuTemplate(facts('linux', false))).toBeNull()
    expect(applicationMenuTemplate(facts('win32', false))).toBeNull()
  })

  it('adds Toggle DevTools, and still no Reload, in a development build', () => {
    for (const platform of ['darwin', 'linux'] as const) {
      const roles = rolesIn(applicationMenuTemplate(facts(platform, true)) ?? [])
      expect(roles).toContain('toggledevtools')
      expect(roles.filter((role) => role === 'reload' || role === 'forcereload')).toEqual([])
    }
  })
})

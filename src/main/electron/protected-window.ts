import { randomUUID } from 'node:crypto'
import { BrowserWindow, session, type Session } from 'electron'
import type { ProtectedWindow, ProtectedWindowFactory } from '../core/host-port.ts'
import { SparePool, type SpareTiming, type WindowSize } from '../core/spare-window.ts'
import { CONSENT_SITE } from '../core/page-sites.ts'
import { builtPath } from './app-layout.ts'
import { ConsentSessionPool, MAX_CONSENT_SESSIONS } from './consent-session-pool.ts'
import { isSiteUrl, servePageFile } from './page-files.ts'
import {
  ElectronProtectedWindow,
  type ElectronProtectedWindowFactoryOptions,
} from './protected-window-handle.ts'
import { grantNothing } from './web-contents-guard.ts'

/**
 * Opens each protected window in an in-memory session (random
 * partition name, no `persist:`) that no other live window uses and that
 * was cleared since its last window closed, so no cookie, cache, permission
 * or storage is shared with the workbench or with an earlier prompt. The
 * sessions come from a small pool (consent-session-pool.ts says why).
 */
export class ElectronProtectedWindowFactory implements ProtectedWindowFactory {
  private readonly options: ElectronProtectedWindowFactoryOptions
  private readonly spares: SparePool<ElectronProtectedWindow>
  private readonly sessions: ConsentSessionPool<Session>
  /** Windows handed to a prompt and not closed yet. */
  private readonly claimed = new Set<ElectronProtectedWindow>()

  constructor(options: ElectronProtectedWindowFactoryOptions) {
    this.options = options
    const rendererDir = builtPath(options.appRoot, 'rendererDir')
    this.sessions = new ConsentSessionPool({
      maxSessions: MAX_CONSENT_SESSIONS,
      create: () => {
        const consentSession = session.fromPartition(`assent-consent-${randomUUID()}`)
        lockDownConsentSession(consentSession, rendererDir)
        return consentSession
      },
      clear: clearConsentSession,
      ...(options.onDiagnostic ? { onDiagnostic: options.onDiagnostic } : {}),
    })
    // No spare is prepared while a prompt's window is open: a new window
    // could draw the eye or take focus from the one being decided in.
    this.spares = new SparePool(
      (size) => this.prepare(size),
      (error) => options.onDiagnostic?.(`a spare protected window failed: ${String(error)}`),
      { mayPrepare: () => this.claimed.size === 0 },
    )
  }

  async open(promptId: string, size: WindowSize): Promise<ProtectedWindow> {
    const window = (await this.spares.take(size)).claim(promptId)
    this.claimed.add(window)
    window.onClosed(() => {
      this.claimed.delete(window)
      this.spares.idle()
    })
    this.options.onOpened?.(promptId, window.windowId)
    return window
  }

  /** Prepares the first spare, so even the first prompt finds one. */
  warm(size: WindowSize): void {
    this.spares.warm(size)
  }

  /** When the first spare is prepared: once the workbench is quiet. */
  get spareTiming(): SpareTiming {
    return this.spares
  }

  /** Closes the spare: a hidden window must not keep the app running once
   *  the workbench is gone. A later prompt prepares its window afresh. */
  discardSpare(): void {
    this.spares.discardSpare()
  }

  /** Closes the spare and prepares no other (the app is quitting). */
  close(): void {
    this.spares.close()
  }

  /** A hidden window with the consent page loaded and no prompt. */
  private async prepare(size: WindowSize): Promise<ElectronProtectedWindow> {
    const lease = await this.sessions.lease()
    let win: BrowserWindow
    try {
      win = this.createWindow(size, lease.session)
    } catch (error) {
      lease.release()
      throw error
    }
    const window = new ElectronProtectedWindow(win, lease, this.options)
    try {
      await window.load()
    } catch (error) {
      // A window whose page did not load must not linger hidden.
      window.close()
      throw error
    }
    return window
  }

  private createWindow(size: WindowSize, consentSession: Session): BrowserWindow {
    const { appRoot, developmentBuild } = this.options
    // Settings are written inline so a static audit reads exactly these.
    const win = new BrowserWindow({
      width: size.width,
      height: size.height,
      minWidth: 420,
      minHeight: 480,
      show: false,
      title: 'Assent',
      autoHideMenuBar: true,
      minimizable: false,
      fullscreenable: false,
      webPreferences: {
        session: consentSession,
        sandbox: true,
        contextIsolation: true,
        nodeIntegration: false,
        nodeIntegrationInSubFrames: false,
        nodeIntegrationInWorker: false,
        webviewTag: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        experimentalFeatures: false,
        devTools: developmentBuild,
        spellcheck: false,
        safeDialogs: true,
        disableBlinkFeatures: 'Auxclick',
        navigateOnDragDrop: false,
        preload: builtPath(appRoot, 'protectedPreload'),
      },
    })
    // No window menu on Windows and Linux (macOS has only the application
    // menu, which application-menu.ts keeps free of Reload and DevTools).
    win.removeMenu()
    // Screen capture and screen sharing get a blank window (macOS, Windows):
    // a webhook secret or a form's password is not recorded or streamed.
    win.setContentProtection(true)
    return win
  }
}

/**
 * The consent session serves one thing, the consent page, and grants
 * nothing: every permission is refused, every request that is not the page
 * or its stylesheet is cancelled, downloads are refused, and no extension is
 * ever loaded into it.
 */
function lockDownConsentSession(consentSession: Session, rendererDir: string): void {
  grantNothing(consentSession)
  consentSession.setSpellCheckerEnabled(false)
  consentSession.webRequest.onBeforeRequest((details, callback) =>
    callback({ cancel: !isSiteUrl(CONSENT_SITE, details.url) }),
  )
  consentSession.protocol.handle(CONSENT_SITE.scheme, (request) =>
    servePageFile(CONSENT_SITE, rendererDir, request),
  )
}

/** Everything a page could have left in its session: storage of every
 *  kind, the HTTP and code caches, cookies, and HTTP auth. The handlers set
 *  by `lockDownConsentSession` stay. */
async function clearConsentSession(consentSession: Session): Promise<void> {
  await consentSession.clearData()
  await consentSession.clearAuthCache()
}

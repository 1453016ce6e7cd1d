import { BrowserWindow, session, type Session } from 'electron'
import type { WorkbenchEvent } from '../../common/assent-gui.ts'
import { IPC } from '../../common/ipc-channels.ts'
import { pageOf, type ExpectedSender } from '../core/sender-validator.ts'
import { WORKBENCH_SITE } from '../core/page-sites.ts'
import { builtPath } from './app-layout.ts'
import { isSiteUrl, servePageFile } from './page-files.ts'
import { WEBRTC_IP_HANDLING_POLICY, grantNothing } from './web-contents-guard.ts'

/** Persistent, so the workbench keeps its own preferences across launches;
 *  separate from the default session, which nothing of ours uses. */
const WORKBENCH_PARTITION = 'persist:assent-workbench'

export interface WorkbenchWindowOptions {
  appRoot: string
  /** The build-time flavour (see electron.vite.config.ts): DevTools and
   *  their pages only in a development build. */
  developmentBuild: boolean
}

export interface WorkbenchWindow {
  readonly window: BrowserWindow
  /** What its IPC handlers expect of a sender, or `undefined` once closed. */
  expectedSender(): ExpectedSender | undefined
  /** Forwards an already-filtered runtime event or status to the page. */
  send(event: WorkbenchEvent): void
}

/**
 * The workbench shows model output, so it is treated as hostile: sandboxed,
 * isolated, no Node, no navigation, no new windows, no permissions, no
 * network, and nothing it does opens anything outside the app (it renders
 * no links; if it ever needs to, that is an explicit, schema-checked request
 * to main, never a navigation or `window.open` turned into `openExternal`).
 */
export function openWorkbenchWindow(options: WorkbenchWindowOptions): WorkbenchWindow {
  const { appRoot, developmentBuild } = options
  const workbenchSession = prepareWorkbenchSession(
    builtPath(appRoot, 'rendererDir'),
    developmentBuild,
  )

  // Settings are written inline so a static audit reads exactly these.
  const win = new BrowserWindow({
    width: 1_200,
    height: 800,
    minWidth: 760,
    minHeight: 520,
    show: false,
    title: 'Assent',
    webPreferences: {
      session: workbenchSession,
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
      preload: builtPath(appRoot, 'workbenchPreload'),
    },
  })
  const contents = win.webContents
  const webContentsId = contents.id

  // Electron's navigation throttle emits 'will-frame-navigate' first, for
  // every frame, and cancels the navigation when it is prevented; then
  // 'will-navigate' for the main frame (electron_navigation_throttle.cc).
  // Both are prevented, so neither depends on the other firing.
  contents.on('will-frame-navigate', (event) => event.preventDefault())
  contents.on('will-navigate', (event) => event.preventDefault())
  contents.on('will-redirect', (event) => event.preventDefault())
  contents.on('will-attach-webview', (event) => event.preventDefault())
  // `window.moveTo`/`resizeTo` would move the window by default
  // (WebContents::SetContentsBounds): the page must not place itself over
  // or away from anything.
  contents.on('content-bounds-updated', (event) => event.preventDefault())
  contents.setWindowOpenHandler(() => ({ action: 'deny' }))
  // WebRTC could reach the network around the session's request filter.
  contents.setWebRTCIPHandlingPolicy(WEBRTC_IP_HANDLING_POLICY)

  win.once('ready-to-show', () => win.show())
  void win.loadURL(WORKBENCH_SITE.pageUrl)

  return {
    window: win,
    expectedSender: () =>
      win.isDestroyed()
        ? undefined
        : {
            webContentsId,
            mainFrame: () => win.webContents.mainFrame,
            ...pageOf(WORKBENCH_SITE.pageUrl),
          },
    send: (event) => {
      if (!win.isDestroyed()) contents.send(IPC.runtimeEvent, event)
    },
  }
}

const preparedSessions = new WeakSet<Session>()

/** Locks the workbench session down once: `protocol.handle` may be called
 *  only once per scheme and session. */
function prepareWorkbenchSession(rendererDir: string, developmentBuild: boolean): Session {
  const workbenchSession = session.fromPartition(WORKBENCH_PARTITION)
  if (preparedSessions.has(workbenchSession)) return workbenchSession
  preparedSessions.add(workbenchSession)
  grantNothing(workbenchSession)
  // The workbench talks to main over IPC only; it has no reason to fetch
  // anything from anywhere else, and model output must not make it try.
  workbenchSession.webRequest.onBeforeRequest((details, callback) => {
    const allowed =
      isSiteUrl(WORKBENCH_SITE, details.url) || (developmentBuild && isDevToolsUrl(details.url))
    callback({ cancel: !allowed })
  })
  workbenchSession.protocol.handle(WORKBENCH_SITE.scheme, (request) =>
    servePageFile(WORKBENCH_SITE, rendererDir, request),
  )
  return workbenchSession
}

/** DevTools' own frontend shares the inspected page's session; the
 *  development build needs it. */
function isDevToolsUrl(url: string): boolean {
  try {
    return new URL(url).protocol === 'devtools:'
  } catch {
    return false
  }
}

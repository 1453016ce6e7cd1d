import { BrowserWindow, session, type Session } from 'electron'
import type { WorkbenchEvent } from '../../common/assent-gui.ts'
import { IPC } from '../../common/ipc-channels.ts'
import { TrustedInputLog } from '../core/input-recency.ts'
import { pageOf, type ExpectedSender } from '../core/sender-validator.ts'
import { WORKBENCH_SITE } from '../core/page-sites.ts'
import { builtPath } from './app-layout.ts'
import { isSiteUrl, servePageFile } from './page-files.ts'
import { WEBRTC_IP_HANDLING_POLICY, grantNothing } from './web-contents-guard.ts'

/** Persistent, so the workbench keeps its own preferences across launches;
 *  separate from the default session, which nothing of ours uses. */
const WORKBENCH_PARTITION = 'persist:assent-workbench'

/** How many times in a row a crashed workbench page is loaded again before
 *  main gives up on it (a page that crashes as it loads would otherwise
 *  loop); a load that finishes resets the count, and bringing the window
 *  forward (`revive`) tries again. */
export const MAX_WORKBENCH_RELOADS = 3

export interface WorkbenchWindowOptions {
  appRoot: string
  /** The build-time flavour (see electron.vite.config.ts): DevTools and
   *  their pages only in a development build. */
  developmentBuild: boolean
  /** A monotonic clock (`performance.now`) for the time of its presses. */
  now?: () => number
  onDiagnostic?: (message: string) => void
}

export interface WorkbenchWindow {
  readonly window: BrowserWindow
  /** What its IPC handlers expect of a sender, or `undefined` once closed. */
  expectedSender(): ExpectedSender | undefined
  /** Forwards an already-filtered runtime event or status to the page. */
  send(event: WorkbenchEvent): void
  /** When the person last pressed something in the workbench (a primary
   *  mouse press or release, a touch tap), as the browser process saw it;
   *  a script in the page cannot make one. Keys do not count: people type
   *  here. */
  lastPressAtMs(): number | undefined
  /** Loads the page again if its renderer is gone (before the window is
   *  brought forward: a dead window must not be focused as it is). */
  revive(): void
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

  const now = options.now ?? (() => performance.now())
  const presses = new TrustedInputLog('pointer')
  contents.on('input-event', (_event, input) => presses.record(input, now()))

  // A renderer that crashed (or was killed) leaves a blank window for good:
  // its page is loaded afresh, a bounded number of times in a row.
  let reloads = 0
  const load = () => {
    void win.loadURL(WORKBENCH_SITE.pageUrl).catch((error: unknown) => {
      options.onDiagnostic?.(`the workbench page did not load: ${String(error)}`)
    })
  }
  contents.on('did-finish-load', () => {
    reloads = 0
  })
  contents.on('render-process-gone', (_event, details: { reason?: string }) => {
    if (win.isDestroyed()) return
    options.onDiagnostic?.(`the workbench renderer is gone (${details?.reason ?? 'unknown'})`)
    if (reloads >= MAX_WORKBENCH_RELOADS) return
    reloads += 1
    load()
  })

  win.once('ready-to-show', () => win.show())
  load()

  return {
    lastPressAtMs: () => presses.lastInputAtMs,
    revive: () => {
      if (win.isDestroyed() || !contents.isCrashed()) return
      reloads = 0
      load()
    },
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
  // No spelling service: what the person types stays on the machine, and
  // no dictionary is downloaded for the session.
  workbenchSession.setSpellCheckerEnabled(false)
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

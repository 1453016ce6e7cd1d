import { BrowserWindow, session, shell, type Session } from 'electron'
import type { WorkbenchEvent } from '../../common/assent-gui.ts'
import { IPC } from '../../common/ipc-channels.ts'
import { TrustedInputLog, inputPrecedesDecision } from '../core/input-recency.ts'
import { pageOf, type ExpectedSender } from '../core/sender-validator.ts'
import { WORKBENCH_SITE } from '../core/page-sites.ts'
import { builtPath } from './app-layout.ts'
import { externalLinkTarget } from './external-links.ts'
import { isSiteUrl, servePageFile } from './page-files.ts'

/** Persistent, so the workbench keeps its own preferences across launches;
 *  separate from the default session, which nothing of ours uses. */
const WORKBENCH_PARTITION = 'persist:assent-workbench'

export interface WorkbenchWindowOptions {
  appRoot: string
  isPackaged: boolean
  /** A monotonic clock for input recency (`performance.now`). */
  now: () => number
  onDiagnostic?: (message: string) => void
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
 * network. Links the person clicks open in their browser, and only http(s).
 */
export function openWorkbenchWindow(options: WorkbenchWindowOptions): WorkbenchWindow {
  const { appRoot, isPackaged } = options
  const workbenchSession = prepareWorkbenchSession(builtPath(appRoot, 'rendererDir'), isPackaged)

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
      devTools: !isPackaged,
      spellcheck: false,
      safeDialogs: true,
      disableBlinkFeatures: 'Auxclick',
      navigateOnDragDrop: false,
      preload: builtPath(appRoot, 'workbenchPreload'),
    },
  })
  const contents = win.webContents
  const webContentsId = contents.id
  const inputs = new TrustedInputLog()
  contents.on('input-event', (_event, input) => inputs.record(input, options.now()))

  // A link never navigates the workbench. If the person just clicked it and
  // it is plain http(s), it opens in their browser instead.
  const openIfClicked = (url: string) => {
    const target = externalLinkTarget(url)
    if (target === undefined || !inputPrecedesDecision(inputs.lastInputAtMs, options.now())) {
      options.onDiagnostic?.(`did not open a link that was not a clicked http(s) URL`)
      return
    }
    void shell.openExternal(target)
  }
  contents.on('will-navigate', (event) => {
    event.preventDefault()
    openIfClicked(event.url)
  })
  contents.on('will-redirect', (event) => event.preventDefault())
  contents.on('will-frame-navigate', (event) => event.preventDefault())
  contents.on('will-attach-webview', (event) => event.preventDefault())
  contents.setWindowOpenHandler(({ url }) => {
    openIfClicked(url)
    return { action: 'deny' }
  })

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
function prepareWorkbenchSession(rendererDir: string, isPackaged: boolean): Session {
  const workbenchSession = session.fromPartition(WORKBENCH_PARTITION)
  if (preparedSessions.has(workbenchSession)) return workbenchSession
  preparedSessions.add(workbenchSession)
  workbenchSession.setPermissionRequestHandler((_webContents, _permission, callback) =>
    callback(false),
  )
  workbenchSession.setPermissionCheckHandler(() => false)
  workbenchSession.setDevicePermissionHandler(() => false)
  workbenchSession.on('will-download', (event) => event.preventDefault())
  // The workbench talks to main over IPC only; it has no reason to fetch
  // anything from anywhere else, and model output must not make it try.
  workbenchSession.webRequest.onBeforeRequest((details, callback) => {
    const allowed =
      isSiteUrl(WORKBENCH_SITE, details.url) || (!isPackaged && isDevToolsUrl(details.url))
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

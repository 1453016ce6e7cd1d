/**
 * Electron entry of main (trusted). Thin: it checks how it was started, wires
 * the host-agnostic core (MainServices) to Electron windows, the utility
 * process launcher and IPC, and nothing more. Every decision lives in pure,
 * tested functions under src/main/core/ and src/main/electron/.
 */
import { Notification, app, dialog, ipcMain, nativeTheme, protocol } from 'electron'
import type { Language, Theme } from '../common/consent-view.ts'
import { CONSENT_WINDOW_SIZE } from './core/consent-controller.ts'
import { MainServices } from './core/main-services.ts'
import { mcpConfigPathFromEnv } from './core/mcp-config-path.ts'
import { SmokeWindowLog, installSmokeHooks, smokeHooksEnabled } from './electron/smoke-hooks.ts'
import { loadIntegrityKey } from './core/secret-store-selection.ts'
import { PRIVILEGED_SCHEMES, builtPath } from './electron/app-layout.ts'
import { refusalToStart } from './electron/debug-switches.ts'
import { ElectronProtectedWindowFactory } from './electron/protected-window.ts'
import { UtilityProcessLauncher } from './electron/utility-launcher.ts'
import { registerWorkbenchIpc } from './electron/workbench-ipc.ts'
import { openWorkbenchWindow, type WorkbenchWindow } from './electron/workbench-window.ts'

const diagnostic = (message: string) => console.warn(`assent main: ${message}`)

const refusal = refusalToStart({
  argv: process.argv,
  hasSwitch: (name) => app.commandLine.hasSwitch(name),
  platform: process.platform,
  isPackaged: app.isPackaged,
})

if (refusal !== undefined) {
  console.error(refusal)
  // Safe before `ready`; a packaged app started from a shortcut has no console.
  dialog.showErrorBox('Assent did not start', refusal)
  app.exit(1)
} else if (!app.requestSingleInstanceLock()) {
  // Another instance owns the runtime and the data dir; it focuses its own
  // workbench on 'second-instance'.
  app.quit()
} else {
  // Both must happen before `ready`.
  protocol.registerSchemesAsPrivileged(PRIVILEGED_SCHEMES)
  app.enableSandbox()
  guardEveryWebContents()
  start().catch((error: unknown) => {
    dialog.showErrorBox('Assent could not start', (error as Error)?.message ?? String(error))
    app.exit(1)
  })
}

async function start(): Promise<void> {
  await app.whenReady()
  const appRoot = app.getAppPath()
  const isPackaged = app.isPackaged
  const now = () => performance.now()
  let workbench: WorkbenchWindow | undefined
  const smokeLog = smokeHooksEnabled(isPackaged, process.env) ? new SmokeWindowLog() : undefined

  const windows = new ElectronProtectedWindowFactory({
    appRoot,
    isPackaged,
    now,
    onDiagnostic: diagnostic,
    ...(smokeLog ? { onOpened: smokeLog.record } : {}),
    // Hook: a decision that passed the host's checks (sender, shape, prompt,
    // recent click) goes to the consent controller, which checks the rest.
    onDecision: (promptId, answer, window, values) =>
      services.controller.handleDecision(promptId, answer, window, values),
  })

  const dataDir = process.env.ASSENT_DATA_DIR ?? app.getPath('userData')
  const mcpConfigPath = mcpConfigPathFromEnv(process.env)
  // Before any window: without its integrity key Assent does not start (the
  // error names the fix), and the file fallback's warning is said up front.
  const integrityKey = await loadIntegrityKey(dataDir, { warn: diagnostic })

  const services: MainServices = new MainServices({
    launcher: new UtilityProcessLauncher(builtPath(appRoot, 'runtimeEntry')),
    dataDir,
    integrityKey,
    // The smoke scenario limits the ceiling agent to its throwaway workspace.
    ...(process.env.ASSENT_SCOPED_ROOTS
      ? { scopedRoots: process.env.ASSENT_SCOPED_ROOTS.split(':').filter(Boolean) }
      : {}),
    ...(mcpConfigPath === undefined ? {} : { mcpConfigPath }),
    windows,
    notifier: { send: (event) => workbench?.send(event) },
    preferences: systemPreferences,
    approvalNotifier: {
      notify: ({ approvalId, roomId, title, body }) => {
        const window = workbench?.window
        if (!window || window.isDestroyed() || window.isFocused()) return
        if (!Notification.isSupported()) return
        const notification = new Notification({ title, body })
        notification.on('click', () => {
          showWorkbench()
          workbench?.send({
            type: 'approval.focus',
            data: { approvalId, ...(roomId === undefined ? {} : { roomId }) },
          })
        })
        notification.show()
      },
    },
    onDiagnostic: diagnostic,
  })

  // Hooks: `relay` goes to the renderer relay's allowlist; `review`
  // (IPC.reviewApproval) and `mode` (IPC.requestModeChange) go to the consent
  // controller, which can only open the protected window.
  registerWorkbenchIpc({
    ipc: ipcMain,
    expectedSender: () => workbench?.expectedSender(),
    handle: (channel, args) => services.handleWorkbenchCall(channel, args),
    onRefused: (channel, reason) => diagnostic(`refused ${channel}: ${reason}`),
  })

  const showWorkbench = () => {
    if (workbench && !workbench.window.isDestroyed()) {
      if (workbench.window.isMinimized()) workbench.window.restore()
      workbench.window.focus()
      return
    }
    workbench = openWorkbenchWindow({ appRoot, isPackaged, now, onDiagnostic: diagnostic })
    // The prepared consent window is hidden: it must not keep the app alive
    // once the person closed the workbench.
    workbench.window.once('closed', () => windows.discardSpare())
  }

  app.on('second-instance', showWorkbench)
  app.on('activate', showWorkbench)
  app.on('window-all-closed', () => app.quit())

  let stopped = false
  app.on('before-quit', (event) => {
    if (stopped) return
    // Close every prompt (nothing minted) and stop the runtime cleanly first.
    event.preventDefault()
    windows.close()
    void services.stop().finally(() => {
      stopped = true
      app.quit()
    })
  })

  if (smokeLog) installSmokeHooks(services, smokeLog, () => workbench?.window.id)
  showWorkbench()
  await services.start()
  windows.warm(CONSENT_WINDOW_SIZE)
}

/**
 * Defaults for any webContents, including ones we never meant to create:
 * no webviews, no new windows, no navigation. The workbench and consent
 * windows add their own, stricter handlers on top.
 */
function guardEveryWebContents(): void {
  app.on('web-contents-created', (_event, contents) => {
    contents.on('will-attach-webview', (event) => event.preventDefault())
    contents.on('will-navigate', (event) => event.preventDefault())
    contents.setWindowOpenHandler(() => ({ action: 'deny' }))
  })
}

function systemPreferences(): { lang: Language; theme: Theme } {
  const [preferred = app.getLocale()] = app.getPreferredSystemLanguages()
  return {
    lang: preferred.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en',
    theme: nativeTheme.shouldUseDarkColors ? 'dark' : 'light',
  }
}

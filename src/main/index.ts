/**
 * Electron entry of main (trusted). Thin: it checks how it was started, wires
 * the host-agnostic core (MainServices) to Electron windows, the utility
 * process launcher and IPC, and nothing more. Every decision lives in pure,
 * tested functions under src/main/core/ and src/main/electron/.
 */
import {
  Menu,
  Notification,
  app,
  dialog,
  ipcMain,
  nativeTheme,
  protocol,
  safeStorage,
  session,
} from 'electron'
import type { Language, Theme } from '../common/consent-view.ts'
import { translate } from '../common/i18n/index.ts'
import { workbenchError } from '../common/workbench-error.ts'
import { loadAppDataDirSecrets } from './core/app-secret-store.ts'
import { CONSENT_WINDOW_SIZE } from './core/consent-controller.ts'
import { DataDirLock } from './core/data-dir-lock.ts'
import { MainServices } from './core/main-services.ts'
import { inputPrecedesDecision } from './core/input-recency.ts'
import { mcpConfigPathFromEnv } from './core/mcp-config-path.ts'
import { PRIVILEGED_SCHEMES, builtPath } from './electron/app-layout.ts'
import { installApplicationMenu } from './electron/application-menu.ts'
import { refusedDebugSwitches } from './electron/debug-switches.ts'
import { ElectronProtectedWindowFactory } from './electron/protected-window.ts'
import { UtilityProcessLauncher } from './electron/utility-launcher.ts'
import { guardEveryWebContents, lockDownDefaultSession } from './electron/web-contents-guard.ts'
import { registerWorkbenchIpc } from './electron/workbench-ipc.ts'
import { openWorkbenchWindow, type WorkbenchWindow } from './electron/workbench-window.ts'

/**
 * The build's flavour, fixed when it is built (electron.vite.config.ts):
 * true only for `--mode development` (`npm run build`, `npm start`,
 * `npm run dev`), false for any other build, the one `npm run package` packs
 * included. It alone decides DevTools, whether debugging switches are
 * refused, whether ASSENT_SCOPED_ROOTS is read, and whether the smoke port
 * exists at all; never
 * `app.isPackaged`, which Electron derives from the executable's name.
 */
declare const __ASSENT_DEVELOPMENT_BUILD__: boolean
const developmentBuild = __ASSENT_DEVELOPMENT_BUILD__

const diagnostic = (message: string) => console.warn(`assent main: ${message}`)

/** Held from before `ready` until the runtime has stopped; a module-level
 *  reference, so the lock's connection is never collected while main runs. */
let dataDirLock: DataDirLock | undefined

/** Safe before `ready`; a packaged app started from a shortcut has no
 *  console, so the reason goes to a dialog too. */
function refuseToStart(message: string): void {
  console.error(message)
  dialog.showErrorBox(translate(systemLanguage(), 'app.notStarted'), message)
  app.exit(1)
}

const dataDir = process.env.ASSENT_DATA_DIR ?? app.getPath('userData')
const ANOTHER_INSTANCE = Symbol('another instance')
const refusal = startupRefusal()

if (refusal === ANOTHER_INSTANCE) {
  // Another instance with this userData owns the runtime and the data folder;
  // it focuses its own workbench on 'second-instance'.
  app.quit()
} else if (refusal !== undefined) {
  refuseToStart(refusal)
} else {
  // Both must happen before `ready`.
  protocol.registerSchemesAsPrivileged(PRIVILEGED_SCHEMES)
  app.enableSandbox()
  guardEveryWebContents(app)
  start().catch((error: unknown) => {
    dialog.showErrorBox(
      translate(systemLanguage(), 'app.startFailed'),
      (error as Error)?.message ?? String(error),
    )
    app.exit(1)
  })
}

/** Why this process must not go on, checked before `ready`: a debugging
 *  switch on a release build, another instance on this userData (Electron's
 *  lock), or another instance on this data folder (ours; the first cannot see
 *  an instance with another userData). */
function startupRefusal(): string | typeof ANOTHER_INSTANCE | undefined {
  const language = systemLanguage()
  const switches = refusedDebugSwitches({
    argv: process.argv,
    hasSwitch: (name) => app.commandLine.hasSwitch(name),
    platform: process.platform,
    developmentBuild,
  })
  if (switches.length > 0) {
    return translate(language, 'app.debugSwitches', { switches: switches.join(', ') })
  }
  if (!app.requestSingleInstanceLock()) return ANOTHER_INSTANCE
  try {
    dataDirLock = DataDirLock.acquire(dataDir)
  } catch (error) {
    // A lock that could not be checked is not a free one.
    return `${dataDir}: ${(error as Error)?.message ?? String(error)}`
  }
  if (dataDirLock === undefined) return translate(language, 'app.dataDirInUse', { dir: dataDir })
  return undefined
}

async function start(): Promise<void> {
  await app.whenReady()
  const appRoot = app.getAppPath()
  const now = () => performance.now()
  let workbench: WorkbenchWindow | undefined

  lockDownDefaultSession(session.defaultSession)
  installApplicationMenu(Menu, {
    platform: process.platform,
    developmentBuild,
    appName: app.name,
    labels: {
      edit: translate(systemLanguage(), 'app.menu.edit'),
      window: translate(systemLanguage(), 'app.menu.window'),
      developer: translate(systemLanguage(), 'app.menu.developer'),
    },
  })

  // A release build folds this to `undefined` and leaves the module out.
  const smoke = __ASSENT_DEVELOPMENT_BUILD__ ? await import('./electron/smoke-port.ts') : undefined
  const smokeLog = smoke?.smokeAttached() ? new smoke.SmokeWindowLog() : undefined

  const windows = new ElectronProtectedWindowFactory({
    appRoot,
    developmentBuild,
    now,
    onDiagnostic: diagnostic,
    ...(smokeLog ? { onOpened: smokeLog.record } : {}),
    parent: () => workbench?.window,
    // Hook: a decision that passed the host's checks (sender, shape, prompt,
    // recent click) goes to the consent controller, which checks the rest.
    onDecision: (promptId, answer, window, values) =>
      services.controller.handleDecision(promptId, answer, window, values),
  })

  const mcpConfigPath = mcpConfigPathFromEnv(process.env)
  // Before any window: without its integrity key Assent does not start (the
  // error names the fix), and the file fallback's warning is said up front.
  // Electron's safeStorage seals it (no native module to rebuild), after
  // moving a key the keychain already held (app-secret-store.ts). The
  // rollback anchor lives in the same store; quitting advances it
  // (`before-quit` below stops the runtime cleanly first).
  const { integrityKey, rollbackAnchor, keyInDataDirFile } = await loadAppDataDirSecrets(dataDir, {
    safeStorage,
    warn: diagnostic,
  })

  const services: MainServices = new MainServices({
    launcher: new UtilityProcessLauncher(builtPath(appRoot, 'runtimeEntry')),
    dataDir,
    integrityKey,
    rollbackAnchor,
    keyInDataDirFile,
    // The smoke scenario limits the ceiling agent to its throwaway workspace.
    // Development builds only: a release build folds this away, so nothing
    // in a person's environment can reshape what the agent may reach.
    ...(__ASSENT_DEVELOPMENT_BUILD__ && process.env.ASSENT_SCOPED_ROOTS
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
          if (approvalId === undefined) return
          workbench?.send({
            type: 'approval.focus',
            data: { approvalId, ...(roomId === undefined ? {} : { roomId }) },
          })
        })
        notification.show()
      },
    },
    // A review takes focus only right after a press in the workbench: a
    // compromised workbench cannot move someone's typing into it.
    mayTakeFocus: () => inputPrecedesDecision(workbench?.lastPressAtMs(), now()),
    onDiagnostic: diagnostic,
  })

  // Hooks: `relay` goes to the renderer relay's allowlist; `review`
  // (IPC.reviewApproval) and `mode` (IPC.requestModeChange) go to the consent
  // controller, which can only open the protected window.
  registerWorkbenchIpc({
    ipc: ipcMain,
    expectedSender: () => workbench?.expectedSender(),
    handle: (channel, args) => {
      windows.spareTiming.busy()
      return services.handleWorkbenchCall(channel, args)
    },
    onRefused: (channel, reason) => diagnostic(`refused ${channel}: ${reason}`),
  })

  let started = false
  const showWorkbench = () => {
    if (workbench && !workbench.window.isDestroyed()) {
      // A workbench whose renderer died is loaded again, never focused blank.
      workbench.revive()
      if (workbench.window.isMinimized()) workbench.window.restore()
      workbench.window.focus()
      return
    }
    workbench = openWorkbenchWindow({ appRoot, developmentBuild, now, onDiagnostic: diagnostic })
    // The first spare waits for the workbench's page: loaded, failed, or
    // gone with its window (a load that never ends holds it only until
    // SparePool's latest time).
    const contents = workbench.window.webContents
    void windows.spareTiming.busyWhile(
      new Promise<void>((settled) => {
        contents.once('did-finish-load', () => settled())
        contents.once('did-fail-load', () => settled())
        contents.once('destroyed', () => settled())
      }),
    )
    workbench.window.once('closed', () => {
      // The prepared protected window is hidden: it must not keep the app
      // alive once the person closed the workbench. An open prompt closes
      // too (nothing minted): its card is gone, and it must not outlive
      // the window it belongs to.
      windows.discardSpare()
      services.controller.closeAll(workbenchError('app_closing', 'the workbench closed'))
    })
    // A workbench opened again (macOS: the dock) prepares spares again.
    if (started) windows.warm(CONSENT_WINDOW_SIZE)
  }

  app.on('second-instance', showWorkbench)
  app.on('activate', showWorkbench)
  app.on('window-all-closed', () => app.quit())

  let stopped = false
  app.on('before-quit', (event) => {
    if (stopped) return
    // Close every prompt (nothing minted) and stop the runtime cleanly
    // first; only then may another instance take the data folder.
    event.preventDefault()
    windows.close()
    void services.stop().finally(() => {
      stopped = true
      dataDirLock?.release()
      app.quit()
    })
  })

  if (smoke && smokeLog) {
    smoke.offerSmokePort(smoke.smokePortFor(services, smokeLog, () => workbench?.window.id))
  }
  showWorkbench()
  await services.start()
  started = true
  // Once the workbench is quiet: a spare prepared beside its first view
  // would slow both (SparePool.warmWhenQuiet).
  windows.spareTiming.warmWhenQuiet(CONSENT_WINDOW_SIZE)
}

/** The first preferred system language, as far as Assent speaks it; also
 *  asked before `ready`, where no answer means English. */
function systemLanguage(): Language {
  let preferred: string | undefined
  try {
    preferred =
      app.getPreferredSystemLanguages()[0] ?? (app.isReady() ? app.getLocale() : undefined)
  } catch {
    preferred = undefined
  }
  return preferred?.toLowerCase().startsWith('zh') ? 'zh-CN' : 'en'
}

function systemPreferences(): { lang: Language; theme: Theme } {
  return {
    lang: systemLanguage(),
    theme: nativeTheme.shouldUseDarkColors ? 'dark' : 'light',
  }
}

import type { MainServices } from '../core/main-services.ts'

/**
 * Hooks the smoke scenario uses on the Electron host to play main's part in
 * the forged-token checks (it needs the runtime connection main holds), to
 * restart the runtime with a shorter approval TTL or question wait, to tell
 * which window is the workbench and which consent window a prompt was shown
 * in (a prepared, hidden spare is neither), and to learn the runtime's
 * process and port so it can check they are gone after quitting. Installed
 * only in an unpackaged development build started with ASSENT_SMOKE_HOOKS=1:
 * a packaged build never exposes its secrets, whatever its environment says.
 */
export function smokeHooksEnabled(isPackaged: boolean, env: NodeJS.ProcessEnv): boolean {
  return !isPackaged && env.ASSENT_SMOKE_HOOKS === '1'
}

/** Which BrowserWindow each prompt was handed, in order. */
export class SmokeWindowLog {
  readonly opened: Array<{ promptId: string; windowId: number }> = []
  readonly record = (promptId: string, windowId: number): void => {
    this.opened.push({ promptId, windowId })
  }
}

export function installSmokeHooks(
  services: MainServices,
  log: SmokeWindowLog,
  workbenchWindowId: () => number | undefined,
): void {
  Object.defineProperty(globalThis, '__assentSmoke', {
    value: Object.freeze({
      connection: () => {
        const connection = services.supervisor.current
        if (!connection) throw new Error('the runtime is not running')
        return { ...connection, consentKey: connection.consentKey.toString('base64url') }
      },
      restartRuntime: async (approvalTtlMs?: number, questionPhaseMs?: number) => {
        await services.restartRuntime({
          ...(approvalTtlMs === undefined ? {} : { approvalTtlMs }),
          ...(questionPhaseMs === undefined ? {} : { questionPhaseMs }),
        })
      },
      consentWindows: () => log.opened.map((entry) => ({ ...entry })),
      workbenchWindowId,
      runtime: () => ({
        pid: services.supervisor.pid,
        port: services.supervisor.current?.port,
      }),
    }),
  })
}

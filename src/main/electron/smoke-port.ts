import type { MainServices } from '../core/main-services.ts'

/**
 * The smoke scenario's way into main, in development builds only.
 *
 * index.ts imports this module behind the build-time constant
 * `__ASSENT_DEVELOPMENT_BUILD__` (electron.vite.config.ts); a release build
 * folds that to `false`, drops the import, and so contains none of this
 * (scripts/release-build-check.ts fails the packaging if this file's
 * SMOKE_PORT_EVENT is found in out/main). Main puts nothing on `globalThis`.
 *
 * How the smoke attaches: it launches the unpackaged Electron binary as
 * `electron -r <attach module> <project root>`. Electron's default app
 * (default_app/main.ts) honours `-r`/`--require` by preloading those modules
 * into the main process (`Module._preloadModules`) before it loads the app's
 * main; Electron's own Node CLI parsing does not take `-r`
 * (IsAllowedOption in shell/common/node_bindings.cc), and a packaged app
 * never runs the default app. The attach module
 * (scripts/smoke/drivers/electron-smoke-attach.cjs) listens for
 * SMOKE_PORT_EVENT on `process`. Main offers the port only when such a
 * listener is already there, so a development build started any other way
 * exposes nothing.
 */

/** The event on `process` that carries the port; also the marker the
 *  release build check searches for. */
export const SMOKE_PORT_EVENT = 'assent:smoke-port'

/**
 * What the smoke scenario may read and do in main: play main's part in the
 * forged-token checks (the runtime connection, with the consent key as
 * base64url), restart the runtime with a shorter approval TTL or question
 * wait, tell which window is the workbench and which window each prompt
 * was handed (a prepared, hidden spare is neither), and learn the runtime's
 * pid and port to check they are gone after quitting.
 */
export interface SmokePort {
  connection(): { port: number; instanceId: string; bearerToken: string; consentKey: string }
  restartRuntime(approvalTtlMs?: number, questionPhaseMs?: number): Promise<void>
  consentWindows(): Array<{ promptId: string; windowId: number }>
  workbenchWindowId(): number | undefined
  runtime(): { pid?: number; port?: number }
}

/** The part of `process` the offer uses. */
export type SmokePortTarget = Pick<NodeJS.EventEmitter, 'listenerCount' | 'emit'>

/** True when the smoke installed its listener before main ran. */
export function smokeAttached(target: SmokePortTarget = process): boolean {
  return target.listenerCount(SMOKE_PORT_EVENT) > 0
}

/** Hands the port to the smoke's listener; nothing happens without one. */
export function offerSmokePort(port: SmokePort, target: SmokePortTarget = process): boolean {
  if (!smokeAttached(target)) return false
  return target.emit(SMOKE_PORT_EVENT, Object.freeze({ ...port }))
}

/** Which BrowserWindow each prompt was handed, in order. */
export class SmokeWindowLog {
  readonly opened: Array<{ promptId: string; windowId: number }> = []
  readonly record = (promptId: string, windowId: number): void => {
    this.opened.push({ promptId, windowId })
  }
}

/** The part of MainServices the port reads and drives. */
export interface SmokePortServices {
  supervisor: Pick<MainServices['supervisor'], 'current' | 'pid'>
  restartRuntime(update: { approvalTtlMs?: number; questionPhaseMs?: number }): Promise<unknown>
}

export function smokePortFor(
  services: SmokePortServices,
  log: SmokeWindowLog,
  workbenchWindowId: () => number | undefined,
): SmokePort {
  return {
    connection: () => {
      const connection = services.supervisor.current
      if (!connection) throw new Error('the runtime is not running')
      return {
        port: connection.port,
        instanceId: connection.instanceId,
        bearerToken: connection.bearerToken,
        consentKey: connection.consentKey.toString('base64url'),
      }
    },
    restartRuntime: async (approvalTtlMs, questionPhaseMs) => {
      await services.restartRuntime({
        ...(approvalTtlMs === undefined ? {} : { approvalTtlMs }),
        ...(questionPhaseMs === undefined ? {} : { questionPhaseMs }),
      })
    },
    consentWindows: () => log.opened.map((entry) => ({ ...entry })),
    workbenchWindowId,
    runtime: () => ({
      ...(services.supervisor.pid === undefined ? {} : { pid: services.supervisor.pid }),
      ...(services.supervisor.current ? { port: services.supervisor.current.port } : {}),
    }),
  }
}

import type { MainServices } from '../core/main-services.ts'

/**
 * Hooks the smoke scenario uses on the Electron host to play main's part in
 * the forged-token checks (it needs the runtime connection main holds) and
 * to restart the runtime with a shorter approval TTL or question wait. Installed only in an
 * unpackaged development build started with ASSENT_SMOKE_HOOKS=1: a packaged
 * build never exposes its secrets, whatever its environment says.
 */
export function smokeHooksEnabled(isPackaged: boolean, env: NodeJS.ProcessEnv): boolean {
  return !isPackaged && env.ASSENT_SMOKE_HOOKS === '1'
}

export function installSmokeHooks(services: MainServices): void {
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
    }),
  })
}

import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { runNodeArgv } from '../../../tests/support/integrity-helpers.ts'

// The Electron binary is missing here, so this runs the attach module the
// way Electron's default app loads it (`-r`, Module._preloadModules, the same
// mechanism as `node -r`) in plain Node, with main's real offer function.

const ATTACH = fileURLToPath(new URL('./electron-smoke-attach.cjs', import.meta.url))
const SMOKE_PORT = fileURLToPath(
  new URL('../../../src/main/electron/smoke-port.ts', import.meta.url),
)

/** Offers a port the way index.ts does and prints what `globalThis` holds. */
const MAIN = `
const { offerSmokePort, smokePortFor, SmokeWindowLog } = await import(${JSON.stringify(SMOKE_PORT)})
const log = new SmokeWindowLog()
log.record('p1', 4)
const offered = offerSmokePort(
  smokePortFor({ supervisor: { current: undefined, pid: 99 }, restartRuntime: async () => {} }, log, () => 1),
)
const hooks = globalThis.__assentSmoke
console.log(JSON.stringify({
  offered,
  hooks: hooks === undefined ? null : { windows: hooks.consentWindows(), workbench: hooks.workbenchWindowId(), runtime: hooks.runtime() },
}))
`

async function runMain(preload: string[]): Promise<unknown> {
  const result = await runNodeArgv([...preload, '--input-type=module', '-e', MAIN], process.env)
  expect(result.stderr).toBe('')
  return JSON.parse(result.stdout)
}

describe('the smoke attach module', () => {
  it('receives the port a development main offers, when preloaded with -r', async () => {
    expect(await runMain(['-r', ATTACH])).toEqual({
      offered: true,
      hooks: { windows: [{ promptId: 'p1', windowId: 4 }], workbench: 1, runtime: { pid: 99 } },
    })
  })

  it('is the only way in: without it main offers nothing and globalThis holds nothing', async () => {
    expect(await runMain([])).toEqual({ offered: false, hooks: null })
  })
})

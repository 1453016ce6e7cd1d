import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RELEASE_OUT_DIR, releaseBuildProblems } from '../scripts/release-build-check.ts'
import { SMOKE_PORT_EVENT } from '../src/main/electron/smoke-port.ts'
import { scaledMs } from '../scripts/test-timing.ts'

// The one test that builds: what it checks is the release flavour of the
// build itself (`electron-vite build --mode release`, what `npm run package`
// packs), made into a scratch folder so out/ keeps the development build the
// other tests use (tests/support/build-once.ts).

const ROOT = resolve(import.meta.dirname, '..')
const ELECTRON_VITE = join(ROOT, 'node_modules', '.bin', 'electron-vite')
const require = createRequire(import.meta.url)

let scratch: string
/** A project-shaped folder holding the release build at out/release/. */
let releaseApp: string

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'assent-release-'))
  releaseApp = join(scratch, 'release-app')
  const build = spawnSync(
    ELECTRON_VITE,
    ['build', '--mode', 'release', '--outDir', join(releaseApp, RELEASE_OUT_DIR)],
    { cwd: ROOT, encoding: 'utf8' },
  )
  if (build.status !== 0)
    throw new Error(`the release build failed:\n${build.stdout}${build.stderr}`)
}, scaledMs(300_000))

afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** electron-builder's own loader for the `beforePack` hook named in
 *  electron-builder.yml (app-builder-lib's resolveFunction). */
async function builderBeforePackHook(): Promise<(context: unknown) => Promise<void>> {
  const config = readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8')
  const hook = /^beforePack:\s*(\S+)\s*$/m.exec(config)?.[1]
  if (!hook) throw new Error('electron-builder.yml names no beforePack hook')
  const { resolveFunction } = require('app-builder-lib/out/util/resolve.js') as {
    resolveFunction: (
      type: string | undefined,
      executor: string,
      name: string,
      root: string,
    ) => Promise<(context: unknown) => Promise<void>>
  }
  const cwd = process.cwd()
  process.chdir(ROOT)
  try {
    return await resolveFunction(undefined, hook, 'beforePack', ROOT)
  } finally {
    process.chdir(cwd)
  }
}

describe('the release build (what npm run package packs)', () => {
  it('contains no smoke port anywhere in main', () => {
    const mainDir = join(releaseApp, RELEASE_OUT_DIR, 'main')
    expect(releaseBuildProblems(mainDir)).toEqual([])
    expect(readFileSync(join(mainDir, 'index.js'), 'utf8')).not.toContain(SMOKE_PORT_EVENT)
  })

  it('reads no ASSENT_SCOPED_ROOTS: nothing in the environment narrows or widens the agent', () => {
    const mainDir = join(releaseApp, RELEASE_OUT_DIR, 'main')
    expect(readFileSync(join(mainDir, 'index.js'), 'utf8')).not.toContain('ASSENT_SCOPED_ROOTS')
    expect(readFileSync(join(ROOT, 'out', 'main', 'index.js'), 'utf8')).toContain(
      'ASSENT_SCOPED_ROOTS',
    )
  })

  it('is what any build makes unless it asks for --mode development', async () => {
    const { default: config } = await import('../electron.vite.config.ts')
    const flavour = (mode: string) =>
      (config as (env: { mode: string; command: 'build' }) => { main: { define: object } })({
        mode,
        command: 'build',
      }).main.define
    expect(flavour('production')).toEqual({ __ASSENT_DEVELOPMENT_BUILD__: 'false' })
    expect(flavour('release')).toEqual({ __ASSENT_DEVELOPMENT_BUILD__: 'false' })
    expect(flavour('development')).toEqual({ __ASSENT_DEVELOPMENT_BUILD__: 'true' })
  })

  it('is told apart from the development build, whose main has the smoke port', () => {
    const problems = releaseBuildProblems(join(ROOT, 'out', 'main'))
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/smoke-port.*development build/)
  })

  it('refuses a folder with no built main at all', () => {
    expect(releaseBuildProblems(join(scratch, 'nothing'))).toEqual([
      `no built main at ${join(scratch, 'nothing', 'index.js')}`,
    ])
  })

  it("is checked by electron-builder's beforePack hook, which refuses a development build", async () => {
    const beforePack = await builderBeforePackHook()
    await expect(
      beforePack({ packager: { info: { appDir: releaseApp } } }),
    ).resolves.toBeUndefined()
    const developmentApp = join(scratch, 'development-app')
    cpSync(join(ROOT, 'out', 'main'), join(developmentApp, RELEASE_OUT_DIR, 'main'), {
      recursive: true,
    })
    await expect(beforePack({ packager: { info: { appDir: developmentApp } } })).rejects.toThrow(
      /refusing to package/,
    )
  })
})

import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type * as Asar from '@electron/asar'
import { FuseState, FuseV1Options, getCurrentFuseWire } from '@electron/fuses'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { STAND_IN_NOTICE } from '../scripts/package/stand-in-electron.ts'
import { scaledMs } from '../scripts/test-timing.ts'
import { SMOKE_PORT_EVENT } from '../src/main/electron/smoke-port.ts'

// `npm run package -- --dir --stand-in-electron`, run for real: the release
// build, electron-builder with electron-builder.yml, the asar and the fuse
// flipping. Only the Electron binary is a stand-in (no Electron can be
// fetched here; scripts/package/stand-in-electron.ts says how it carries
// the fuse wire), so what is read back below is what electron-builder and
// @electron/fuses wrote.

const ROOT = resolve(import.meta.dirname, '..')
const require = createRequire(import.meta.url)
const asar = require('@electron/asar') as typeof Asar
const yaml = require('js-yaml') as { load: (text: string) => unknown }

let scratch: string
let appDir: string
let appAsar: string

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'assent-package-'))
  const result = spawnSync(
    process.execPath,
    ['scripts/package/package.ts', '--dir', '--stand-in-electron', '--out', scratch],
    { cwd: ROOT, encoding: 'utf8' },
  )
  if (result.status !== 0) {
    throw new Error(`packaging failed:\n${result.stdout}${result.stderr}`)
  }
  appDir = join(scratch, 'linux-unpacked')
  appAsar = join(appDir, 'resources', 'app.asar')
}, scaledMs(600_000))

afterAll(() => rmSync(scratch, { recursive: true, force: true }))

/** electron-builder.yml's `electronFuses`, as the person packaging wrote it. */
function intendedFuses(): Record<string, boolean> {
  const config = yaml.load(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8')) as {
    electronFuses?: Record<string, boolean>
  }
  return config.electronFuses ?? {}
}

/** `runAsNode` → FuseV1Options.RunAsNode: electron-builder's keys are
 *  @electron/fuses' option names with a lower-case first letter. */
function fuseIndex(key: string): number {
  const index = (FuseV1Options as unknown as Record<string, number>)[
    key[0]!.toUpperCase() + key.slice(1)
  ]
  if (index === undefined) throw new Error(`electron-builder.yml names an unknown fuse ${key}`)
  return index
}

describe('the packaged app (electron-builder on the release build)', () => {
  it('flips every fuse electron-builder.yml sets, read back from the packaged executable', async () => {
    const executable = join(appDir, 'assent')
    expect(readFileSync(executable, 'utf8')).toContain(STAND_IN_NOTICE)
    const intent = intendedFuses()
    expect(Object.keys(intent).sort()).toEqual(
      [
        'enableCookieEncryption',
        'enableEmbeddedAsarIntegrityValidation',
        'enableNodeCliInspectArguments',
        'enableNodeOptionsEnvironmentVariable',
        'grantFileProtocolExtraPrivileges',
        'onlyLoadAppFromAsar',
        'runAsNode',
      ].sort(),
    )
    const wire = (await getCurrentFuseWire(executable)) as unknown as Record<number, number>
    for (const [key, enabled] of Object.entries(intent)) {
      expect({ key, state: wire[fuseIndex(key)] }).toEqual({
        key,
        state: enabled ? FuseState.ENABLE : FuseState.DISABLE,
      })
    }
  })

  it('packs the release build and nothing of the development tree', () => {
    const files = asar.listPackage(appAsar, { isPack: false })
    for (const part of [
      '/package.json',
      '/out/main/index.js',
      '/out/main/runtime.js',
      '/out/preload/workbench.cjs',
      '/out/preload/protected.cjs',
      '/out/renderer/workbench/index.html',
      '/out/renderer/consent/index.html',
    ]) {
      expect(files).toContain(part)
    }
    const ours = files.filter((file) => !file.startsWith('/node_modules/'))
    expect(ours.filter((file) => /^\/(src|tests|scripts|docs|evidence)\//.test(file))).toEqual([])
    expect(ours.filter((file) => /\.(test|spec)\.tsx?$/.test(file))).toEqual([])
    // Development-only packages never reach the app.
    for (const tool of ['electron', 'electron-vite', 'vite', 'vitest', 'playwright-core']) {
      expect(files).not.toContain(`/node_modules/${tool}/package.json`)
    }
    for (const file of ours.filter((name) => /^\/out\/main\/.*\.js$/.test(name))) {
      const text = asar.extractFile(appAsar, file.slice(1)).toString('utf8')
      expect({ file, smokePort: text.includes(SMOKE_PORT_EVENT) }).toEqual({
        file,
        smokePort: false,
      })
      // electron-vite's dev server is named to main by this variable.
      expect({ file, devServer: text.includes('ELECTRON_RENDERER_URL') }).toEqual({
        file,
        devServer: false,
      })
    }
  })

  it("keeps keytar's native module outside the asar, where a process can load it", () => {
    const files = asar.listPackage(appAsar, { isPack: false })
    const natives = files.filter((file) => /^\/node_modules\/keytar\/.*\.node$/.test(file))
    expect(natives.length).toBeGreaterThan(0)
    for (const file of natives) {
      expect(asar.statFile(appAsar, file.slice(1))).toMatchObject({ unpacked: true })
      expect(existsSync(join(`${appAsar}.unpacked`, file))).toBe(true)
    }
  })
})

/**
 * `npm run package`: builds the release flavour into out/release/, checks it
 * (scripts/release-build-check.ts), then runs electron-builder on
 * electron-builder.yml, which packs it into app.asar and flips the fuses.
 *
 *   npm run package                        installers, on Electron fetched by electron-builder
 *   npm run package -- --dir               the unpacked app only (dist/<platform>-unpacked)
 *   npm run package -- --dir --stand-in-electron [--out <dir>]
 *
 * `--stand-in-electron` is for machines that cannot fetch Electron (CI):
 * electron-builder packs against a stand-in distribution made here
 * (stand-in-electron.ts), so everything but the Electron binary is the real
 * thing: the asar, what goes into it, what stays unpacked, and the fuse
 * flipping, which tests/packaging.test.ts reads back. Two steps are left
 * out then, each for a reason: the native rebuild (`npmRebuild`), since
 * rebuilding keytar for Electron needs Electron's headers, fetched from the
 * network, and nothing will load it (the package cannot run); and every
 * target but the unpacked Linux folder, since the stand-in is Linux-shaped
 * and an installer around a stand-in would only look shippable.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { RELEASE_OUT_DIR, assertReleaseBuild } from '../release-build-check.ts'
import { makeStandInElectronDist } from './stand-in-electron.ts'

const ROOT = resolve(import.meta.dirname, '..', '..')
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name)

export interface PackageOptions {
  /** Only the unpacked app (electron-builder's `--dir`). */
  dir: boolean
  standInElectron: boolean
  /** electron-builder's output folder; dist/ (electron-builder.yml) unless given. */
  out?: string
}

export function parsePackageArgs(argv: string[]): PackageOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      dir: { type: 'boolean', default: false },
      'stand-in-electron': { type: 'boolean', default: false },
      out: { type: 'string' },
    },
    strict: true,
  })
  if (values['stand-in-electron'] && !values.dir) {
    throw new Error('--stand-in-electron packs the unpacked app only: add --dir')
  }
  return {
    dir: values.dir,
    standInElectron: values['stand-in-electron'],
    ...(values.out === undefined ? {} : { out: resolve(values.out) }),
  }
}

function run(command: string, args: string[]): void {
  console.log(`package: ${[command, ...args].join(' ')}`)
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' })
  if (result.status !== 0) {
    throw new Error(`${command} failed (${result.error?.message ?? `exit ${result.status}`})`)
  }
}

export function packageApp(options: PackageOptions): void {
  // An absolute folder: a relative --outDir puts the renderer under its own
  // root (src/renderer/out/...), where packing would not find it.
  const releaseDir = join(ROOT, RELEASE_OUT_DIR)
  rmSync(releaseDir, { recursive: true, force: true })
  run(bin('electron-vite'), ['build', '--mode', 'release', '--outDir', releaseDir])
  assertReleaseBuild(releaseDir)

  const builderArgs = ['--config', 'electron-builder.yml']
  if (options.dir) builderArgs.push('--dir')
  if (options.out !== undefined) builderArgs.push(`-c.directories.output=${options.out}`)
  let standIn: string | undefined
  if (options.standInElectron) {
    standIn = makeStandInElectronDist(mkdtempSync(join(tmpdir(), 'assent-electron-dist-')))
    builderArgs.push('--linux', `-c.electronDist=${standIn}`, '-c.npmRebuild=false')
  }
  try {
    run(bin('electron-builder'), builderArgs)
  } finally {
    if (standIn !== undefined) rmSync(standIn, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  try {
    packageApp(parsePackageArgs(process.argv.slice(2)))
  } catch (error) {
    console.error(`package: ${(error as Error).message}`)
    process.exitCode = 1
  }
}

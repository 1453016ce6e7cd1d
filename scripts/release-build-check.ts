/**
 * Refuses to package anything but a release build.
 *
 * The release build (`electron-vite build --mode release`, run by
 * `npm run package`) compiles main with `__ASSENT_DEVELOPMENT_BUILD__` set
 * to false, which drops the smoke port (src/main/electron/smoke-port.ts)
 * from the bundle together with DevTools and the acceptance of debugging
 * switches. A development build packed by mistake would ship all three, so
 * this looks for the smoke port's marker in every file of out/main and
 * fails when it is there, or when there is no main to look at.
 *
 * The release build goes to out/release/ (electron-builder.yml packs it as
 * out/ inside the app), so it never replaces the development build in out/
 * that the tests and the smoke scenario use. This check runs twice: as a
 * step of `npm run package`, and as electron-builder's `beforePack` hook, so
 * packing without the npm script is checked too.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { SMOKE_PORT_EVENT } from '../src/main/electron/smoke-port.ts'

/** Where `npm run package` builds the release flavour, from the project root. */
export const RELEASE_OUT_DIR = join('out', 'release')

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

/** What makes `mainOutDir` (a build's out/main) unfit to package; empty
 *  when it is a release build. */
export function releaseBuildProblems(mainOutDir: string): string[] {
  const entry = statSync(join(mainOutDir, 'index.js'), { throwIfNoEntry: false })
  if (!entry?.isFile()) return [`no built main at ${join(mainOutDir, 'index.js')}`]
  return filesUnder(mainOutDir)
    .filter((file) => readFileSync(file, 'utf8').includes(SMOKE_PORT_EVENT))
    .map(
      (file) =>
        `${relative(mainOutDir, file)} holds the smoke port (${SMOKE_PORT_EVENT}): this is a development build; build with \`electron-vite build --mode release --outDir ${RELEASE_OUT_DIR}\``,
    )
}

/** Every part the app loads, relative to the release build's folder: a
 *  build that lost one (the renderer once landed under its own root when
 *  the output folder was given relative) would pack an app that opens blank. */
export const RELEASE_PARTS = [
  'main/index.js',
  'main/runtime.js',
  'preload/workbench.cjs',
  'preload/protected.cjs',
  'renderer/workbench/index.html',
  'renderer/consent/index.html',
]

/** What makes `releaseDir` (out/release) unfit to package: a missing part,
 *  or a development build's main. */
export function releaseDirProblems(releaseDir: string): string[] {
  const missing = RELEASE_PARTS.filter(
    (part) => !statSync(join(releaseDir, part), { throwIfNoEntry: false })?.isFile(),
  ).map((part) => `no ${part} in ${releaseDir}`)
  return [...missing, ...releaseBuildProblems(join(releaseDir, 'main'))]
}

export function assertReleaseBuild(releaseDir: string): void {
  const problems = releaseDirProblems(releaseDir)
  if (problems.length > 0) {
    throw new Error(`refusing to package ${releaseDir}:\n${problems.join('\n')}`)
  }
}

/** electron-builder's `beforePack` hook; of its context only the app's
 *  folder is read (`PackContext.packager.info.appDir`). */
export async function beforePack(context: {
  packager: { info: { appDir: string } }
}): Promise<void> {
  assertReleaseBuild(join(context.packager.info.appDir, RELEASE_OUT_DIR))
}

if (import.meta.main) {
  const releaseDir = resolve(process.argv[2] ?? join(import.meta.dirname, '..', RELEASE_OUT_DIR))
  try {
    assertReleaseBuild(releaseDir)
    console.log(`release-build-check: ${releaseDir} is a release build`)
  } catch (error) {
    console.error(`release-build-check: ${(error as Error).message}`)
    process.exitCode = 1
  }
}

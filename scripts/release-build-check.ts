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

function assertReleaseBuild(mainOutDir: string): void {
  const problems = releaseBuildProblems(mainOutDir)
  if (problems.length > 0) {
    throw new Error(`refusing to package ${mainOutDir}:\n${problems.join('\n')}`)
  }
}

/** electron-builder's `beforePack` hook; of its context only the app's
 *  folder is read (`PackContext.packager.info.appDir`). */
export async function beforePack(context: {
  packager: { info: { appDir: string } }
}): Promise<void> {
  assertReleaseBuild(join(context.packager.info.appDir, RELEASE_OUT_DIR, 'main'))
}

if (import.meta.main) {
  const mainOutDir = resolve(
    process.argv[2] ?? join(import.meta.dirname, '..', RELEASE_OUT_DIR, 'main'),
  )
  try {
    assertReleaseBuild(mainOutDir)
    console.log(`release-build-check: ${mainOutDir} is a release build`)
  } catch (error) {
    console.error(`release-build-check: ${(error as Error).message}`)
    process.exitCode = 1
  }
}

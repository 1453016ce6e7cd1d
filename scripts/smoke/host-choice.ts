import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** Why the electron project is skipped on this machine, printed with the
 *  run and recorded as the skip's reason: what to install, and what runs
 *  instead. */
export const ELECTRON_MISSING =
  'no Electron binary on this machine, so the electron project is skipped. Install it with ' +
  '`npm install` (with network access; the electron package downloads its binary into ' +
  'node_modules/electron/dist), or set ELECTRON_OVERRIDE_DIST_PATH to a folder holding the ' +
  '`electron` binary. The cdp project runs every case in the system Chromium ' +
  '(`apt-get install chromium fonts-noto-cjk`).'

/** Where an Electron binary is: the override, or the one `electron`'s
 *  install fetched (its path.txt names it); a file, never a folder of
 *  that name. */
export function findElectronBinary(
  projectRoot: string,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const override = env.ELECTRON_OVERRIDE_DIST_PATH
  if (override) {
    const candidate = join(override, process.platform === 'win32' ? 'electron.exe' : 'electron')
    return isFile(candidate) ? candidate : undefined
  }
  const pkg = join(projectRoot, 'node_modules', 'electron')
  const pathFile = join(pkg, 'path.txt')
  if (!existsSync(pathFile)) return undefined
  const binary = join(pkg, 'dist', readFileSync(pathFile, 'utf8').trim())
  return isFile(binary) ? binary : undefined
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false
}

/** The report's `hostReason`: which project ran it, and on what. */
export function hostReason(host: 'cdp' | 'electron', detail: string): string {
  return host === 'electron'
    ? `the electron project: the development build in the Electron binary at ${detail}`
    : `the cdp project: main's core in the test worker, the pages in ${detail} over the DevTools Protocol`
}

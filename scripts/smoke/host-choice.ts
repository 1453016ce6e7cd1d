import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** Why the electron project is skipped on this machine, printed with the
 *  run and recorded as the skip's reason: what to install, and what runs
 *  instead. */
export const ELECTRON_MISSING =
  'no Electron binary on this machine (and fetching it failed, if the electron project was ' +
  'asked for), so the electron project is skipped. Run `npm install` with network access (the ' +
  "smoke then fetches the binary with the electron package's own installer, " +
  '`npx install-electron`), or set ELECTRON_OVERRIDE_DIST_PATH to the folder of an unpacked ' +
  'Electron release (the one holding `electron`, `electron.exe` or `Electron.app`). The cdp ' +
  'project runs every case in the system Chromium (`apt-get install chromium fonts-noto-cjk`).'

/** Where the executable sits inside an Electron release folder, as the
 *  electron package's install.js names it per platform. */
export function electronExecutableIn(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return join('Electron.app', 'Contents', 'MacOS', 'Electron')
  return platform === 'win32' ? 'electron.exe' : 'electron'
}

/** Where an Electron binary is: in the override folder, or the one
 *  `electron`'s installer fetched (its path.txt names it); a file, never a
 *  folder of that name. */
export function findElectronBinary(
  projectRoot: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const override = env.ELECTRON_OVERRIDE_DIST_PATH
  if (override) {
    const candidate = join(override, electronExecutableIn(platform))
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

/**
 * The Electron binary for a run that asked for the electron project by
 * name. The electron package (45 and later) has no install script: its
 * binary is downloaded on first use, by `require('electron')` or `npx
 * install-electron`. So when the project is asked for and `npm install`
 * left no binary, the package's own installer (node_modules/electron/
 * install.js, which verifies the download against the package's checksums)
 * fetches it first. Without network access that fails, and the project is
 * skipped with ELECTRON_MISSING.
 */
export function provideElectronBinary(
  requested: boolean,
  projectRoot: string,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const found = findElectronBinary(projectRoot, env)
  if (found || !requested || env.ELECTRON_OVERRIDE_DIST_PATH) return found
  const installer = join(projectRoot, 'node_modules', 'electron', 'install.js')
  if (!existsSync(installer)) return undefined
  console.log('smoke: no Electron binary yet; fetching it with the electron package installer')
  spawnSync(process.execPath, [installer], { cwd: projectRoot, env, stdio: 'inherit' })
  return findElectronBinary(projectRoot, env)
}

/** The report's `hostReason`: which project ran it, and on what. */
export function hostReason(host: 'cdp' | 'electron', detail: string): string {
  return host === 'electron'
    ? `the electron project: the development build in the Electron binary at ${detail}`
    : `the cdp project: main's core in the test worker, the pages in ${detail} over the DevTools Protocol`
}

import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface HostChoice {
  host: 'electron' | 'cdp'
  reason: string
  electronBinary?: string
}

/** `--host electron` on a machine without Electron: refused before anything
 *  starts, with what to install. */
export class HostUnavailable extends Error {}

export const ELECTRON_MISSING =
  '--host electron: no Electron binary on this machine, and downloading it failed. ' +
  'Run `npm install` with network access (the smoke then fetches the binary with the electron ' +
  "package's own installer, `npx install-electron`), or set ELECTRON_OVERRIDE_DIST_PATH to the " +
  'folder of an unpacked Electron release (the one holding `electron`, `electron.exe` or ' +
  '`Electron.app`); or run on the CDP host with --host cdp (needs Chromium: ' +
  '`apt-get install chromium fonts-noto-cjk`)'

/** Where the executable sits inside an Electron release folder, as the
 *  electron package's install.js names it per platform. */
export function electronExecutableIn(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return join('Electron.app', 'Contents', 'MacOS', 'Electron')
  return platform === 'win32' ? 'electron.exe' : 'electron'
}

/** Where an Electron binary would be: in the override folder, or the one
 *  `electron`'s installer fetched (its path.txt names it). */
export function findElectronBinary(
  projectRoot: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const override = env.ELECTRON_OVERRIDE_DIST_PATH
  if (override) {
    const candidate = join(override, electronExecutableIn(platform))
    return existsSync(candidate) ? candidate : undefined
  }
  const pkg = join(projectRoot, 'node_modules', 'electron')
  const pathFile = join(pkg, 'path.txt')
  if (!existsSync(pathFile)) return undefined
  const binary = join(pkg, 'dist', readFileSync(pathFile, 'utf8').trim())
  return existsSync(binary) ? binary : undefined
}

/**
 * The Electron binary for this run. The electron package (45 and later)
 * has no install script: its binary is downloaded on first use, by
 * `require('electron')` or `npx install-electron`. So when --host electron
 * is asked for and `npm install` left no binary, the package's own
 * installer (node_modules/electron/install.js, which verifies the download
 * against the package's checksums) fetches it first. Without network access
 * that fails and the host is refused with what to do instead.
 */
export function provideElectronBinary(
  requested: 'electron' | 'cdp' | undefined,
  projectRoot: string,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const found = findElectronBinary(projectRoot, env)
  if (found || requested !== 'electron' || env.ELECTRON_OVERRIDE_DIST_PATH) return found
  const installer = join(projectRoot, 'node_modules', 'electron', 'install.js')
  if (!existsSync(installer)) return undefined
  console.log('smoke: no Electron binary yet; fetching it with the electron package installer')
  spawnSync(process.execPath, [installer], { cwd: projectRoot, env, stdio: 'inherit' })
  return findElectronBinary(projectRoot, env)
}

/** `--host` wins; otherwise Electron when its binary exists, else CDP. The
 *  reason is printed and recorded in the report. */
export function chooseHost(
  requested: 'electron' | 'cdp' | undefined,
  electronBinary: string | undefined,
): HostChoice {
  if (requested === 'electron') {
    if (!electronBinary) {
      throw new HostUnavailable(ELECTRON_MISSING)
    }
    return { host: 'electron', reason: 'requested with --host electron', electronBinary }
  }
  if (requested === 'cdp') return { host: 'cdp', reason: 'requested with --host cdp' }
  if (electronBinary)
    return {
      host: 'electron',
      reason: `Electron binary found at ${electronBinary}`,
      electronBinary,
    }
  return {
    host: 'cdp',
    reason: 'no Electron binary on this machine; using the CDP host in the system Chromium',
  }
}

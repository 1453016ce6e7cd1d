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
  '--host electron: no Electron binary on this machine. Install it with `npm install` ' +
  '(with network access; the electron package downloads its binary into node_modules/electron/dist), ' +
  'or set ELECTRON_OVERRIDE_DIST_PATH to a folder holding the `electron` binary; ' +
  'or run on the CDP host with --host cdp (needs Chromium: `apt-get install chromium fonts-noto-cjk`)'

/** Where an Electron binary would be: the override, or the one `electron`'s
 *  install fetched (its path.txt names it). */
export function findElectronBinary(
  projectRoot: string,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const override = env.ELECTRON_OVERRIDE_DIST_PATH
  if (override) {
    const candidate = join(override, process.platform === 'win32' ? 'electron.exe' : 'electron')
    return existsSync(candidate) ? candidate : undefined
  }
  const pkg = join(projectRoot, 'node_modules', 'electron')
  const pathFile = join(pkg, 'path.txt')
  if (!existsSync(pathFile)) return undefined
  const binary = join(pkg, 'dist', readFileSync(pathFile, 'utf8').trim())
  return existsSync(binary) ? binary : undefined
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

import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'

export const PROJECT_ROOT = resolve(import.meta.dirname, '../../..')

/** The built files the CDP host loads: the same pages and preloads the
 *  Electron host loads, plus the classic-script builds of the preloads. */
export interface BuiltAssets {
  rendererRoot: string
  workbenchPage: string
  consentPage: string
  protectedPreload: string
  workbenchIsolatedPreload: string
  workbenchMainWorldPreload: string
}

export function builtAssets(root = PROJECT_ROOT): BuiltAssets {
  const out = join(root, 'out')
  return {
    rendererRoot: join(out, 'renderer'),
    workbenchPage: join(out, 'renderer', 'workbench', 'index.html'),
    consentPage: join(out, 'renderer', 'consent', 'index.html'),
    protectedPreload: join(out, 'cdp', 'preload-protected.js'),
    workbenchIsolatedPreload: join(out, 'cdp', 'preload-workbench-isolated.js'),
    workbenchMainWorldPreload: join(out, 'cdp', 'preload-workbench-main.js'),
  }
}

/** Refuses to start on a missing build, naming the command that makes it. */
export function requireBuilt(assets: BuiltAssets): BuiltAssets {
  const missing = Object.values(assets).filter((path) => !existsSync(path))
  if (missing.length > 0) {
    throw new Error(`missing build output (${missing.join(', ')}): run \`npm run build\` first`)
  }
  return assets
}

import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { PROJECT_ROOT, builtAssets } from '../smoke/hosts/cdp/built-assets.ts'

// What the browser measurements load, and the sources they are built from.
const SOURCES = ['src/common', 'src/preload-protected', 'src/preload-workbench', 'src/renderer']

function newestSource(path: string): number {
  const info = statSync(path, { throwIfNoEntry: false })
  if (!info) return 0
  if (!info.isDirectory())
    return path.endsWith('.test.ts') || path.endsWith('.test.tsx') ? 0 : info.mtimeMs
  return Math.max(0, ...readdirSync(path).map((name) => newestSource(join(path, name))))
}

/** Why the built pages and preloads cannot be measured as they are, if so. */
export function whyRebuild(): string | undefined {
  const outputs = Object.values(builtAssets())
  const times = outputs.map((path) => statSync(path, { throwIfNoEntry: false })?.mtimeMs)
  if (times.some((time) => time === undefined)) return 'the build output is missing'
  const oldestOutput = Math.min(...(times as number[]))
  const newest = Math.max(...SOURCES.map((source) => newestSource(join(PROJECT_ROOT, source))))
  return newest > oldestOutput ? 'sources changed since the last build' : undefined
}

/** Runs `npm run build` when the output is missing or older than its
 *  sources, so the browser figures are of the code in the tree. */
export function ensureBuilt(log: (line: string) => void): void {
  const reason = whyRebuild()
  if (!reason) return
  log(`bench: ${reason}; running npm run build`)
  const result = spawnSync('npm', ['run', 'build'], { cwd: PROJECT_ROOT, encoding: 'utf8' })
  if (result.status !== 0) {
    throw new Error(`npm run build failed:\n${result.stdout}\n${result.stderr}`)
  }
}

import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'

/**
 * Whether `npm run build`'s output is there and newer than what it is built
 * from, and a build when it is not: the browser tests (through vitest's global
 * setup) and the bench load the built pages and preloads, and must load the
 * code in the tree, not an older build of it.
 */
const ROOT = resolve(import.meta.dirname, '..')

const OUTPUTS = [
  'out/main/index.js',
  'out/main/runtime.js',
  'out/preload/protected.cjs',
  'out/preload/workbench.cjs',
  'out/renderer/consent/index.html',
  'out/renderer/workbench/index.html',
  'out/cdp/preload-protected.js',
  'out/cdp/preload-workbench-isolated.js',
  'out/cdp/preload-workbench-main.js',
]

const SOURCES = ['src', 'electron.vite.config.ts', 'scripts/build-cdp-preloads.ts', 'package.json']

const TEST_FILE = /\.test\.tsx?$/

function newestMtime(path: string): number {
  const info = statSync(path, { throwIfNoEntry: false })
  if (!info) return 0
  if (!info.isDirectory()) return TEST_FILE.test(path) ? 0 : info.mtimeMs
  return Math.max(0, ...readdirSync(path).map((name) => newestMtime(join(path, name))))
}

/** Why the build must run first, or undefined when its output is current. */
export function whyBuild(root = ROOT): string | undefined {
  const outputTimes = OUTPUTS.map((output) =>
    statSync(join(root, output), { throwIfNoEntry: false }),
  )
  const missing = OUTPUTS.filter((_, index) => !outputTimes[index])
  if (missing.length > 0) return `missing ${missing.join(', ')}`
  const oldestOutput = Math.min(...outputTimes.map((info) => info?.mtimeMs ?? 0))
  const newestSource = Math.max(...SOURCES.map((source) => newestMtime(join(root, source))))
  return newestSource > oldestOutput ? 'sources changed since the last build' : undefined
}

/** Runs `npm run build` when its output is missing or stale; throws with the
 *  build's own output when it fails. */
export function ensureBuilt(log: (line: string) => void, root = ROOT): void {
  const reason = whyBuild(root)
  if (!reason) return
  log(`${reason}; running npm run build`)
  const started = Date.now()
  const result = spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8' })
  if (result.status !== 0) {
    throw new Error(
      `npm run build failed (${result.error?.message ?? `exit ${result.status}`}):\n` +
        `${result.stdout}\n${result.stderr}`,
    )
  }
  log(`built in ${Date.now() - started} ms`)
}

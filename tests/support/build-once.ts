import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'

/**
 * Vitest global setup: makes sure the build output the browser tests load
 * (the pages, the CDP preloads, the Electron preloads) exists and is
 * newer than its sources, running `npm run build` once per test run when it
 * is not. Tests themselves never build.
 */
const ROOT = resolve(import.meta.dirname, '../..')

const OUTPUTS = [
  'out/main/index.js',
  'out/preload/protected.cjs',
  'out/renderer/consent/index.html',
  'out/renderer/workbench/index.html',
  'out/cdp/preload-protected.js',
  'out/cdp/preload-workbench-isolated.js',
  'out/cdp/preload-workbench-main.js',
]

const SOURCES = [
  'src/common',
  'src/preload-protected',
  'src/preload-workbench',
  'src/renderer',
  'electron.vite.config.ts',
  'scripts/build-cdp-preloads.ts',
  'package.json',
]

function newestMtime(path: string): number {
  const info = statSync(path, { throwIfNoEntry: false })
  if (!info) return 0
  if (!info.isDirectory()) return path.endsWith('.test.ts') ? 0 : info.mtimeMs
  return Math.max(0, ...readdirSync(path).map((name) => newestMtime(join(path, name))))
}

function whyBuild(): string | undefined {
  const outputTimes = OUTPUTS.map((output) =>
    statSync(join(ROOT, output), { throwIfNoEntry: false }),
  )
  const missing = OUTPUTS.filter((_, index) => !outputTimes[index])
  if (missing.length > 0) return `missing ${missing.join(', ')}`
  const oldestOutput = Math.min(...outputTimes.map((info) => info?.mtimeMs ?? 0))
  const newestSource = Math.max(...SOURCES.map((source) => newestMtime(join(ROOT, source))))
  return newestSource > oldestOutput ? 'sources changed since the last build' : undefined
}

export default function setup(): void {
  const reason = whyBuild()
  if (!reason) return
  console.log(`build-once: ${reason}; running npm run build`)
  const started = Date.now()
  const result = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' })
  if (result.status !== 0) {
    throw new Error(
      `npm run build failed (${result.error?.message ?? `exit ${result.status}`}):\n` +
        `${result.stdout}\n${result.stderr}`,
    )
  }
  console.log(`build-once: built in ${Date.now() - started} ms`)
}

import { spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { Script } from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { scaledMs } from '../scripts/test-timing.ts'

/**
 * A sandboxed preload runs in a renderer with no module loader: it may
 * `require('electron')` (and a few polyfills) and nothing else, so each
 * preload must build to one self-contained CommonJS file. A shared chunk, an
 * ESM `import` or a `require` of our own code would make the preload fail
 * to load, leaving the window without its bridge or its trusted clicks.
 *
 * The preloads are built here with the project's own electron-vite config
 * into a throwaway directory, so the test checks the config, not whatever
 * happens to be in out/.
 */
const ROOT = resolve(import.meta.dirname, '..')
const ELECTRON_VITE = join(ROOT, 'node_modules/electron-vite/bin/electron-vite.js')
const EXPECTED_PRELOADS = ['protected.cjs', 'workbench.cjs']
const BUILD_TIMEOUT_MS = scaledMs(300_000)

let outDir: string
let preloadDir: string

function electronViteBuild(into: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(
      process.execPath,
      [ELECTRON_VITE, 'build', '--outDir', into, '--logLevel', 'warn'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    child.on('error', reject)
    child.on('close', (code) =>
      code === 0
        ? resolvePromise()
        : reject(new Error(`electron-vite build exited ${code}:\n${output}`)),
    )
  })
}

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'assent-preloads-'))
  await electronViteBuild(outDir)
  preloadDir = join(outDir, 'preload')
}, BUILD_TIMEOUT_MS)

afterAll(async () => {
  if (outDir) await rm(outDir, { recursive: true, force: true })
})

describe('the sandboxed preload bundles', () => {
  it('are exactly one .cjs file per preload, with no chunk files or folders', async () => {
    const entries = await readdir(preloadDir, { recursive: true })
    expect(entries.sort()).toEqual(EXPECTED_PRELOADS)
  })

  it.each(EXPECTED_PRELOADS)(
    '%s parses as a CommonJS script (no import or export)',
    async (file) => {
      const code = await readFile(join(preloadDir, file), 'utf8')
      // How Node and Electron wrap a CommonJS module: an `import`/`export`
      // declaration or `import.meta` is a syntax error in here.
      const wrapped = `(function (exports, require, module, __filename, __dirname) {\n${code}\n})`
      expect(() => new Script(wrapped, { filename: file })).not.toThrow()
      expect(code).not.toMatch(/\bimport\s*\(/)
    },
  )

  it.each(EXPECTED_PRELOADS)('%s requires "electron" and nothing else', async (file) => {
    const code = await readFile(join(preloadDir, file), 'utf8')
    const calls = [...code.matchAll(/\brequire\s*\(([^)]*)\)/g)].map((match) => match[1]?.trim())
    expect(calls.length).toBeGreaterThan(0)
    expect(new Set(calls)).toEqual(new Set(['"electron"']))
  })
})

import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BenchResultsSchema, SECTIONS } from '../scripts/bench/results-schema.ts'
import { scaledMs } from '../scripts/test-timing.ts'

// `npm run bench -- --only <section>` as a person runs it, in a child
// process, with the section that needs no browser. This checks what it
// measures and writes, never how fast anything was.

const ROOT = resolve(import.meta.dirname, '..')
let folder: string

function bench(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn('npm', ['run', 'bench', '--', '--quick', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    child.on('error', reject)
    child.on('close', (code) => resolveRun({ code, output }))
  })
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'assent-bench-only-'))
})

afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true })
})

describe('npm run bench -- --only', () => {
  it(
    'measures the named section alone and lists every other one as left out, with why',
    async () => {
      const json = join(folder, 'tokens.json')
      const run = await bench(['--only', 'tokens', '--json', json])
      expect(run.code, run.output).toBe(0)
      const results = BenchResultsSchema.parse(JSON.parse(await readFile(json, 'utf8')))
      expect(results.figures.length).toBeGreaterThan(0)
      expect(new Set(results.figures.map((figure) => figure.section))).toEqual(new Set(['tokens']))
      expect(results.skipped.map((entry) => entry.section).sort()).toEqual(
        SECTIONS.filter((section) => section !== 'tokens').sort(),
      )
      for (const entry of results.skipped) expect(entry.reason).toContain('--only')
    },
    scaledMs(120_000),
  )

  it(
    'refuses a section it does not know, naming the ones it does',
    async () => {
      const json = join(folder, 'unknown.json')
      const run = await bench(['--only', 'tokenz', '--json', json])
      expect(run.code).not.toBe(0)
      expect(run.output).toContain('unknown section tokenz')
      expect(run.output).toContain(SECTIONS.join(', '))
    },
    scaledMs(60_000),
  )
})

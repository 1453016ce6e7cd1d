import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const RUNTIME_DIR = fileURLToPath(new URL('.', import.meta.url))

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    // Test helpers run in the test process, beside main's own code, never
    // in the runtime process.
    if (entry.isDirectory()) return entry.name === 'test-support' ? [] : sourcesUnder(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

function importsOf(source: string): string[] {
  const specifiers = source.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)
  return [...specifiers].map((match) => match[1] ?? '')
}

describe('the runtime process', () => {
  // keytar is native and built per ABI: main reads the integrity key and
  // hands it over IPC, so the runtime (a utilityProcess in the app) never
  // depends on a rebuild, and never reaches for the keychain itself.
  it('imports no keychain binding and nothing from main', () => {
    const offending = sourcesUnder(RUNTIME_DIR).flatMap((file) =>
      importsOf(readFileSync(file, 'utf8'))
        .filter((specifier) => /keytar|secret-store|\/main\//.test(specifier))
        .map((specifier) => `${relative(RUNTIME_DIR, file)}: ${specifier}`),
    )
    expect(sourcesUnder(RUNTIME_DIR).length).toBeGreaterThan(20)
    expect(offending).toEqual([])
  })
})

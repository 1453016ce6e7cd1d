import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { makePrivateFolder } from './private-folder.ts'

// Whoever could write a data folder before it was made private may have
// left a file in it that Assent decides from: a configuration naming
// commands to start as this user. Files of another user's cannot be made
// here without root, so each row asks for a folder of a user this process
// is not (its uid plus one), for which every entry is someone else's.

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

function folderHolding(names: string[]): string {
  const root = mkdtempSync(join(tmpdir(), 'assent-folder-'))
  roots.push(root)
  const folder = join(root, 'data')
  mkdirSync(folder, { mode: 0o777 })
  for (const name of names) writeFileSync(join(folder, name), '{}')
  return folder
}

const self = process.getuid?.() ?? 0

describe('a data folder holding what another user left in it', () => {
  it.each(['mcp.json', 'agents.json', 'mcp.last-good.json', 'assent.sqlite'])(
    'does not start with %s of theirs in it',
    (name) => {
      const folder = folderHolding([name])
      expect(() => makePrivateFolder(folder, self + 1)).toThrow(
        new RegExp(`holds ${name.replace('.', '\\.')}, which belongs to user ${self}`),
      )
    },
  )

  it('starts with an empty folder, made private', () => {
    const folder = folderHolding([])
    makePrivateFolder(folder, self + 1)
    expect(statSync(folder).mode & 0o777).toBe(0o700)
  })

  it("starts with a folder of this user's own files", () => {
    const folder = folderHolding(['mcp.json', 'assent.sqlite'])
    makePrivateFolder(folder, self)
    expect(statSync(folder).mode & 0o777).toBe(0o700)
  })
})

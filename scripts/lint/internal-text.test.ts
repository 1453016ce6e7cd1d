import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { internalText, projectInternalText, projectTextFiles } from './internal-text.ts'

const ROOT = resolve(import.meta.dirname, '../..')

describe("the project's text", () => {
  it('names no issue, no lab-notebook round and no folder of one machine, in docs, code or committed JSON', () => {
    const files = projectTextFiles(ROOT)
    // Not vacuous: the scan reaches the docs, the code and the mutation cache.
    for (const file of ['README.md', 'docs/architecture.md', 'src/runtime/runtime-app.ts'])
      expect(files).toContain(file)
    expect(files).toContain('mutation/stryker-incremental.json')
    expect(projectInternalText(ROOT)).toEqual([])
  })
})

describe('internalText', () => {
  const reasons = (text: string) => internalText(text, '/srv/checkout').map((found) => found.text)

  it('finds an issue number, with or without its section', () => {
    expect(reasons('as issue 14 §3 asked; see Issue #20 and issues 7')).toEqual([
      'issue 14 §3',
      'Issue #20',
      'issues 7',
    ])
  })

  it('finds the lab-notebook phrases', () => {
    expect(reasons('In this round, on the development machine; no machine here')).toEqual([
      'this round',
      'the development machine',
      'no machine here',
    ])
    expect(reasons('All taken on the shared two-core development machine')).toEqual([
      'the shared two-core development machine',
    ])
  })

  it("finds the checkout's own folder, a work machine's root and a test's throwaway folder", () => {
    expect(
      reasons('"projectRoot": "/srv/checkout/src/a.ts" /work/main "/tmp/assent-reach-QRjzh2/ws"'),
    ).toEqual(['/tmp/assent-reach-QRjzh2', '/srv/checkout/src/a.ts', '/work/main'])
  })

  it('lets an example path and a plain temp path through', () => {
    expect(reasons('/home/ada/project, /tmp/notes.txt, /tmp/assent-evidence, mkdtemp')).toEqual([])
  })
})

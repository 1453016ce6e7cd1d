import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DOCS_IMAGES, MAX_IMAGE_BYTES, copyDocsImages } from './docs-images.ts'

const ROOT = resolve(import.meta.dirname, '..')
const base = mkdtempSync(join(tmpdir(), 'assent-docs-images-'))
afterAll(() => rmSync(base, { recursive: true, force: true }))

function evidence(name: string, ok: boolean, bytes = 100): string {
  const folder = join(base, name, 'cdp')
  mkdirSync(folder, { recursive: true })
  const cases = DOCS_IMAGES.map(({ caseId, screenshot }) => {
    writeFileSync(join(folder, screenshot), Buffer.alloc(bytes))
    return {
      id: caseId,
      title: caseId,
      ok,
      durationMs: 1,
      assertions: [],
      screenshots: [{ file: screenshot, width: 1, height: 1, caption: 'x' }],
    }
  })
  writeFileSync(join(folder, 'report.json'), JSON.stringify({ cases }))
  return join(base, name)
}

describe("the README's pictures", () => {
  it('are committed', () => {
    for (const { as } of DOCS_IMAGES)
      expect(existsSync(join(ROOT, 'docs', 'images', as)), as).toBe(true)
  })

  it('are copied from a run whose cases passed', () => {
    const target = join(base, 'out-ok')
    expect(copyDocsImages(evidence('ok', true), target)).toEqual(
      DOCS_IMAGES.map((image) => image.as),
    )
    for (const { as } of DOCS_IMAGES) expect(existsSync(join(target, as))).toBe(true)
  })

  it('are refused from a case that failed, and when too large for git', () => {
    expect(() => copyDocsImages(evidence('failed', false), join(base, 'out-failed'))).toThrow(
      /did not pass/,
    )
    expect(() =>
      copyDocsImages(evidence('large', true, MAX_IMAGE_BYTES + 1), join(base, 'out-large')),
    ).toThrow(/over/)
  })
})

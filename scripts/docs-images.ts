/**
 * Copies the README's pictures from a smoke run's evidence, so they show
 * the product as it is and never drift from it:
 *
 *   npm run smoke -- --evidence /abs/ev --host cdp --grep "ui-create-and-send|manual-allow"
 *   node scripts/docs-images.ts /abs/ev
 *
 * Each picture is taken only from a case that passed, and refused when it
 * is larger than MAX_IMAGE_BYTES: every copy stays in git's history.
 */
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { z } from 'zod'
import { CaseSchema } from './smoke/report-schema.ts'

export const MAX_IMAGE_BYTES = 120 * 1024

/** The pictures the README shows: which case makes each, and its name in docs/images/. */
export const DOCS_IMAGES = [
  { caseId: 'manual-allow', screenshot: 'protected-approval.png', as: 'protected-window.png' },
  { caseId: 'ui-create-and-send', screenshot: 'approval-inline-card.png', as: 'room.png' },
] as const

const EvidenceReportSchema = z.looseObject({ cases: z.array(CaseSchema) })

/** Copies each picture from `<evidence>/<host>/` into `target`; throws,
 *  naming the picture, when its case did not pass or it is too large. */
export function copyDocsImages(evidence: string, target: string, host = 'cdp'): string[] {
  const folder = join(evidence, host)
  const report = EvidenceReportSchema.parse(
    JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')),
  )
  mkdirSync(target, { recursive: true })
  return DOCS_IMAGES.map(({ caseId, screenshot, as }) => {
    const made = report.cases.find((entry) => entry.id === caseId)
    if (!made?.ok || !made.screenshots.some((shot) => shot.file === screenshot)) {
      throw new Error(`${screenshot}: the case ${caseId} did not pass in ${folder}`)
    }
    const source = join(folder, screenshot)
    const bytes = statSync(source).size
    if (bytes > MAX_IMAGE_BYTES) {
      throw new Error(
        `${screenshot} is ${bytes} bytes, over ${MAX_IMAGE_BYTES}: shrink the case's window`,
      )
    }
    copyFileSync(source, join(target, as))
    return as
  })
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const evidence = process.argv[2]
  if (!evidence) {
    console.error('usage: node scripts/docs-images.ts /abs/evidence [host]')
    process.exit(2)
  }
  const root = resolve(import.meta.dirname, '..')
  const copied = copyDocsImages(evidence, join(root, 'docs', 'images'), process.argv[3])
  console.log(`docs/images: ${copied.join(', ')}`)
}

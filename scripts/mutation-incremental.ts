/**
 * Takes the machine out of Stryker's incremental file
 * (mutation/stryker-incremental.json), which is committed so a run only
 * re-tests what changed. Stryker writes into it the absolute folder it ran
 * in (`projectRoot`) and, in the reasons tests failed, the throwaway
 * folders those tests made under the temp folder; neither means anything on
 * another checkout, and both change on every run. Stryker's incremental
 * diff reads only the files, mutants and tests, so neither is needed.
 *
 *   node scripts/mutation-incremental.ts [incremental.json]
 *
 * `npm run test:mutation` runs it after Stryker, before the report.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { pathToFileURL } from 'node:url'

export const INCREMENTAL_FILE = 'mutation/stryker-incremental.json'

/** `text` with the checkout folder made relative and each throwaway folder
 *  under `temp` (mkdtemp's six random characters included) named `<tmp>/<prefix>`. */
export function relativizeText(text: string, projectRoot: string, temp: string): string {
  let out = text.split(`${projectRoot}/`).join('')
  const escaped = temp.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  out = out.replace(new RegExp(`${escaped}/([\\w.-]+?)-[A-Za-z0-9]{6}(?![\\w-])`, 'g'), '<tmp>/$1')
  // A folder name Stryker's message cut short ("/tmp/assent-reach-QR…").
  return out.split(`${temp}/`).join('<tmp>/')
}

/** The incremental report without `projectRoot` and with every string
 *  relativized; everything else as Stryker wrote it. */
export function relativizeIncremental(report: unknown, temp = tmpdir()): unknown {
  if (typeof report !== 'object' || report === null || Array.isArray(report)) return report
  const { projectRoot, ...rest } = report as Record<string, unknown>
  if (typeof projectRoot !== 'string') return rest
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return relativizeText(value, projectRoot, temp)
    if (Array.isArray(value)) return value.map(walk)
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, walk(inner)]))
    }
    return value
  }
  return walk(rest)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const path = process.argv[2] ?? INCREMENTAL_FILE
  const report = JSON.parse(readFileSync(path, 'utf8')) as unknown
  // Indented as Stryker writes it, so a run changes only what changed.
  writeFileSync(path, JSON.stringify(relativizeIncremental(report), null, 2))
  console.log(`${path}: machine paths taken out`)
}

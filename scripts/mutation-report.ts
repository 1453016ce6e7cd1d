/**
 * Reads Stryker's JSON report (reports/mutation/mutation.json) and prints one
 * line per mutated file. Fails (exit 1) when the overall mutation score is
 * below MIN_SCORE, or when a mutant that survived (or that no test covers)
 * is not justified in mutation/survivors.json.
 *
 * A justification names the file, the mutator, the source line and the
 * replacement, and says in one line why the mutant is equivalent (no test
 * can tell it apart). Matching ignores the line number, so code moving up or
 * down keeps its entries; editing the mutated line itself drops them, and
 * the reason has to be given again for the new code.
 *
 *   node scripts/mutation-report.ts [report.json] [survivors.json]
 */
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { z } from 'zod'

export const MIN_SCORE = 95

const PositionSchema = z.object({ line: z.number(), column: z.number() })
const MutantSchema = z.object({
  id: z.string(),
  mutatorName: z.string(),
  replacement: z.string().optional(),
  status: z.string(),
  location: z.object({ start: PositionSchema, end: PositionSchema }),
})
const ReportSchema = z.object({
  files: z.record(z.string(), z.object({ source: z.string(), mutants: z.array(MutantSchema) })),
})
type Mutant = z.infer<typeof MutantSchema>

const JustificationSchema = z.strictObject({
  file: z.string().min(1),
  mutator: z.string().min(1),
  line: z.number().int().min(1),
  /** The mutated source line, trimmed, as it reads in the file. */
  code: z.string().min(1),
  replacement: z.string(),
  why: z.string().min(20),
})
const SurvivorsSchema = z.strictObject({
  $comment: z.string().optional(),
  equivalent: z.array(JustificationSchema),
})
export type Justification = z.infer<typeof JustificationSchema>

/** Statuses that count against the score. Killed and Timeout count as
 *  detected; the rest (compile errors, ignored) are not valid mutants. */
const UNDETECTED = new Set(['Survived', 'NoCoverage'])

export interface FileRow {
  file: string
  killed: number
  timeout: number
  survived: number
  noCoverage: number
  justified: number
  invalid: number
}

export function score(row: Pick<FileRow, 'killed' | 'timeout' | 'survived' | 'noCoverage'>) {
  const valid = row.killed + row.timeout + row.survived + row.noCoverage
  return valid === 0 ? 100 : (100 * (row.killed + row.timeout)) / valid
}

const keyOf = (file: string, mutator: string, code: string, replacement: string) =>
  JSON.stringify([file, mutator, code, replacement])

export function sourceLine(source: string, line: number): string {
  return (source.split('\n')[line - 1] ?? '').trim()
}

export interface Evaluation {
  rows: FileRow[]
  unjustified: Array<{ file: string; mutant: Mutant; code: string }>
  unused: Justification[]
}

export function evaluate(report: unknown, survivors: unknown): Evaluation {
  const parsed = ReportSchema.parse(report)
  const justifications = SurvivorsSchema.parse(survivors).equivalent
  const byKey = new Map(
    justifications.map((entry) => [
      keyOf(entry.file, entry.mutator, entry.code, entry.replacement),
      entry,
    ]),
  )
  const used = new Set<Justification>()
  const rows: FileRow[] = []
  const unjustified: Evaluation['unjustified'] = []
  for (const [file, { source, mutants }] of Object.entries(parsed.files).sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    const row = emptyRow(file)
    for (const mutant of mutants) {
      if (mutant.status === 'Killed') row.killed += 1
      else if (mutant.status === 'Timeout') row.timeout += 1
      else if (mutant.status === 'Survived') row.survived += 1
      else if (mutant.status === 'NoCoverage') row.noCoverage += 1
      else row.invalid += 1
      if (!UNDETECTED.has(mutant.status)) continue
      const code = sourceLine(source, mutant.location.start.line)
      const entry = byKey.get(keyOf(file, mutant.mutatorName, code, mutant.replacement ?? ''))
      if (entry) {
        row.justified += 1
        used.add(entry)
      } else {
        unjustified.push({ file, mutant, code })
      }
    }
    rows.push(row)
  }
  return { rows, unjustified, unused: justifications.filter((entry) => !used.has(entry)) }
}

function emptyRow(file: string): FileRow {
  return { file, killed: 0, timeout: 0, survived: 0, noCoverage: 0, justified: 0, invalid: 0 }
}

function table(rows: FileRow[]): string {
  const total = rows.reduce<FileRow>(
    (sum, row) => ({
      file: 'all files',
      killed: sum.killed + row.killed,
      timeout: sum.timeout + row.timeout,
      survived: sum.survived + row.survived,
      noCoverage: sum.noCoverage + row.noCoverage,
      justified: sum.justified + row.justified,
      invalid: sum.invalid + row.invalid,
    }),
    emptyRow('all files'),
  )
  const header = ['file', 'score', 'killed', 'timeout', 'survived', 'no cov', 'equivalent']
  const lines = [...rows, total].map((row) => [
    row.file,
    `${score(row).toFixed(2)} %`,
    String(row.killed),
    String(row.timeout),
    String(row.survived),
    String(row.noCoverage),
    String(row.justified),
  ])
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => (line[column] ?? '').length)),
  )
  const format = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ')
  const rule = widths.map((width) => '-'.repeat(width)).join('  ')
  return [format(header), rule, ...lines.slice(0, -1).map(format), rule, format(lines.at(-1) ?? [])]
    .join('\n')
    .concat(
      `\n\nscore = (killed + timeout) / (killed + timeout + survived + no cov); "equivalent" survivors are justified in mutation/survivors.json`,
    )
}

function main(): number {
  const [reportPath = 'reports/mutation/mutation.json', survivorsPath = 'mutation/survivors.json'] =
    process.argv.slice(2)
  const report = JSON.parse(readFileSync(reportPath, 'utf8')) as unknown
  const survivors = JSON.parse(readFileSync(survivorsPath, 'utf8')) as unknown
  const { rows, unjustified, unused } = evaluate(report, survivors)
  console.log(table(rows))

  const overall = score(
    rows.reduce(
      (sum, row) => ({
        killed: sum.killed + row.killed,
        timeout: sum.timeout + row.timeout,
        survived: sum.survived + row.survived,
        noCoverage: sum.noCoverage + row.noCoverage,
      }),
      { killed: 0, timeout: 0, survived: 0, noCoverage: 0 },
    ),
  )
  let failed = false
  if (unused.length > 0) {
    console.log(`\n${unused.length} justification(s) match no surviving mutant any more:`)
    for (const entry of unused)
      console.log(`  ${entry.file}:${entry.line} ${entry.mutator}: ${entry.code}`)
  }
  if (unjustified.length > 0) {
    failed = true
    console.log(
      `\n${unjustified.length} surviving mutant(s) have no justification in ${survivorsPath}: kill them with a test, or add an entry saying why each is equivalent:`,
    )
    for (const { file, mutant, code } of unjustified) {
      console.log(
        `  ${file}:${mutant.location.start.line}:${mutant.location.start.column} ${mutant.status} ${mutant.mutatorName}\n` +
          `    ${code}\n    → ${JSON.stringify(mutant.replacement ?? '')}`,
      )
    }
  }
  if (overall < MIN_SCORE) {
    failed = true
    console.log(`\nmutation score ${overall.toFixed(2)} % is below ${MIN_SCORE} %`)
  }
  console.log(failed ? '\nmutation report: FAILED' : '\nmutation report: ok')
  return failed ? 1 : 0
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main()
}

/**
 * Reads Stryker's JSON report (reports/mutation/mutation.json) and prints one
 * line per mutated file. Fails (exit 1) when the overall mutation score is
 * below MIN_SCORE, when a mutant that survived (or that no test covers) is
 * not justified in mutation/survivors.json, or when a justification there
 * matches no surviving mutant (a stale one).
 *
 * A justification names one mutant: its file, mutator, location (start and
 * end, line and column, as Stryker reports them) and replacement, with the
 * source line it mutates for readers, and says why it is equivalent (no
 * test can tell it apart). It matches that mutant only: another mutant on a
 * line that reads the same, or at another column of the same line, needs
 * its own entry and its own reason. An entry whose line no longer reads as
 * written matches nothing, so edited code is judged again; code that moves
 * needs its entries moved with it (the report prints each unjustified
 * mutant as an entry to start from).
 *
 *   node scripts/mutation-report.ts [report.json] [survivors.json]
 *   node scripts/mutation-report.ts --relocate [report.json] [survivors.json]
 *
 * --relocate rewrites survivors.json for code that only moved: an entry that
 * matches no mutant any more is moved onto an unjustified mutant of the same
 * file, mutator, replacement and line text at the same columns, but only
 * where exactly one entry and one mutant pair up that way, so a reason is
 * never carried to a mutant it was not written for. The rewrite is a diff to
 * review; the check itself still matches positions exactly.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { z } from 'zod'

export const MIN_SCORE = 95

const PositionSchema = z.object({ line: z.number(), column: z.number() })
const LocationSchema = z.object({ start: PositionSchema, end: PositionSchema })
const MutantSchema = z.object({
  id: z.string(),
  mutatorName: z.string(),
  replacement: z.string().optional(),
  status: z.string(),
  location: LocationSchema,
})
const ReportSchema = z.object({
  files: z.record(z.string(), z.object({ source: z.string(), mutants: z.array(MutantSchema) })),
})
type Mutant = z.infer<typeof MutantSchema>

const StrictPositionSchema = z.strictObject({
  line: z.number().int().min(1),
  column: z.number().int().min(0),
})
const JustificationSchema = z.strictObject({
  file: z.string().min(1),
  mutator: z.string().min(1),
  /** Where the mutant is, exactly as Stryker's report gives it. */
  location: z.strictObject({ start: StrictPositionSchema, end: StrictPositionSchema }),
  /** The mutated source line (the start line), trimmed, as it reads in the file. */
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

type Location = z.infer<typeof LocationSchema>

const keyOf = (file: string, mutator: string, location: Location, replacement: string) =>
  JSON.stringify([
    file,
    mutator,
    location.start.line,
    location.start.column,
    location.end.line,
    location.end.column,
    replacement,
  ])

export function sourceLine(source: string, line: number): string {
  return (source.split('\n')[line - 1] ?? '').trim()
}

export interface Evaluation {
  rows: FileRow[]
  /** Undetected mutants no entry justifies; `stale` when an entry names the
   *  mutant's position but was written for a line that read differently. */
  unjustified: Array<{ file: string; mutant: Mutant; code: string; stale?: Justification }>
  unused: Justification[]
}

export function evaluate(report: unknown, survivors: unknown): Evaluation {
  const parsed = ReportSchema.parse(report)
  const parsedSurvivors = SurvivorsSchema.parse(survivors)
  const justifications = parsedSurvivors.equivalent
  const byKey = new Map(
    justifications.map((entry) => [
      keyOf(entry.file, entry.mutator, entry.location, entry.replacement),
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
      const entry = byKey.get(
        keyOf(file, mutant.mutatorName, mutant.location, mutant.replacement ?? ''),
      )
      if (entry && entry.code === code) {
        row.justified += 1
        used.add(entry)
      } else {
        unjustified.push({ file, mutant, code, ...(entry ? { stale: entry } : {}) })
      }
    }
    rows.push(row)
  }
  return {
    rows,
    unjustified,
    unused: justifications.filter((entry) => !used.has(entry)),
  }
}

/** A survivors.json entry for `mutant`, its reason left to write. */
export function entryFor(file: string, mutant: Mutant, code: string) {
  const { start, end } = mutant.location
  return {
    file,
    mutator: mutant.mutatorName,
    location: {
      start: { line: start.line, column: start.column },
      end: { line: end.line, column: end.column },
    },
    code,
    replacement: mutant.replacement ?? '',
    why: '',
  }
}

/** The entries of `justifications` moved onto the survivors they were
 *  written for, where code moved without changing (see --relocate). */
export function relocate(
  justifications: Justification[],
  evaluation: Pick<Evaluation, 'unjustified' | 'unused'>,
): { equivalent: Justification[]; moved: number } {
  const shapeOf = (
    file: string,
    mutator: string,
    code: string,
    replacement: string,
    location: Location,
  ) =>
    JSON.stringify([
      file,
      mutator,
      code,
      replacement,
      location.start.column,
      location.end.column,
      location.end.line - location.start.line,
    ])
  const candidates = new Map<
    string,
    { entries: Justification[]; mutants: typeof evaluation.unjustified }
  >()
  const slot = (shape: string) => {
    let found = candidates.get(shape)
    if (!found) candidates.set(shape, (found = { entries: [], mutants: [] }))
    return found
  }
  for (const entry of evaluation.unused)
    slot(
      shapeOf(entry.file, entry.mutator, entry.code, entry.replacement, entry.location),
    ).entries.push(entry)
  for (const survivor of evaluation.unjustified) {
    const { file, mutant, code } = survivor
    slot(
      shapeOf(file, mutant.mutatorName, code, mutant.replacement ?? '', mutant.location),
    ).mutants.push(survivor)
  }
  // Entries are matched by value: evaluate() holds parsed copies of them.
  const moves = new Map<string, Justification>()
  for (const { entries, mutants } of candidates.values()) {
    // Two entries or two mutants of one shape cannot be told apart: leave them
    // to a person rather than guess which reason belongs to which mutant.
    const [entry] = entries
    const [survivor] = mutants
    if (entries.length !== 1 || mutants.length !== 1 || !entry || !survivor) continue
    const { start, end } = survivor.mutant.location
    moves.set(JSON.stringify(entry), {
      ...entry,
      location: {
        start: { line: start.line, column: start.column },
        end: { line: end.line, column: end.column },
      },
    })
  }
  return {
    equivalent: justifications.map((entry) => moves.get(JSON.stringify(entry)) ?? entry),
    moved: moves.size,
  }
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
  const args = process.argv.slice(2)
  const relocating = args[0] === '--relocate'
  const [reportPath = 'reports/mutation/mutation.json', survivorsPath = 'mutation/survivors.json'] =
    relocating ? args.slice(1) : args
  const report = JSON.parse(readFileSync(reportPath, 'utf8')) as unknown
  const survivors = JSON.parse(readFileSync(survivorsPath, 'utf8')) as unknown
  if (relocating) {
    const parsed = SurvivorsSchema.parse(survivors)
    const { equivalent, moved } = relocate(parsed.equivalent, evaluate(report, survivors))
    writeFileSync(survivorsPath, `${JSON.stringify({ ...parsed, equivalent }, null, 2)}\n`)
    console.log(`${moved} justification(s) moved with their code in ${survivorsPath}`)
    return 0
  }
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
  // A stale justification is a reason nobody checks any more: the mutant it
  // was written for was killed, moved or changed. Left in place, it would
  // silently excuse a later survivor that happens to land at its position.
  if (unused.length > 0) {
    failed = true
    console.log(
      `\n${unused.length} justification(s) match no surviving mutant any more: remove each from ${survivorsPath}, or move it with its code (--relocate):`,
    )
    for (const entry of unused)
      console.log(
        `  ${entry.file}:${entry.location.start.line}:${entry.location.start.column} ${entry.mutator}: ${entry.code}`,
      )
  }
  if (unjustified.length > 0) {
    failed = true
    console.log(
      `\n${unjustified.length} surviving mutant(s) have no justification in ${survivorsPath}: kill them with a test, or add an entry saying why each is equivalent:`,
    )
    for (const { file, mutant, code, stale } of unjustified) {
      console.log(
        `  ${file}:${mutant.location.start.line}:${mutant.location.start.column} ${mutant.status} ${mutant.mutatorName}\n` +
          `    ${code}\n    → ${JSON.stringify(mutant.replacement ?? '')}` +
          (stale ? `\n    (the entry at this position was written for: ${stale.code})` : '') +
          `\n    as an entry: ${JSON.stringify(entryFor(file, mutant, code))}`,
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

import type { BenchResults, Figure } from './results-schema.ts'

/** A number with as many decimals as its size deserves. */
export function formatNumber(value: number): string {
  if (value >= 1_000) return Math.round(value).toLocaleString('en-US')
  if (value >= 100) return value.toFixed(0)
  if (value >= 10) return value.toFixed(1)
  return value.toFixed(2)
}

function goalCell(figure: Figure, cores: number): string {
  if (!figure.goal) return ''
  if (figure.goal.met === null) {
    const { others } = figure.load
    const load =
      others === null
        ? `load average ${Math.max(figure.load.start, figure.load.end).toFixed(1)}`
        : `other processes' load ${others.toFixed(1)}`
    return `unreliable (${load} > ${cores} cores): ${figure.goal.text}`
  }
  return `${figure.goal.met ? 'met' : 'MISSED'}: ${figure.goal.text}`
}

/** The results as a fixed-width table, one line per figure, then the
 *  machine and its load, which say how far the figures can be trusted. */
export function formatTable(results: BenchResults): string {
  const rows = results.figures.map((figure) => [
    figure.label + (figure.provisional ? ' (provisional)' : ''),
    formatNumber(figure.median),
    formatNumber(figure.p95),
    `${formatNumber(figure.min)}–${formatNumber(figure.max)}`,
    figure.unit,
    String(figure.samples.length),
    goalCell(figure, results.machine.cores),
  ])
  const header = ['figure', 'median', 'p95', 'min–max', 'unit', 'n', 'goal']
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  )
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column >= 1 && column <= 3 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
      )
      .join('  ')
      .trimEnd()
  const lines = [line(header), line(widths.map((width) => '-'.repeat(width)))]
  let section = ''
  for (const [index, figure] of results.figures.entries()) {
    if (figure.section !== section) {
      section = figure.section
      lines.push(`[${section}]`)
    }
    lines.push(line(rows[index]!))
  }
  for (const entry of results.skipped) lines.push(`[${entry.section}] skipped: ${entry.reason}`)
  const load = (values: readonly number[]) => values.map((value) => value.toFixed(2)).join(' ')
  lines.push(
    '',
    `${results.machine.cores} cores (${results.machine.cpuModel}), node ${results.versions.node}, ` +
      `chromium ${results.versions.chromium ?? 'not run'}${results.quick ? ', --quick' : ''}`,
    `load average at start ${load(results.loadAverage.start)}, at end ${load(results.loadAverage.end)}`,
  )
  return lines.join('\n')
}

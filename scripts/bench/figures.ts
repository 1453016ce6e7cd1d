import type { Figure, MeasuredFigure, Section } from './results-schema.ts'
import { spreadOf } from './stats.ts'

export interface GoalSpec {
  comparison: 'at-most' | 'at-least'
  target: number
  text: string
}

export interface FigureSpec {
  id: string
  section: Section
  label: string
  unit: string
  samples: readonly number[]
  goal?: GoalSpec
  provisional?: boolean
  note?: string
}

/** A figure from its samples: the spread, and whether its median meets the
 *  goal. Refuses a sample that is not a finite positive number, so a broken
 *  measurement fails loudly instead of printing as a fast one. */
export function figure(spec: FigureSpec): MeasuredFigure {
  const bad = spec.samples.find((value) => !Number.isFinite(value) || value <= 0)
  if (spec.samples.length === 0 || bad !== undefined) {
    throw new Error(`${spec.id}: every sample must be a finite positive number (got ${bad})`)
  }
  const spread = spreadOf(spec.samples)
  return {
    id: spec.id,
    section: spec.section,
    label: spec.label,
    unit: spec.unit,
    ...spread,
    ...(spec.goal
      ? {
          goal: {
            ...spec.goal,
            met:
              spec.goal.comparison === 'at-most'
                ? spread.median <= spec.goal.target
                : spread.median >= spec.goal.target,
          },
        }
      : {}),
    ...(spec.provisional ? { provisional: true } : {}),
    ...(spec.note ? { note: spec.note } : {}),
  }
}

/** Element-wise a / b over paired rounds, e.g. a cost ratio per round. */
export function ratios(a: readonly number[], b: readonly number[]): number[] {
  if (a.length !== b.length) throw new Error('ratios need paired samples')
  return a.map((value, index) => value / b[index]!)
}

/** What a section was measured under: the 1-minute load average when it
 *  started and ended, and the mean demand of other processes meanwhile
 *  (others-load.ts), or null where it cannot be read. */
export interface SectionLoad {
  start: number
  end: number
  others: number | null
}

/**
 * Stamps the load a section was measured under on its figures. A figure is
 * unreliable, and its goal is not judged, when other processes kept more
 * threads runnable than the machine has cores, on average, while it was
 * measured: they were competing for the cores, so the figure says more
 * about them. The bench's own processes are part of what it measures and do
 * not count. Where the others' demand cannot be read, the load average
 * stands in for it (start or end above the core count), which also counts
 * the bench's own processes and so errs towards unreliable.
 */
export function underLoad(
  figures: readonly MeasuredFigure[],
  load: SectionLoad,
  cores: number,
): Figure[] {
  const unreliable =
    load.others === null ? Math.max(load.start, load.end) > cores : load.others > cores
  return figures.map((measured) => ({
    ...measured,
    ...(measured.goal && unreliable ? { goal: { ...measured.goal, met: null } } : {}),
    load,
    unreliable,
  }))
}

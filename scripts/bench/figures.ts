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

/**
 * Stamps the load average a section was measured under on its figures. A
 * figure taken while the load exceeded the core count (at its start or its
 * end) is marked unreliable and its goal is not judged: other processes
 * were competing for the cores, so the figure says more about them.
 */
export function underLoad(
  figures: readonly MeasuredFigure[],
  load: { start: number; end: number },
  cores: number,
): Figure[] {
  const unreliable = Math.max(load.start, load.end) > cores
  return figures.map((measured) => ({
    ...measured,
    ...(measured.goal && unreliable ? { goal: { ...measured.goal, met: null } } : {}),
    load,
    unreliable,
  }))
}

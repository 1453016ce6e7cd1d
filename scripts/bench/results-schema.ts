import { z } from 'zod'

/**
 * The shape of `bench-results.json`. Every figure is a finite positive
 * number with its spread over repeated runs; a section that could not run
 * here (no Chromium) is listed under `skipped` with the reason instead.
 */

export const BENCH_RESULTS_SCHEMA_ID = 'assent-bench/1'

export const SECTIONS = [
  'tokens',
  'decisions',
  'consent-latency',
  'workbench',
  'memory',
  'startup',
  'commands',
  'gateway',
] as const
export const SectionSchema = z.enum(SECTIONS)
export type Section = z.infer<typeof SectionSchema>

const PositiveFinite = z
  .number()
  .positive()
  .refine(Number.isFinite, { message: 'must be a finite number' })

const LoadAverageSchema = z.tuple([
  z.number().nonnegative(),
  z.number().nonnegative(),
  z.number().nonnegative(),
])

export const GoalSchema = z.strictObject({
  /** The figure's median (its p50) is compared with `target`. */
  comparison: z.enum(['at-most', 'at-least']),
  target: PositiveFinite,
  /** null when the figure is unreliable: it is not compared at all. */
  met: z.boolean().nullable(),
  text: z.string().min(1),
})
export type Goal = z.infer<typeof GoalSchema>

export const FigureSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9]+(?:[.-][a-z0-9]+)*$/),
  section: SectionSchema,
  label: z.string().min(1),
  unit: z.string().min(1),
  median: PositiveFinite,
  min: PositiveFinite,
  max: PositiveFinite,
  p95: PositiveFinite,
  samples: z.array(PositiveFinite).min(1),
  goal: GoalSchema.optional(),
  /** Measured on a UI still being written, or otherwise not final. */
  provisional: z.boolean().optional(),
  /** What exactly was measured, where the label cannot say it all. */
  note: z.string().optional(),
  /** The 1-minute load average when its measurement started and ended, and
   *  the mean runnable and blocked threads of other processes meanwhile
   *  (scripts/bench/others-load.ts; null where /proc cannot be read). */
  load: z.strictObject({
    start: z.number().nonnegative(),
    end: z.number().nonnegative(),
    others: z.number().nonnegative().nullable(),
  }),
  /** Taken while other processes' load exceeded the core count (or, where
   *  it cannot be read, the load average did): the machine, not the
   *  product, set the figure, so its goal is not judged (`met` null). */
  unreliable: z.boolean(),
})
export type Figure = z.infer<typeof FigureSchema>
/** A figure as measured, before the load it was taken under is stamped on. */
export type MeasuredFigure = Omit<Figure, 'load' | 'unreliable'>

export const SkippedSectionSchema = z.strictObject({
  section: SectionSchema,
  reason: z.string().min(1),
})

export const BenchResultsSchema = z
  .strictObject({
    schema: z.literal(BENCH_RESULTS_SCHEMA_ID),
    startedAt: z.iso.datetime(),
    finishedAt: z.iso.datetime(),
    quick: z.boolean(),
    machine: z.strictObject({
      cores: z.number().int().positive(),
      cpuModel: z.string(),
      platform: z.string(),
      totalMemoryBytes: PositiveFinite,
    }),
    versions: z.strictObject({
      node: z.string().min(1),
      chromium: z.string().min(1).nullable(),
    }),
    loadAverage: z.strictObject({ start: LoadAverageSchema, end: LoadAverageSchema }),
    figures: z.array(FigureSchema).min(1),
    skipped: z.array(SkippedSectionSchema),
  })
  .superRefine((results, context) => {
    const ids = new Set<string>()
    for (const figure of results.figures) {
      if (ids.has(figure.id)) {
        context.addIssue({ code: 'custom', message: `figure ${figure.id} appears twice` })
      }
      ids.add(figure.id)
      if (figure.min > figure.median || figure.median > figure.max || figure.p95 > figure.max) {
        context.addIssue({ code: 'custom', message: `figure ${figure.id}: spread out of order` })
      }
      if (figure.goal && (figure.goal.met === null) !== figure.unreliable) {
        context.addIssue({
          code: 'custom',
          message: `figure ${figure.id}: a goal is judged exactly when the figure is reliable`,
        })
      }
    }
    for (const section of SECTIONS) {
      const measured = results.figures.some((figure) => figure.section === section)
      const skipped = results.skipped.some((entry) => entry.section === section)
      if (!measured && !skipped) {
        context.addIssue({
          code: 'custom',
          message: `section ${section} neither measured nor skipped`,
        })
      }
    }
  })
export type BenchResults = z.infer<typeof BenchResultsSchema>

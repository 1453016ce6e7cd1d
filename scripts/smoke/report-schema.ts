import { z } from 'zod'

export const REPORT_SCHEMA_VERSION = 1

export const AssertionSchema = z.strictObject({
  name: z.string().min(1),
  ok: z.boolean(),
  detail: z.string(),
})

export const ScreenshotSchema = z.strictObject({
  file: z.string().regex(/^[a-z0-9][a-z0-9-]*\.png$/),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  caption: z.string(),
})
export type Screenshot = z.infer<typeof ScreenshotSchema>

export const CaseSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]+$/),
  title: z.string().min(1),
  ok: z.boolean(),
  durationMs: z.number().int().min(0),
  assertions: z.array(AssertionSchema),
  screenshots: z.array(ScreenshotSchema),
  error: z.string().optional(),
})
export type SmokeCase = z.infer<typeof CaseSchema>

/** `report.json`: what QA and security reviewers read. Rewritten after every
 *  case and on failure, so an interrupted run still leaves evidence. */
export const ReportSchema = z
  .strictObject({
    schemaVersion: z.literal(REPORT_SCHEMA_VERSION),
    ok: z.boolean(),
    host: z.enum(['cdp', 'electron']),
    hostReason: z.string(),
    versions: z.strictObject({
      electron: z.string().optional(),
      chromium: z.string().optional(),
      node: z.string(),
      app: z.string(),
    }),
    platform: z.string(),
    startedAt: z.iso.datetime(),
    finishedAt: z.iso.datetime().optional(),
    cases: z.array(CaseSchema),
    audit: z
      .strictObject({
        file: z.string(),
        events: z.number().int().min(0),
        verified: z.boolean(),
        detail: z.string(),
      })
      .optional(),
    failedAt: z.string().optional(),
    error: z.string().optional(),
  })
  .refine((report) => !report.ok || report.cases.every((entry) => entry.ok), {
    message: 'a report cannot be ok with a failed case',
  })
  .refine(
    (report) => !report.ok || report.cases.every((entry) => entry.assertions.every((a) => a.ok)),
    {
      message: 'a report cannot be ok with a failed assertion',
    },
  )
  .refine((report) => report.cases.every((entry) => entry.assertions.length > 0 || !entry.ok), {
    message: 'a passing case must carry at least one assertion',
  })
export type SmokeReport = z.infer<typeof ReportSchema>

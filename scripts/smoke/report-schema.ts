import { z } from 'zod'

export const REPORT_SCHEMA_VERSION = 3

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
    /** The git commit the run was made from (scripts/smoke/source-commit.ts):
     *  `smoke:verify` refuses evidence from any other commit. */
    commit: z.string().regex(/^[0-9a-f]{40}$/),
    /** Tracked files differed from `commit` when the run started. */
    uncommittedChanges: z.boolean(),
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
    /** `assent audit verify --data-dir <the scenario's data folder>`, the real
     *  CLI, run after the runtime stopped: its exit code and what it said. */
    auditCli: z
      .strictObject({
        command: z.string(),
        exitCode: z.number().int().nullable(),
        output: z.string(),
        ok: z.boolean(),
      })
      .optional(),
    /** Where the run kept its secrets: a throwaway home and the key file in
     *  the throwaway data folder, never the person's keychain. */
    environment: z.strictObject({
      home: z.string(),
      secretStore: z.enum(['file', 'keychain']),
      /** Whether the integrity key ended up in the data folder's key file. */
      keyFileInDataDir: z.boolean().optional(),
    }),
    /** What stopping everything left behind (processes, listening ports). */
    cleanup: z
      .strictObject({
        ok: z.boolean(),
        processes: z.array(z.number().int()),
        ports: z.array(z.number().int()),
        leftovers: z.array(z.string()),
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
  .refine((report) => !report.ok || reportChecksPassed(report), {
    message:
      'a report cannot be ok unless the audit chain, `assent audit verify` and the cleanup all passed',
  })
export type SmokeReport = z.infer<typeof ReportSchema>

/** Everything besides the cases that a passing run must show: the exported
 *  chain verified, the CLI said intact, the key stayed in the throwaway data
 *  dir, and nothing the run started is still running. */
export function reportChecksPassed(report: {
  audit?: { verified: boolean } | undefined
  auditCli?: { ok: boolean } | undefined
  environment: { secretStore: string; keyFileInDataDir?: boolean | undefined }
  cleanup?: { ok: boolean } | undefined
}): boolean {
  return (
    report.audit?.verified === true &&
    report.auditCli?.ok === true &&
    (report.environment.secretStore !== 'file' || report.environment.keyFileInDataDir === true) &&
    report.cleanup?.ok === true
  )
}

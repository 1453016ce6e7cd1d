import { relative, resolve, sep } from 'node:path'
import { z } from 'zod'

/**
 * The pure half of `npm run audit:electron`: reads what electronegativity
 * returned, applies the baseline and decides pass or fail. Electronegativity
 * itself exits 0 whatever it finds and whatever it fails to parse; this is
 * where either becomes a failing gate.
 */

export const SEVERITIES = ['INFORMATIONAL', 'LOW', 'MEDIUM', 'HIGH'] as const
export type Severity = (typeof SEVERITIES)[number]

/** Findings at or above this severity fail the audit unless baselined. */
export const BLOCKING_SEVERITY: Severity = 'MEDIUM'

export interface Finding {
  check: string
  severity: Severity
  confidence: string
  /** Repository-relative, `/`-separated; `N/A` for app-wide checks. */
  file: string
  line: number
  column: number
  description: string
  manualReview: boolean
}

export interface ParseFailure {
  file: string
  message: string
  /** Electronegativity's word for "parsed with recovered errors": part of
   *  the file may not have been checked, so it fails the audit too. */
  tolerable: boolean
}

// Only the fields used are required; the tool's objects carry more.
const RawIssueSchema = z.object({
  id: z.string().min(1),
  file: z.string(),
  location: z.object({ line: z.number(), column: z.number() }),
  severity: z.object({ name: z.enum(SEVERITIES) }),
  confidence: z.object({ name: z.string() }),
  description: z.unknown().optional(),
  manualReview: z.boolean().optional(),
})

const RawErrorSchema = z.object({
  file: z.string(),
  message: z.string(),
  tolerable: z.boolean(),
})

const RawResultSchema = z.object({
  issues: z.array(RawIssueSchema),
  errors: z.array(RawErrorSchema),
})

export const BaselineEntrySchema = z.strictObject({
  /** Electronegativity check id, e.g. `PRELOAD_JS_CHECK`. */
  check: z.string().regex(/^[A-Z0-9_]+$/),
  /** Repository-relative path of the file the finding is in. */
  file: z.string().min(1),
  /** Why this finding is accepted: what the code does instead. */
  why: z.string().min(20),
})
export type BaselineEntry = z.infer<typeof BaselineEntrySchema>

export const BaselineSchema = z.strictObject({
  about: z.string().optional(),
  entries: z.array(BaselineEntrySchema),
})

/** Parses the baseline file, refusing unknown keys and duplicate entries. */
export function parseBaseline(text: string): BaselineEntry[] {
  const baseline = BaselineSchema.parse(JSON.parse(text))
  const seen = new Set<string>()
  for (const entry of baseline.entries) {
    const key = `${entry.check} ${entry.file}`
    if (seen.has(key)) throw new Error(`baseline lists ${key} twice`)
    seen.add(key)
  }
  return baseline.entries
}

/**
 * Turns electronegativity's result (`run()`'s return value) into findings
 * and parse failures with repository-relative paths. Throws when the result
 * does not have the expected shape: a tool upgrade that changes it must stop
 * the gate, not silently empty it.
 */
export function readElectronegativityResult(
  raw: unknown,
  paths: { repoRoot: string; scannedDir: string },
): { findings: Finding[]; failures: ParseFailure[] } {
  const parsed = RawResultSchema.safeParse(raw)
  if (!parsed.success) {
    throw new Error(
      `electronegativity returned an unexpected result: ${parsed.error.issues[0]?.message ?? 'invalid'}`,
    )
  }
  const toRepoPath = (file: string) => {
    if (file === 'N/A') return file
    return relative(paths.repoRoot, resolve(paths.scannedDir, file)).split(sep).join('/')
  }
  return {
    findings: parsed.data.issues.map((issue) => ({
      check: issue.id,
      severity: issue.severity.name,
      confidence: issue.confidence.name,
      file: toRepoPath(issue.file),
      line: issue.location.line,
      column: issue.location.column,
      description: typeof issue.description === 'string' ? issue.description : '',
      manualReview: issue.manualReview ?? false,
    })),
    failures: parsed.data.errors.map((error) => ({
      file: toRepoPath(error.file),
      message: error.message,
      tolerable: error.tolerable,
    })),
  }
}

export interface AuditVerdict {
  ok: boolean
  /** At or above the blocking severity and not in the baseline. */
  blocking: Finding[]
  /** At or above the blocking severity, accepted by a baseline entry. */
  baselined: Array<{ finding: Finding; entry: BaselineEntry }>
  /** Baseline entries that match no blocking-level finding: the code they
   *  excused has changed, so they must go (the baseline stays honest). */
  stale: BaselineEntry[]
  failures: ParseFailure[]
}

export function evaluateAudit(input: {
  findings: readonly Finding[]
  failures: readonly ParseFailure[]
  baseline: readonly BaselineEntry[]
  blockingSeverity?: Severity
}): AuditVerdict {
  const threshold = SEVERITIES.indexOf(input.blockingSeverity ?? BLOCKING_SEVERITY)
  const relevant = input.findings.filter(
    (finding) => SEVERITIES.indexOf(finding.severity) >= threshold,
  )
  const entryFor = (finding: Finding) =>
    input.baseline.find((entry) => entry.check === finding.check && entry.file === finding.file)
  const blocking: Finding[] = []
  const baselined: AuditVerdict['baselined'] = []
  const used = new Set<BaselineEntry>()
  for (const finding of relevant) {
    const entry = entryFor(finding)
    if (entry) {
      baselined.push({ finding, entry })
      used.add(entry)
    } else {
      blocking.push(finding)
    }
  }
  const stale = input.baseline.filter((entry) => !used.has(entry))
  return {
    ok: blocking.length === 0 && stale.length === 0 && input.failures.length === 0,
    blocking,
    baselined,
    stale,
    failures: [...input.failures],
  }
}

/** A plain-text report: what failed and why, then what was accepted and why. */
export function formatVerdict(verdict: AuditVerdict): string {
  const lines: string[] = []
  const where = (finding: Finding) =>
    finding.file === 'N/A' ? 'app-wide' : `${finding.file}:${finding.line}:${finding.column}`
  for (const finding of verdict.blocking) {
    lines.push(
      `FAIL ${finding.severity} ${finding.check} at ${where(finding)}: ${finding.description}`,
    )
  }
  for (const failure of verdict.failures) {
    const kind = failure.tolerable ? 'parsed with errors' : 'could not be parsed'
    lines.push(`FAIL ${failure.file} ${kind}: ${failure.message}`)
  }
  for (const entry of verdict.stale) {
    lines.push(`FAIL stale baseline entry ${entry.check} ${entry.file}: it matches no finding`)
  }
  for (const { finding, entry } of verdict.baselined) {
    lines.push(`accepted ${finding.severity} ${finding.check} at ${where(finding)}: ${entry.why}`)
  }
  lines.push(
    verdict.ok
      ? `electronegativity: passed (${verdict.baselined.length} accepted by the baseline)`
      : `electronegativity: FAILED (${verdict.blocking.length} findings, ${verdict.failures.length} parse failures, ${verdict.stale.length} stale baseline entries)`,
  )
  return lines.join('\n')
}

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pngSize } from './png.ts'
import { REPORT_FILE } from './report-writer.ts'
import { ReportSchema, type SmokeReport } from './report-schema.ts'

export const REQUIRED_SCREENSHOTS = [
  'approval-inline-card.png',
  'protected-approval.png',
  'permission-ask-for-approval.png',
  'permission-approve-for-me.png',
  'permission-full-access.png',
  'protected-approval-zh-dark.png',
  'approval-narrow-composer.png',
  'approval-expired.png',
  'question-card.png',
  'question-countdown.png',
  'form-card.png',
  'question-secret-saved.png',
  'mcp-tool-call-card.png',
  'protected-mcp-tool-call.png',
] as const

/** The thirteen topics the scenario must cover (issue: cases 1–13), by the
 *  id of the case that proves each. */
export const REQUIRED_CASES = [
  'ui-create-and-send',
  'manual-allow',
  'manual-deny',
  'scripted-activation-refused',
  'forged-policy-allow',
  'automatic-review',
  'full-access',
  'cancel-mode-change',
  'global-settings-unchanged',
  'persistence',
  'chinese-dark',
  'narrow-window',
  'approval-expiry',
] as const

export type Verdict = { ok: true; report: SmokeReport } | { ok: false; problems: string[] }

/**
 * Checks an evidence folder: `report.json` matches the schema, every
 * screenshot it lists exists and is a PNG of the recorded size, and the
 * screenshots reviewers expect are there.
 */
export function verifyEvidence(folder: string, options: { requireAll: boolean }): Verdict {
  const file = join(folder, REPORT_FILE)
  if (!existsSync(file)) return { ok: false, problems: [`${file} does not exist`] }
  let json: unknown
  try {
    json = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    return { ok: false, problems: [`${file} is not JSON: ${(error as Error).message}`] }
  }
  const parsed = ReportSchema.safeParse(json)
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.map(
        (issue) => `report.json ${issue.path.join('.') || '(root)'}: ${issue.message}`,
      ),
    }
  }
  const problems: string[] = []
  const listed = new Set<string>()
  for (const entry of parsed.data.cases) {
    for (const shot of entry.screenshots) {
      listed.add(shot.file)
      const path = join(folder, shot.file)
      if (!existsSync(path)) {
        problems.push(`${shot.file} (case ${entry.id}) is missing`)
        continue
      }
      const size = pngSize(path)
      if (!size) problems.push(`${shot.file} is not a PNG`)
      else if (size.width !== shot.width || size.height !== shot.height) {
        problems.push(
          `${shot.file} is ${size.width}×${size.height}, the report says ${shot.width}×${shot.height}`,
        )
      }
    }
  }
  if (parsed.data.audit && !existsSync(join(folder, parsed.data.audit.file))) {
    problems.push(`the audit export ${parsed.data.audit.file} is missing`)
  }
  if (options.requireAll) {
    if (!parsed.data.ok)
      problems.push(
        `the report says the run failed${parsed.data.failedAt ? ` at ${parsed.data.failedAt}` : ''}`,
      )
    for (const name of REQUIRED_SCREENSHOTS)
      if (!listed.has(name)) problems.push(`${name} was not taken`)
    const ran = new Map(parsed.data.cases.map((entry) => [entry.id, entry]))
    for (const id of REQUIRED_CASES) {
      const entry = ran.get(id)
      if (!entry) problems.push(`the case ${id} did not run`)
      else if (!entry.ok) problems.push(`the case ${id} failed`)
    }
    if (!parsed.data.audit?.verified) problems.push('the audit chain was not verified')
    const cli = parsed.data.auditCli
    if (!cli) problems.push('`assent audit verify` was not run')
    else if (!cli.ok)
      problems.push(`\`assent audit verify\` failed (exit ${cli.exitCode}): ${cli.output}`)
    const cleanup = parsed.data.cleanup
    if (!cleanup) problems.push('the cleanup was not recorded')
    else if (!cleanup.ok)
      problems.push(`left running after cleanup: ${cleanup.leftovers.join(', ')}`)
  }
  return problems.length === 0 ? { ok: true, report: parsed.data } : { ok: false, problems }
}

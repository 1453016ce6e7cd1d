import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pngSize } from './png.ts'
import { REPORT_FILE } from './report-writer.ts'
import { ReportSchema, type SmokeReport } from './report-schema.ts'
import type { CaseDefinition } from './case-context.ts'
import { SMOKE_CASES } from './cases/approval-cases.ts'

/** The hosts a run can leave evidence for, each in its own folder of the
 *  evidence folder (`<evidence>/cdp/report.json`, `<evidence>/electron/…`). */
export const SMOKE_HOSTS = ['cdp', 'electron'] as const
export type SmokeHost = (typeof SMOKE_HOSTS)[number]

export function hostEvidenceFolder(evidence: string, host: SmokeHost): string {
  return join(evidence, host)
}

/** What a complete run must show: every case the scenario defines, and the
 *  screenshots each declares. Read from the case list itself, so a case
 *  added there is required here without another edit. */
export function requirements(cases: readonly CaseDefinition[] = SMOKE_CASES) {
  return cases.map((definition) => ({
    id: definition.id,
    screenshots: definition.screenshots ?? [],
  }))
}

export type Verdict = { ok: true; report: SmokeReport } | { ok: false; problems: string[] }

export interface VerifyOptions {
  requireAll: boolean
  cases?: readonly CaseDefinition[]
  /** The commit the evidence must have been made from (the checkout's
   *  HEAD, scripts/smoke/source-commit.ts); evidence from another commit
   *  shows other code. */
  commit?: string
  /** The hosts whose evidence must be there (`--hosts cdp,electron`). */
  hosts?: readonly SmokeHost[]
}

/**
 * Checks one host's evidence folder: `report.json` matches the schema, every
 * screenshot it lists exists and is a PNG of the recorded size, and (with
 * `requireAll`) every case of the scenario ran and passed with the
 * screenshots it declares, and every closing check passed.
 */
export function verifyEvidence(
  folder: string,
  options: VerifyOptions & {
    /** The host the folder is for; its report must name that host. */
    host?: SmokeHost
  },
): Verdict {
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
  if (options.host !== undefined && parsed.data.host !== options.host) {
    problems.push(`the report is for host ${parsed.data.host}, in the ${options.host} folder`)
  }
  if (options.commit !== undefined && parsed.data.commit !== options.commit) {
    problems.push(
      `the run was made from commit ${parsed.data.commit}, not from this checkout's ${options.commit}`,
    )
  }
  for (const entry of parsed.data.cases) {
    for (const shot of entry.screenshots) {
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
    const ran = new Map(parsed.data.cases.map((entry) => [entry.id, entry]))
    for (const required of requirements(options.cases)) {
      const entry = ran.get(required.id)
      if (!entry) {
        problems.push(`the case ${required.id} did not run`)
        continue
      }
      if (!entry.ok) problems.push(`the case ${required.id} failed`)
      const taken = new Set(entry.screenshots.map((shot) => shot.file))
      for (const name of required.screenshots)
        if (!taken.has(name)) problems.push(`${name} (case ${required.id}) was not taken`)
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

export interface FolderVerdict {
  ok: boolean
  hosts: Array<{ host: SmokeHost | undefined; folder: string; verdict: Verdict }>
  problems: string[]
}

/**
 * Checks an evidence folder as `npm run smoke` leaves it: each host folder
 * that holds a report (`cdp/`, `electron/`), whose report must name that
 * host, or the folder itself when it is one host's folder. A folder with no
 * report at all fails, and so does one without a host `options.hosts`
 * requires.
 */
export function verifyEvidenceFolder(evidence: string, options: VerifyOptions): FolderVerdict {
  const single = existsSync(join(evidence, REPORT_FILE))
  const targets: FolderVerdict['hosts'] = single
    ? [{ host: undefined, folder: evidence, verdict: verifyEvidence(evidence, options) }]
    : SMOKE_HOSTS.map((host) => ({ host, folder: hostEvidenceFolder(evidence, host) }))
        .filter(({ folder }) => existsSync(join(folder, REPORT_FILE)))
        .map((target) => ({
          ...target,
          verdict: verifyEvidence(target.folder, { ...options, host: target.host }),
        }))
  const problems =
    targets.length === 0
      ? [`no ${REPORT_FILE} in ${evidence} or its host folders (${SMOKE_HOSTS.join('/, ')}/)`]
      : targets.flatMap(({ host, verdict }) =>
          verdict.ok ? [] : verdict.problems.map((problem) => `${host ?? '.'}: ${problem}`),
        )
  const found = targets.flatMap(({ host, verdict }) =>
    host !== undefined ? [host] : verdict.ok ? [verdict.report.host] : [],
  )
  for (const required of options.hosts ?? []) {
    if (!found.includes(required)) {
      problems.push(
        `no evidence for host ${required} (${join(hostEvidenceFolder(evidence, required), REPORT_FILE)})`,
      )
    }
  }
  return { ok: problems.length === 0, hosts: targets, problems }
}

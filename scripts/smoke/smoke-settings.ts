import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkEvidencePath } from './evidence-path.ts'

/**
 * The settings a smoke run passes from the command line (`npm run smoke`,
 * scripts/smoke/run.ts) to Playwright Test's runner, global setup and
 * workers. They travel as environment variables because Playwright starts
 * its workers with the runner's environment, and only that.
 */
export const EVIDENCE_VARIABLE = 'ASSENT_APPROVAL_EVIDENCE'
/** `--keep`: leave the scratch folder (data folder, home, workspace). */
export const KEEP_VARIABLE = 'ASSENT_SMOKE_KEEP'
/** `--force`: write into an evidence folder that is not empty. */
export const FORCE_VARIABLE = 'ASSENT_SMOKE_FORCE'
/**
 * Fails the named case after it ran, with a failed assertion that says so.
 * Only tests/smoke-scenario.test.ts sets it, to prove that a failed case
 * leaves its trace, a failed report and the cleanup; no case reads it.
 */
export const FAIL_CASE_VARIABLE = 'ASSENT_SMOKE_FAIL_CASE'

/** A fresh evidence folder name under the system's temp folder, for a run
 *  that names none (created by the global setup, not here). */
export function defaultEvidenceFolder(now = Date.now(), pid = process.pid): string {
  return join(tmpdir(), `assent-evidence-${now}-${pid}`)
}

/**
 * The evidence folder of this run, checked where Playwright's runner loads
 * its config, before it cleans its output folder or writes its report into
 * that folder: refused when relative, inside the git worktree or not empty
 * (unless forced), so the screenshots of two runs never mix, evidence is
 * never committed, and a refused run destroys nothing. A run that names no
 * folder gets a fresh one. The checked real path is put in the environment,
 * where the workers find it; they load the config again and take it as it
 * is (the folder is theirs to fill).
 */
export function evidenceFolderOf(env: NodeJS.ProcessEnv, projectRoot: string): string {
  const named = env[EVIDENCE_VARIABLE] || defaultEvidenceFolder()
  // Playwright sets TEST_WORKER_INDEX in its workers only.
  if (env.TEST_WORKER_INDEX !== undefined) return named
  const checked = checkEvidencePath(named, projectRoot, env[FORCE_VARIABLE] === '1')
  env[EVIDENCE_VARIABLE] = checked
  return checked
}

/** The folders Playwright Test writes into the evidence folder. */
export const HTML_REPORT_FOLDER = 'playwright-report'
export const TEST_RESULTS_FOLDER = 'test-results'

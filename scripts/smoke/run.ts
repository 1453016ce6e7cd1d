/**
 * `npm run smoke -- [--approvals] [--evidence /abs/dir] [--host cdp|electron] [--keep] [--force]
 *                   [--grep <regex>] …`
 *
 * The approvals smoke scenario, run by Playwright Test (playwright.config.ts,
 * approvals.spec.ts): this checks the command line and the evidence folder
 * first (exit 2, nothing started), then runs `playwright test` with them and
 * exits with its code. Every case must pass, and after the last one the
 * audit chain must verify (in-process and with `assent audit verify`) and
 * nothing the run started may be left running. SIGINT or SIGTERM stops the
 * run the way Ctrl-C stops Playwright (the current case is interrupted,
 * every host is stopped and checked, the report is written); the exit code
 * is then 130 or 143.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { PROJECT_ROOT } from '../../src/main/cdp/built-assets.ts'
import { SMOKE_USAGE, UsageError, parseSmokeArgs, type SmokeArgs } from './cli-args.ts'
import { checkEvidencePath } from './evidence-path.ts'
import {
  EVIDENCE_VARIABLE,
  FORCE_VARIABLE,
  KEEP_VARIABLE,
  defaultEvidenceFolder,
} from './smoke-settings.ts'

const EXIT_USAGE = 2
const PLAYWRIGHT_CLI = fileURLToPath(
  new URL('../../node_modules/@playwright/test/cli.js', import.meta.url),
)
const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 }

function prepare(): { args: SmokeArgs; evidence: string } | number {
  try {
    const args = parseSmokeArgs(process.argv.slice(2), process.env)
    const evidence = checkEvidencePath(
      args.evidence ?? defaultEvidenceFolder(),
      PROJECT_ROOT,
      args.force,
    )
    return { args, evidence }
  } catch (error) {
    console.error(`smoke: ${(error as Error).message}`)
    if (error instanceof UsageError) console.error(SMOKE_USAGE)
    // A bad argument or evidence folder: nothing was started.
    return EXIT_USAGE
  }
}

function main(): void {
  const prepared = prepare()
  if (typeof prepared === 'number') {
    process.exitCode = prepared
    return
  }
  const { args, evidence } = prepared
  const child = spawn(
    process.execPath,
    [
      PLAYWRIGHT_CLI,
      'test',
      '--config',
      `${PROJECT_ROOT}/playwright.config.ts`,
      ...args.playwright,
    ],
    {
      cwd: PROJECT_ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        [EVIDENCE_VARIABLE]: evidence,
        ...(args.force ? { [FORCE_VARIABLE]: '1' } : {}),
        ...(args.keep ? { [KEEP_VARIABLE]: '1' } : {}),
      },
    },
  )
  let signal: NodeJS.Signals | undefined
  const stop = (received: NodeJS.Signals) => {
    signal ??= received
    // Playwright's runner stops gracefully on SIGINT only (SIGTERM would
    // kill it outright): the current case is interrupted, and each host's
    // fixture stops everything, checks the cleanup and writes the report.
    child.kill('SIGINT')
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  child.on('error', (error) => {
    console.error(`smoke: could not start Playwright: ${error.message}`)
    process.exitCode = 1
  })
  child.on('exit', (code, childSignal) => {
    process.exitCode = signal ? (SIGNAL_EXIT[signal] ?? 1) : (code ?? (childSignal ? 1 : 0))
  })
}

main()

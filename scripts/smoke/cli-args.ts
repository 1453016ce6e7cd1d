import { isAbsolute } from 'node:path'
import { SMOKE_HOSTS, type SmokeHost } from './verify-evidence.ts'

export interface SmokeArgs {
  /** Named with --evidence or ASSENT_APPROVAL_EVIDENCE; otherwise the run
   *  picks a fresh folder under the temp folder. */
  evidence: string | undefined
  keep: boolean
  force: boolean
  /** Arguments handed to `playwright test` as they are (`--grep`, the
   *  projects `--host` names, …). */
  playwright: string[]
}

export class UsageError extends Error {}

export const SMOKE_USAGE =
  'usage: npm run smoke -- [--approvals] [--evidence /absolute/dir] [--host cdp|electron]... [--keep] [--force]\n' +
  '                        [--grep <regex>] [--grep-invert <regex>] [--project cdp|electron]... [--list] [--trace <mode>]\n' +
  '       (the evidence dir may also come from ASSENT_APPROVAL_EVIDENCE; --host is --project)'

/** Playwright Test options the smoke passes through, and whether each takes
 *  a value. Anything else is refused here, before anything starts. */
const PASSED_THROUGH: Record<string, boolean> = {
  '--grep': true,
  '-g': true,
  '--grep-invert': true,
  '--project': true,
  '--trace': true,
  '--list': false,
}

function hostOf(value: string, flag: string): SmokeHost {
  if (!(SMOKE_HOSTS as readonly string[]).includes(value)) {
    throw new UsageError(
      `${flag} must be one of ${SMOKE_HOSTS.join(', ')}, not ${JSON.stringify(value)}`,
    )
  }
  return value as SmokeHost
}

/**
 * Parses the smoke command line strictly: an unknown flag, a missing value,
 * an unknown host or a relative evidence path is an error that names the
 * problem, before anything is started.
 */
export function parseSmokeArgs(argv: readonly string[], env: NodeJS.ProcessEnv): SmokeArgs {
  let evidence: string | undefined
  let keep = false
  let force = false
  const playwright: string[] = []
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] ?? ''
    const [flag = '', inline] =
      arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined]
    const value = () => {
      if (inline !== undefined) return inline
      const next = argv[index + 1]
      if (next === undefined || next.startsWith('-')) throw new UsageError(`${flag} needs a value`)
      index += 1
      return next
    }
    switch (flag) {
      // The one scenario there is; accepted as before.
      case '--approvals':
        break
      case '--evidence':
        evidence = value()
        break
      case '--host':
      case '--project':
        playwright.push(`--project=${hostOf(value(), flag)}`)
        break
      case '--keep':
        keep = true
        break
      case '--force':
        force = true
        break
      default: {
        const takesValue = PASSED_THROUGH[flag]
        if (takesValue === undefined)
          throw new UsageError(`unknown argument ${JSON.stringify(arg)}`)
        if (takesValue) playwright.push(flag, value())
        else playwright.push(flag)
      }
    }
  }
  const fromEnv = env.ASSENT_APPROVAL_EVIDENCE || undefined
  if (fromEnv && evidence && fromEnv !== evidence) {
    throw new UsageError('--evidence and ASSENT_APPROVAL_EVIDENCE name different folders')
  }
  evidence ??= fromEnv
  if (evidence !== undefined && !isAbsolute(evidence))
    throw new UsageError(`the evidence folder must be absolute: ${evidence}`)
  return { evidence, keep, force, playwright }
}

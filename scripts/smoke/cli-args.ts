import { isAbsolute } from 'node:path'

export interface SmokeArgs {
  suite: 'approvals'
  evidence: string
  host: 'electron' | 'cdp' | undefined
  keep: boolean
  force: boolean
  /** Build first (`npm run smoke` passes it), after the arguments, the
   *  evidence folder and the host were checked. */
  build: boolean
}

export class UsageError extends Error {}

export const SMOKE_USAGE =
  'usage: npm run smoke -- --approvals --evidence /absolute/dir [--host electron|cdp] [--keep] [--force]\n' +
  '       (the evidence dir may also come from ASSENT_APPROVAL_EVIDENCE)'

/**
 * Parses the smoke command line strictly: an unknown flag, a missing value
 * or a relative evidence path is an error that names the problem, before
 * anything is started.
 */
export function parseSmokeArgs(argv: readonly string[], env: NodeJS.ProcessEnv): SmokeArgs {
  let suite: SmokeArgs['suite'] | undefined
  let evidence: string | undefined
  let host: SmokeArgs['host']
  let keep = false
  let force = false
  let build = false
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] ?? ''
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined]
    const value = () => {
      if (inline !== undefined) return inline
      const next = argv[index + 1]
      if (next === undefined || next.startsWith('--')) throw new UsageError(`${flag} needs a value`)
      index += 1
      return next
    }
    switch (flag) {
      case '--approvals':
        suite = 'approvals'
        break
      case '--evidence':
        evidence = value()
        break
      case '--host': {
        const chosen = value()
        if (chosen !== 'electron' && chosen !== 'cdp') {
          throw new UsageError(`--host must be electron or cdp, not ${JSON.stringify(chosen)}`)
        }
        host = chosen
        break
      }
      case '--keep':
        keep = true
        break
      case '--force':
        force = true
        break
      case '--build':
        build = true
        break
      default:
        throw new UsageError(`unknown argument ${JSON.stringify(arg)}`)
    }
  }
  if (!suite) throw new UsageError('say which scenario to run: --approvals')
  evidence ??= env.ASSENT_APPROVAL_EVIDENCE
  if (!evidence)
    throw new UsageError('--evidence /absolute/dir (or ASSENT_APPROVAL_EVIDENCE) is required')
  if (env.ASSENT_APPROVAL_EVIDENCE && env.ASSENT_APPROVAL_EVIDENCE !== evidence) {
    throw new UsageError('--evidence and ASSENT_APPROVAL_EVIDENCE name different folders')
  }
  if (!isAbsolute(evidence))
    throw new UsageError(`the evidence folder must be absolute: ${evidence}`)
  return { suite, evidence, host, keep, force, build }
}

/**
 * `npm run smoke:verify -- /abs/dir [--hosts cdp,electron] [--partial]`:
 * checks an evidence folder (every host folder in it, or one host's folder).
 * `--hosts` names the hosts whose evidence must be there; each report must
 * name the host of its folder, and every report must have been made from
 * this checkout's commit (evidence from another commit shows other code).
 */
import { isAbsolute, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { z } from 'zod'
import { sourceCommit } from './source-commit.ts'
import { SMOKE_HOSTS, verifyEvidenceFolder } from './verify-evidence.ts'

const USAGE = `usage: npm run smoke:verify -- /absolute/evidence/dir [--hosts ${SMOKE_HOSTS.join(',')}] [--partial]`

const ArgsSchema = z.object({
  folder: z.string().refine(isAbsolute, 'the evidence folder must be an absolute path'),
  hosts: z.array(z.enum(SMOKE_HOSTS)).min(1).optional(),
  partial: z.boolean(),
})

/** The command line, parsed once; a bad one is an error naming the field. */
export function parseVerifyArgs(argv: string[]): z.infer<typeof ArgsSchema> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { hosts: { type: 'string' }, partial: { type: 'boolean', default: false } },
    allowPositionals: true,
    strict: true,
  })
  if (positionals.length !== 1) throw new Error('name exactly one evidence folder')
  const parsed = ArgsSchema.safeParse({
    folder: positionals[0],
    hosts: values.hosts?.split(','),
    partial: values.partial,
  })
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new Error(`${issue?.path.join('.') || 'arguments'}: ${issue?.message ?? 'invalid'}`)
  }
  return parsed.data
}

if (import.meta.main) {
  let args: z.infer<typeof ArgsSchema>
  try {
    args = parseVerifyArgs(process.argv.slice(2))
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`)
    process.exit(2)
  }
  const { commit } = sourceCommit(resolve(import.meta.dirname, '..', '..'))
  const verdict = verifyEvidenceFolder(args.folder, {
    requireAll: !args.partial,
    commit,
    ...(args.hosts === undefined ? {} : { hosts: args.hosts }),
  })
  for (const { host, folder, verdict: one } of verdict.hosts) {
    if (!one.ok) continue
    const { report } = one
    const shots = report.cases.reduce((sum, entry) => sum + entry.screenshots.length, 0)
    console.log(
      `evidence verified${host ? ` (${host})` : ''}: ${report.cases.length} cases, ${shots} screenshots, host ${report.host}, commit ${report.commit}, ok=${report.ok} (${folder})`,
    )
    if (report.uncommittedChanges) {
      console.warn(
        `warning: ${folder} was made with uncommitted changes to ${report.commit}: it shows code no commit holds`,
      )
    }
  }
  if (!verdict.ok) {
    console.error('evidence does NOT verify:')
    for (const problem of verdict.problems) console.error(`  - ${problem}`)
    process.exit(1)
  }
}

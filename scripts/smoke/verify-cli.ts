/** `npm run smoke:verify -- /abs/dir [--partial]`: checks an evidence folder
 *  (every host folder in it, or one host's folder). */
import { isAbsolute } from 'node:path'
import { verifyEvidenceFolder } from './verify-evidence.ts'

const args = process.argv.slice(2)
const partial = args.includes('--partial')
const folders = args.filter((arg) => arg !== '--partial')
if (folders.length !== 1 || !isAbsolute(folders[0] ?? '')) {
  console.error('usage: npm run smoke:verify -- /absolute/evidence/dir [--partial]')
  process.exit(2)
}
const verdict = verifyEvidenceFolder(folders[0]!, { requireAll: !partial })
for (const { host, folder, verdict: one } of verdict.hosts) {
  if (!one.ok) continue
  const { report } = one
  const shots = report.cases.reduce((sum, entry) => sum + entry.screenshots.length, 0)
  console.log(
    `evidence verified${host ? ` (${host})` : ''}: ${report.cases.length} cases, ${shots} screenshots, host ${report.host}, ok=${report.ok} (${folder})`,
  )
}
if (!verdict.ok) {
  console.error('evidence does NOT verify:')
  for (const problem of verdict.problems) console.error(`  - ${problem}`)
  process.exit(1)
}

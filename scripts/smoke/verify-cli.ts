/** `npm run smoke:verify -- /abs/dir`: checks an evidence folder. */
import { isAbsolute } from 'node:path'
import { verifyEvidence } from './verify-evidence.ts'

const args = process.argv.slice(2)
const partial = args.includes('--partial')
const folders = args.filter((arg) => arg !== '--partial')
if (folders.length !== 1 || !isAbsolute(folders[0] ?? '')) {
  console.error('usage: npm run smoke:verify -- /absolute/evidence/dir [--partial]')
  process.exit(2)
}
const verdict = verifyEvidence(folders[0]!, { requireAll: !partial })
if (verdict.ok) {
  const { report } = verdict
  const shots = report.cases.reduce((sum, entry) => sum + entry.screenshots.length, 0)
  console.log(
    `evidence verified: ${report.cases.length} cases, ${shots} screenshots, host ${report.host}, ok=${report.ok}`,
  )
} else {
  console.error('evidence does NOT verify:')
  for (const problem of verdict.problems) console.error(`  - ${problem}`)
  process.exit(1)
}

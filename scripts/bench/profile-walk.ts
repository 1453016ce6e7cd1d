// `node scripts/bench/profile-walk.ts [--times N] <folder>...`: what the
// command sandbox's walk of a workspace (`personOnlyPathsIn`, which every
// command's start and the rule's look at an Assent command run) costs in
// that folder: the entries it reads, what it keeps read-only, whether it
// stopped at its limit, and each walk's time in one process (the first is
// cold; the rest show what a command's start pays).

import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { personOnlyPathsIn } from '../../src/runtime/policy/read-only-walk.ts'

const { values: flags, positionals: folders } = parseArgs({
  options: { times: { type: 'string', default: '5' } },
  allowPositionals: true,
  strict: true,
})
if (folders.length === 0) throw new Error('name at least one folder to walk')

for (const folder of folders) {
  const times: string[] = []
  let result = personOnlyPathsIn(folder)
  for (let run = 0; run < Number(flags.times); run += 1) {
    const started = performance.now()
    result = personOnlyPathsIn(folder)
    times.push((performance.now() - started).toFixed(1))
  }
  console.log(
    `${folder}: ${entriesOutsideNodeModules(folder)} entries outside node_modules, ` +
      `${result.paths.length} kept read-only, ${result.truncated ? 'stopped at its limit' : 'walked whole'}; ` +
      `ms per walk: ${times.join(', ')}`,
  )
}

/** The entries the walk could read: every one outside `node_modules`. */
function entriesOutsideNodeModules(folder: string): number {
  let count = 0
  const pending = [folder]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const entry of readdirSync(next, { withFileTypes: true })) {
      count += 1
      if (entry.isDirectory() && entry.name !== 'node_modules') {
        pending.push(join(next, entry.name))
      }
    }
  }
  return count
}

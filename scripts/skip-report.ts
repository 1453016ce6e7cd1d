/**
 * A vitest reporter that names every test the run did not execute, right
 * before vitest's own summary (which stays the last word of the output).
 *
 * The summary only counts skips ("1 skipped"); this says which tests they
 * were and why, so a skip can be traced to the part of the machine it
 * needed. Each conditional skip in the suite goes through
 * tests/support/require-or-skip.ts, which already fails under
 * ASSENT_REQUIRE_ALL=1; this reporter holds the same line for every other
 * way a test can go unexecuted (`it.skip`, `it.todo`, a `describe.skipIf`
 * whose condition forgot the helper, `ctx.skip()`): under
 * ASSENT_REQUIRE_ALL=1 any of them fails the run, since a check that did
 * not run proves nothing and the run must not look as if it had.
 */
import { relative } from 'node:path'
import type { Reporter, TestModule } from 'vitest/node'

export const REQUIRE_ALL_VARIABLE = 'ASSENT_REQUIRE_ALL'

export interface UnrunTest {
  /** The test file, relative to the working folder. */
  file: string
  /** The test's name with its describe blocks, joined by " > ". */
  name: string
  /** `skip`, `todo`, or the note a `ctx.skip(note)` gave. */
  why: string
}

/** Every test of the run that was skipped or left to do, in file order. */
export function unrunTests(modules: ReadonlyArray<TestModule>, cwd: string): UnrunTest[] {
  const unrun: UnrunTest[] = []
  for (const module of modules) {
    for (const test of module.children.allTests()) {
      const result = test.result()
      if (result.state !== 'skipped' && result.state !== 'pending') continue
      unrun.push({
        file: relative(cwd, module.moduleId),
        name: test.fullName,
        why:
          (result.state === 'skipped' ? result.note : undefined) ??
          (test.options.mode === 'todo' ? 'todo' : 'skip'),
      })
    }
  }
  return unrun
}

/** The lines this reporter prints for the tests that did not run. */
export function unrunReport(unrun: readonly UnrunTest[], requireAll: boolean): string[] {
  if (unrun.length === 0) return []
  const lines = [
    `not run: ${unrun.length} test${unrun.length === 1 ? '' : 's'}`,
    ...unrun.map((test) => `  ${test.file} > ${test.name} (${test.why})`),
  ]
  if (requireAll) {
    lines.push(`${REQUIRE_ALL_VARIABLE}=1 forbids skipping a test: the run fails.`)
  }
  return lines
}

export default class SkipReport implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const requireAll = process.env[REQUIRE_ALL_VARIABLE] === '1'
    const lines = unrunReport(unrunTests(modules, process.cwd()), requireAll)
    if (lines.length === 0) return
    console.log(`\n${lines.join('\n')}`)
    // vitest only ever raises the exit code; it never lowers it back to 0.
    if (requireAll) process.exitCode = 1
  }
}

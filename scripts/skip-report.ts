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
import type { UserConsoleLog } from 'vitest'
import type { Reporter, TestModule } from 'vitest/node'

export const REQUIRE_ALL_VARIABLE = 'ASSENT_REQUIRE_ALL'

/** How tests/support/require-or-skip.ts starts the line saying why a
 *  file's tests that need a missing part are skipped. */
export const SKIP_REASON_PREFIX = 'skipping: '

export interface UnrunTest {
  /** The test file, relative to the working folder. */
  file: string
  /** The test's name with its describe blocks, joined by " > ". */
  name: string
  /** The note a `ctx.skip(note)` gave, what its file said when it skipped
   *  for a missing part (`reasons`), or else `skip` or `todo`. */
  why: string
}

/** Every test of the run that was skipped or left to do, in file order;
 *  `reasons` holds, by test file (its module id), why that file said it
 *  skips what needs a missing part. */
export function unrunTests(
  modules: ReadonlyArray<TestModule>,
  cwd: string,
  reasons: ReadonlyMap<string, readonly string[]> = new Map(),
): UnrunTest[] {
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
          (test.options.mode === 'todo' ? 'todo' : undefined) ??
          reasons.get(module.id)?.join('; ') ??
          'skip',
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
  /** What each test file said when it skipped tests for a missing part,
   *  as it loaded (its module id is the log's task). */
  private readonly reasons = new Map<string, string[]>()

  onUserConsoleLog(log: UserConsoleLog): void {
    if (log.taskId === undefined) return
    for (const line of log.content.split('\n')) {
      if (!line.startsWith(SKIP_REASON_PREFIX)) continue
      const said = this.reasons.get(log.taskId) ?? []
      said.push(line.slice(SKIP_REASON_PREFIX.length).trim())
      this.reasons.set(log.taskId, said)
    }
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const requireAll = process.env[REQUIRE_ALL_VARIABLE] === '1'
    const lines = unrunReport(unrunTests(modules, process.cwd(), this.reasons), requireAll)
    if (lines.length === 0) return
    console.log(`\n${lines.join('\n')}`)
    // vitest only ever raises the exit code; it never lowers it back to 0.
    if (requireAll) process.exitCode = 1
  }
}

import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { entryFor, evaluate, relocate, score } from './mutation-report.ts'

const SCRIPT = fileURLToPath(new URL('./mutation-report.ts', import.meta.url))
// Lines 2 and 4 read the same: a justification for one must not cover the other.
const SOURCE = 'const a = 1\nif (a > 0) grant()\nreturn a\nif (a > 0) grant()\n'

function mutant(id: string, status: string, line: number, replacement = 'true', column = 5) {
  return {
    id,
    mutatorName: 'ConditionalExpression',
    replacement,
    status,
    location: { start: { line, column }, end: { line, column: column + 5 } },
  }
}

const report = (mutants: unknown[], source = SOURCE) => ({
  files: { 'src/x.ts': { source, mutants } },
})
const justification = {
  file: 'src/x.ts',
  mutator: 'ConditionalExpression',
  location: { start: { line: 2, column: 5 }, end: { line: 2, column: 10 } },
  code: 'if (a > 0) grant()',
  replacement: 'true',
  why: 'a is a constant 1, so a > 0 is always true',
}

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** Runs the report as CI does, on files written here. */
function runReport(reportJson: unknown, survivors: unknown) {
  const dir = mkdtempSync(join(tmpdir(), 'assent-mutation-'))
  dirs.push(dir)
  writeFileSync(join(dir, 'report.json'), JSON.stringify(reportJson))
  writeFileSync(join(dir, 'survivors.json'), JSON.stringify(survivors))
  return spawnSync(
    process.execPath,
    [SCRIPT, join(dir, 'report.json'), join(dir, 'survivors.json')],
    {
      encoding: 'utf8',
    },
  )
}

describe('the mutation report', () => {
  it('scores killed and timed-out mutants as detected, survivors and uncovered ones as not', () => {
    expect(score({ killed: 18, timeout: 1, survived: 1, noCoverage: 0 })).toBe(95)
    expect(score({ killed: 0, timeout: 0, survived: 0, noCoverage: 0 })).toBe(100)
  })

  it('matches a survivor to its justification by file, mutator, position and replacement', () => {
    const justified = evaluate(report([mutant('1', 'Survived', 2)]), {
      equivalent: [justification],
    })
    expect(justified.unjustified).toEqual([])
    expect(justified.rows[0]).toMatchObject({ survived: 1, justified: 1 })
    // The same position mutated another way is a different mutant.
    const other = evaluate(report([mutant('1', 'Survived', 2, 'false')]), {
      equivalent: [justification],
    })
    expect(other.unjustified).toHaveLength(1)
    expect(other.unused).toEqual([justification])
  })

  it('does not let one justification cover a mutant elsewhere on a line that reads the same', () => {
    // Line 4 reads exactly like line 2; another column of line 2 is another mutant.
    const result = evaluate(
      report([
        mutant('1', 'Survived', 2),
        mutant('2', 'Survived', 4),
        mutant('3', 'Survived', 2, 'true', 9),
      ]),
      { equivalent: [justification] },
    )
    expect(result.rows[0]).toMatchObject({ survived: 3, justified: 1 })
    expect(result.unjustified.map((entry) => entry.mutant.id)).toEqual(['2', '3'])
  })

  it('refuses an entry at the right position written for a line that now reads differently', () => {
    const edited = SOURCE.replace('if (a > 0) grant()', 'if (a >= 0) grant()')
    const result = evaluate(report([mutant('1', 'Survived', 2)], edited), {
      equivalent: [justification],
    })
    expect(result.unjustified).toMatchObject([
      { code: 'if (a >= 0) grant()', stale: justification },
    ])
    expect(result.unused).toEqual([justification])
  })

  it('prints an unjustified mutant as an entry to start from', () => {
    const survivor = mutant('1', 'Survived', 2)
    expect(entryFor('src/x.ts', survivor, 'if (a > 0) grant()')).toEqual({
      ...justification,
      why: '',
    })
  })

  it('refuses a justification without a position', () => {
    const { location: _location, ...withoutPosition } = justification
    expect(() =>
      evaluate(report([mutant('1', 'Survived', 2)]), {
        equivalent: [{ ...withoutPosition, line: 2 }],
      }),
    ).toThrow(/location/)
  })

  it('fails on an unjustified survivor even when the score is above the bar', () => {
    const killed = Array.from({ length: 99 }, (_, i) => mutant(`k${i}`, 'Killed', 1))
    const result = runReport(report([...killed, mutant('s', 'Survived', 3)]), { equivalent: [] })
    expect(result.status).toBe(1)
    expect(result.stdout).toContain('1 surviving mutant(s) have no justification')
  })

  it('fails below 95 % even when every survivor is justified', () => {
    const mutants = [
      ...Array.from({ length: 9 }, (_, i) => mutant(`k${i}`, 'Killed', 1)),
      mutant('s', 'Survived', 2),
    ]
    const result = runReport(report(mutants), { equivalent: [justification] })
    expect(result.status).toBe(1)
    expect(result.stdout).toContain('mutation score 90.00 % is below 95 %')
  })

  it('passes at the bar with every survivor justified', () => {
    const mutants = [
      ...Array.from({ length: 19 }, (_, i) => mutant(`k${i}`, 'Killed', 1)),
      mutant('s', 'Survived', 2),
    ]
    const result = runReport(report(mutants), { equivalent: [justification] })
    expect(result.stdout).toContain('mutation report: ok')
    expect(result.status).toBe(0)
  })

  it('fails on a justification that matches no surviving mutant, and names it', () => {
    const killed = Array.from({ length: 19 }, (_, i) => mutant(`k${i}`, 'Killed', 1))
    const stale = {
      ...justification,
      location: { start: { line: 4, column: 5 }, end: { line: 4, column: 10 } },
    }
    const result = runReport(report([...killed, mutant('s', 'Survived', 2)]), {
      equivalent: [justification, stale],
    })
    expect(result.stdout).toContain('1 justification(s) match no surviving mutant any more')
    expect(result.stdout).toContain('src/x.ts:4:5 ConditionalExpression: if (a > 0) grant()')
    expect(result.stdout).toContain('mutation report: FAILED')
    expect(result.status).toBe(1)
  })

  describe('--relocate', () => {
    // The same two lines, one line further down: code that moved and did not change.
    const MOVED = `// a comment\n${SOURCE}`

    it('moves an entry onto the one survivor its line moved to', () => {
      const survivors = { equivalent: [justification] }
      const moved = report([mutant('1', 'Survived', 3)], MOVED)
      const { equivalent, moved: count } = relocate([justification], evaluate(moved, survivors))
      expect(count).toBe(1)
      expect(evaluate(moved, { equivalent }).unjustified).toEqual([])
      expect(equivalent[0]?.why).toBe(justification.why)
    })

    it('moves nothing when two survivors read the same, so a reason is never guessed onto one', () => {
      const survivors = { equivalent: [justification] }
      const moved = report([mutant('1', 'Survived', 3), mutant('2', 'Survived', 5)], MOVED)
      const { equivalent, moved: count } = relocate([justification], evaluate(moved, survivors))
      expect(count).toBe(0)
      expect(equivalent).toEqual([justification])
    })

    it('moves nothing onto a survivor at other columns or with another replacement', () => {
      const survivors = { equivalent: [justification] }
      for (const other of [
        mutant('1', 'Survived', 3, 'true', 6),
        mutant('1', 'Survived', 3, 'false'),
      ]) {
        const moved = report([other], MOVED)
        expect(relocate([justification], evaluate(moved, survivors)).moved).toBe(0)
      }
    })

    it('rewrites survivors.json when run with --relocate, and the check then passes', () => {
      const dir = mkdtempSync(join(tmpdir(), 'assent-mutation-'))
      dirs.push(dir)
      const moved = report(
        [
          mutant('1', 'Survived', 3),
          ...Array.from({ length: 19 }, (_, i) => mutant(`k${i}`, 'Killed', 1)),
        ],
        MOVED,
      )
      writeFileSync(join(dir, 'report.json'), JSON.stringify(moved))
      writeFileSync(join(dir, 'survivors.json'), JSON.stringify({ equivalent: [justification] }))
      const args = [join(dir, 'report.json'), join(dir, 'survivors.json')]
      expect(spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' }).status).toBe(1)
      const relocated = spawnSync(process.execPath, [SCRIPT, '--relocate', ...args], {
        encoding: 'utf8',
      })
      expect(relocated.stdout).toContain('1 justification(s) moved')
      expect(spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' }).status).toBe(0)
    })
  })

  it('fails on a survivor listed without a reason: a survivors file holds only justifications', () => {
    const { why: _why, ...unreasoned } = justification
    expect(() =>
      evaluate(report([mutant('1', 'Survived', 2)]), { equivalent: [unreasoned] }),
    ).toThrow()
    expect(() =>
      evaluate(report([mutant('1', 'Survived', 2)]), { equivalent: [], unreviewed: [unreasoned] }),
    ).toThrow()
  })
})

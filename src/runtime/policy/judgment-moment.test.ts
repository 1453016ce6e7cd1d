import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { gitPlacesOf } from './git-hooks-folder.ts'
import { inOneMoment, keptForTheMoment } from './judgment-moment.ts'
import { realPathAllowingMissing } from './real-paths.ts'

// One judgment's look-ups are shared by the rules it runs, and forgotten
// when it ends: a judgment made after it finds the file system as it is.

let root: string

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'assent-moment-'))
  mkdirSync(path.join(root, 'a'))
  mkdirSync(path.join(root, 'b'))
})

afterEach(() => {
  rmSync(root, { recursive: true, force: true })
})

/** Points `link` at `target`, replacing what it pointed at. */
function pointAt(link: string, target: string): void {
  rmSync(link, { force: true })
  symlinkSync(target, link)
}

describe('one judgment moment', () => {
  it('looks a path up once inside a moment, and afresh in the next one', () => {
    const link = path.join(root, 'here')
    pointAt(link, path.join(root, 'a'))
    const inside = inOneMoment(() => {
      const first = realPathAllowingMissing(path.join(link, 'x'))
      pointAt(link, path.join(root, 'b'))
      return [first, realPathAllowingMissing(path.join(link, 'x'))]
    })
    expect(inside).toEqual([path.join(root, 'a', 'x'), path.join(root, 'a', 'x')])
    // Outside any moment, and in the next one, the link is read as it is.
    expect(realPathAllowingMissing(path.join(link, 'x'))).toBe(path.join(root, 'b', 'x'))
    pointAt(link, path.join(root, 'a'))
    expect(inOneMoment(() => realPathAllowingMissing(path.join(link, 'x')))).toBe(
      path.join(root, 'a', 'x'),
    )
  })

  it('shares a moment with one inside it, and forgets it when the judgment throws', () => {
    const link = path.join(root, 'here')
    pointAt(link, path.join(root, 'a'))
    expect(() =>
      inOneMoment(() => {
        realPathAllowingMissing(link)
        pointAt(link, path.join(root, 'b'))
        expect(inOneMoment(() => realPathAllowingMissing(link))).toBe(path.join(root, 'a'))
        throw new Error('the judgment failed')
      }),
    ).toThrow('the judgment failed')
    expect(inOneMoment(() => realPathAllowingMissing(link))).toBe(path.join(root, 'b'))
  })

  it('refuses an asynchronous judgment, and leaves no moment behind', async () => {
    let looked = 0
    const find = () => (looked += 1)
    expect(() => inOneMoment(async () => keptForTheMoment('count', 'k', find))).toThrow(
      'synchronous',
    )
    // Not inside a moment any more: each look-up is made.
    keptForTheMoment('count', 'k', find)
    keptForTheMoment('count', 'k', find)
    expect(looked).toBe(3)
  })

  it("reads a repository's places once in a moment, and again in the next", () => {
    const repository = path.join(root, 'repo')
    mkdirSync(path.join(repository, '.git'), { recursive: true })
    const config = path.join(repository, '.git', 'config')
    writeFileSync(config, '[core]\n\thooksPath = first\n')
    const named = () => gitPlacesOf(repository)?.hooksFolders
    const inside = inOneMoment(() => {
      const before = named()
      // Another file, not the same one rewritten: a settled read of the
      // same file is kept by its identity anyway (settled-file-cache.ts).
      rmSync(config)
      writeFileSync(config, '[core]\n\thooksPath = second\n')
      return [before, named()]
    })
    expect(inside[0]).toEqual(inside[1])
    expect(inside[0]).toContain(path.join(repository, 'first'))
    expect(inOneMoment(named)).toContain(path.join(repository, 'second'))
  })
})

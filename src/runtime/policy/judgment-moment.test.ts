import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  type Stats,
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { gitPlacesOf } from './git-hooks-folder.ts'
import {
  existsInTheMoment,
  inOneMoment,
  keptForTheMoment,
  lstatOfTheMoment,
  statOfTheMoment,
} from './judgment-moment.ts'
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

  it('looks at a name once in a moment, each way, and as the kernel would', () => {
    const name = path.join(root, 'name')
    const gone = path.join(root, 'gone')
    const below = path.join(gone, 'below')
    symlinkSync(path.join(root, 'a'), path.join(root, 'to-a'))
    symlinkSync(path.join(root, 'nowhere'), path.join(root, 'dangling'))
    const kind = (stats: Stats | undefined) =>
      stats === undefined
        ? 'missing'
        : stats.isSymbolicLink()
          ? 'link'
          : stats.isDirectory()
            ? 'folder'
            : 'file'
    const looks = () => ({
      name: kind(lstatOfTheMoment(name)),
      gone: kind(lstatOfTheMoment(gone)),
      below: kind(statOfTheMoment(below)),
      link: kind(lstatOfTheMoment(path.join(root, 'to-a'))),
      throughLink: kind(statOfTheMoment(path.join(root, 'to-a'))),
      dangling: existsInTheMoment(path.join(root, 'dangling')),
    })
    const before = {
      name: 'missing',
      gone: 'missing',
      below: 'missing',
      link: 'link',
      throughLink: 'folder',
      dangling: false,
    }
    const inside = inOneMoment(() => {
      const first = looks()
      // Made after the first look: the moment keeps what it saw, the
      // name below a folder it saw missing included.
      writeFileSync(name, 'x')
      mkdirSync(gone)
      writeFileSync(below, 'x')
      return [first, looks()]
    })
    expect(inside).toEqual([before, before])
    // A name below a folder the moment saw missing is missing in it too,
    // though first looked at after it was made.
    rmSync(gone, { recursive: true })
    const first = inOneMoment(() => {
      lstatOfTheMoment(gone)
      mkdirSync(gone)
      writeFileSync(below, 'x')
      return [kind(lstatOfTheMoment(below)), kind(statOfTheMoment(below))]
    })
    expect(first).toEqual(['missing', 'missing'])
    const after = { ...before, name: 'file', gone: 'folder', below: 'file' }
    expect(inOneMoment(looks)).toEqual(after)
    expect(looks()).toEqual(after)
  })

  it('fails a look again in the moment as it failed the first time', () => {
    const file = path.join(root, 'a', 'file')
    writeFileSync(file, 'x')
    // A name below a file: the look fails (ENOTDIR), and its caller's
    // own handling decides; the moment must not turn it into "missing".
    const errors = inOneMoment(() =>
      [0, 1].map(() => {
        try {
          return String(lstatOfTheMoment(path.join(file, 'x')))
        } catch (error) {
          return (error as NodeJS.ErrnoException).code
        }
      }),
    )
    let direct: string | undefined
    try {
      direct = String(lstatSync(path.join(file, 'x'), { throwIfNoEntry: false }))
    } catch (error) {
      direct = (error as NodeJS.ErrnoException).code
    }
    expect(errors).toEqual([direct, direct])
  })
})

import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { gitFoldersInInstallFolder } from './install-folder-repositories.ts'
import { personOnlyPathsIn } from './read-only-walk.ts'

let workspace: string

beforeEach(() => {
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'assent-install-folder-')))
})

afterEach(() => rmSync(workspace, { recursive: true, force: true }))

describe('the git folders an install folder holds where git finds them', () => {
  it("finds the folder's own, a package's, a scoped package's and a link named .git", () => {
    const modules = join(workspace, 'node_modules')
    for (const made of ['.git', 'a/.git', '@s/b/.git', 'c/src', 'd/lib/.git']) {
      mkdirSync(join(modules, made), { recursive: true })
    }
    symlinkSync('../a/.git', join(modules, 'c', '.git'))
    expect(gitFoldersInInstallFolder(modules)?.sort()).toEqual(
      ['.git', 'a/.git', 'c/.git', '@s/b/.git'].map((git) => join(modules, git)).sort(),
    )
    // Deeper in a package is not looked at (a stated limit).
    expect(gitFoldersInInstallFolder(modules)).not.toContain(join(modules, 'd/lib/.git'))
  })

  it('finds nothing in a folder that is not there', () => {
    expect(gitFoldersInInstallFolder(join(workspace, 'node_modules'))).toEqual([])
  })

  it('cannot say, and the walk fails closed, when a scope cannot be listed', () => {
    const modules = join(workspace, 'node_modules')
    mkdirSync(modules)
    // A link that leads to itself lists as an error (ELOOP), as a folder
    // whose listing a command took away (chmod 111) does for an ordinary
    // user: what it holds is not known.
    symlinkSync('@s', join(modules, '@s'))
    expect(gitFoldersInInstallFolder(modules)).toBeNull()
    mkdirSync(join(workspace, 'src'))
    expect(personOnlyPathsIn(workspace).truncated).toBe(true)
  })
})

describe("the workspace's walk", () => {
  it("finds a git folder at any depth, and in node_modules only a package's own", () => {
    mkdirSync(join(workspace, 'src/github.com/org/repo/.git/hooks'), { recursive: true })
    mkdirSync(join(workspace, 'a/b/c/d/e/f/.envrc'), { recursive: true })
    mkdirSync(join(workspace, 'node_modules/dep/.git'), { recursive: true })
    mkdirSync(join(workspace, 'node_modules/dep/lib/.git'), { recursive: true })
    mkdirSync(join(workspace, 'node_modules/dep/.envrc'), { recursive: true })
    const { paths, truncated } = personOnlyPathsIn(workspace)
    expect(truncated).toBe(false)
    expect(paths).toContain(join(workspace, 'src/github.com/org/repo/.git'))
    expect(paths).toContain(join(workspace, 'a/b/c/d/e/f/.envrc'))
    // Where git finds it for the package; the rest of the install folder
    // is not walked.
    expect(paths.filter((kept) => kept.includes('node_modules'))).toEqual([
      join(workspace, 'node_modules/dep/.git'),
    ])
  })
})

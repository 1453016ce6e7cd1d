import { userInfo } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { configPathValues, GitPathNotExpanded } from './git-config-paths.ts'

// A path value of a git config as git expands it, git itself asked where
// Node cannot tell (another user's home, git's prefix).

const SEARCH_PATH = process.env.PATH
afterEach(() => {
  process.env.PATH = SEARCH_PATH
})

describe('configPathValues', () => {
  const { username, homedir } = userInfo()

  it("reads `~user/` as that user's home, and one git cannot expand as nothing", () => {
    expect(configPathValues(`~${username}/hooks`)).toEqual([path.join(homedir, 'hooks')])
    expect(configPathValues('~no-such-user-of-assent/hooks')).toEqual([])
  })

  it('names both readings of a newer git’s `:(optional)`', () => {
    expect(configPathValues(':(optional)hooks')).toEqual([':(optional)hooks', 'hooks'])
  })

  it('fails where git gives no answer, and asks it again once it can be started', () => {
    const value = `~${username}/after-git-is-found`
    process.env.PATH = '/nonexistent-assent-bin'
    expect(() => configPathValues(value)).toThrow(GitPathNotExpanded)
    process.env.PATH = SEARCH_PATH
    expect(configPathValues(value)).toEqual([path.join(homedir, 'after-git-is-found')])
  })
})

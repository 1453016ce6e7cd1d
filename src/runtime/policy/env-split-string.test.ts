import { describe, expect, it } from 'vitest'
import { envSplitReading, splitString } from './env-split-string.ts'

describe('splitString: env -S as GNU env splits it', () => {
  it.each([
    ['git config x y', ['git', 'config', 'x', 'y']],
    ['cp x .g""it/config', ['cp', 'x', '.git/config']],
    ['cp \'a b\' "c d"', ['cp', 'a b', 'c d']],
    ['cp\\_x\\_.git/config', ['cp', 'x', '.git/config']],
    ['echo "a\\_b"', ['echo', 'a b']],
    ["echo 'a\\'b' 'c\\d'", ['echo', "a'b", 'c\\d']],
    ['echo a\\#b #comment', ['echo', 'a#b']],
    ['echo a#b', ['echo', 'a#b']],
    ['echo a\\cb c', ['echo', 'a']],
    ['echo\t\n x', ['echo', 'x']],
  ])('splits %j into %j', (text, words) => {
    expect(splitString(text)).toEqual({ words, runTime: null })
  })

  it.each([
    ['cp x ${D}/config', '${D}'],
    ['cp x "${D}"t', '${D}'],
    ['cp x $D', '$'],
  ])('finds what %s builds at run time', (text, found) => {
    expect(splitString(text).runTime).toBe(found)
  })

  it('reads env with -S as env, the split words, then its other words; an unknown option as unread', () => {
    const words = ['env', '-i', '-S', 'git config', 'x', 'y']
    expect(envSplitReading(words, 1)).toEqual({
      reading: { words: ['env', 'git', 'config', 'x', 'y'], runTime: null },
    })
    expect(envSplitReading(['env', '-i', 'ls'], 1)).toBeNull()
    expect(envSplitReading(['env', '--frob', '-S', 'ls'], 1)).toEqual({ unread: 'env --frob' })
  })
})

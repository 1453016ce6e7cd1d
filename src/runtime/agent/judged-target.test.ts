import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { observeTarget } from '../tools/file-target.ts'
import { judgedChange } from './judged-target.ts'

// The runner's check right before a call runs, however it was answered:
// the paths resolved now must be the paths judged, and a file observed
// when it was judged must still be that file. The races through the whole
// runtime are in tests/unasked-read-runs-where-judged.test.ts and
// tests/grant-write-runs-where-judged.test.ts.

let ws: string

beforeEach(async () => {
  ws = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-judged-')))
})

afterEach(async () => {
  await rm(ws, { recursive: true, force: true })
})

describe('a call checked against what it was judged on', () => {
  it('runs on the very paths it was judged on', async () => {
    expect(await judgedChange({ paths: ['/w/a.txt'] }, ['/w/a.txt'])).toBeNull()
    expect(await judgedChange({ paths: [] }, [])).toBeNull()
  })

  it('is refused when a path resolves elsewhere now', async () => {
    const changed = await judgedChange({ paths: ['/w/inside.txt'] }, ['/w/.git/hooks/pre-commit'])
    expect(changed).toEqual({
      ok: false,
      code: 'target_changed',
      output:
        'The path now resolves to /w/.git/hooks/pre-commit, not /w/inside.txt as it was judged; it did not run.',
    })
  })

  it('is refused when it resolves to more, fewer or no paths', async () => {
    const more = await judgedChange({ paths: ['/w/a'] }, ['/w/a', '/w/b'])
    expect(more).toMatchObject({ code: 'target_changed' })
    const fewer = await judgedChange({ paths: ['/w/a', '/w/b'] }, ['/w/a'])
    expect(fewer).toMatchObject({ code: 'target_changed' })
    const none = await judgedChange({ paths: ['/w/a'] }, [])
    expect(none).toMatchObject({
      code: 'target_changed',
      output: 'The path now resolves to nothing, not /w/a as it was judged; it did not run.',
    })
    const fromNone = await judgedChange({ paths: [] }, ['/w/a'])
    expect(fromNone?.output).toBe(
      'The path now resolves to /w/a, not nothing as it was judged; it did not run.',
    )
  })

  it('is refused when the file observed is another by now, on the same path', async () => {
    const file = path.join(ws, 'a.txt')
    await writeFile(file, 'what was seen')
    const { target } = await observeTarget(file, { readContent: true })
    expect(await judgedChange({ paths: [file], target }, [file])).toBeNull()
    await writeFile(file, 'something else')
    expect(await judgedChange({ paths: [file], target }, [file])).toMatchObject({
      ok: false,
      code: 'target_changed',
    })
  })
})

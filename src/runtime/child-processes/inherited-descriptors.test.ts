import { closeSync, openSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { inheritedDescriptors, stdioWithout } from './inherited-descriptors.ts'

// What a contained command would be handed besides its own descriptors. The
// whole path (a runtime a shell started with descriptors left open, and a
// command in a real bubblewrap) is in command-sandbox-kernel.test.ts.

describe('stdioWithout', () => {
  it('puts /dev/null in the place of each inherited descriptor past the base', () => {
    expect(stdioWithout(['ignore', 'pipe', 'pipe', 'pipe'], [2, 3, 6, 8], 40)).toEqual([
      'ignore',
      'pipe',
      'pipe',
      'pipe',
      'ignore',
      'ignore',
      40,
      'ignore',
      40,
    ])
  })

  it('leaves the base as it is when nothing was inherited', () => {
    expect(stdioWithout(['ignore', 'pipe', 'pipe'], [], 40)).toEqual(['ignore', 'pipe', 'pipe'])
  })
})

describe('inheritedDescriptors', () => {
  it('on Linux lists no descriptor this process opened itself (Node opens close-on-exec); elsewhere every one', () => {
    if (process.platform === 'win32') {
      // A child gets only the handles it is given there.
      expect(inheritedDescriptors(3)).toEqual([])
      return
    }
    const fd = openSync(import.meta.filename, 'r')
    try {
      const found = inheritedDescriptors(3)
      if (process.platform === 'linux') expect(found).not.toContain(fd)
      else expect(found).toContain(fd)
      for (const each of found) expect(each).toBeGreaterThanOrEqual(3)
      expect([...found].sort((a, b) => a - b)).toEqual(found)
    } finally {
      closeSync(fd)
    }
  })
})

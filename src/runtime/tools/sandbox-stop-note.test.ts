import { describe, expect, it } from 'vitest'
import type { CommandContainment } from '../../contracts/command-containment.ts'
import { sandboxStopNote } from './sandbox-stop-note.ts'

// Which failures of a contained command end with the note that it ran in
// Assent's sandbox. The real sandbox's refusals (command-sandbox.test.ts,
// command-sandbox-kernel.test.ts) end with it; these are the words of
// programs the tests do not run.

const CONTAINED: CommandContainment = {
  contained: true,
  writableRoots: ['/w'],
  network: false,
  secretsHidden: true,
}

describe('the note a contained command that failed ends with', () => {
  it.each([
    ['a write to a read-only place', 'touch: cannot touch /etc/x: Read-only file system'],
    ['a nested sandbox', 'bwrap: Creating new namespace failed: Operation not permitted'],
    [
      "Chromium, which cannot make its own sandbox's namespaces",
      'FATAL:zygote_host_impl_linux.cc(127)] No usable sandbox! If you are running on Ubuntu 23.10+',
    ],
  ])('is there for %s', (_what, output) => {
    const note = sandboxStopNote(CONTAINED, [], false, output)
    expect(note).toContain("ran in Assent's sandbox")
    expect(note).toContain('nor make namespaces of its own')
  })

  it('is not there for a failure in other words, a success, or a command run uncontained', () => {
    expect(sandboxStopNote(CONTAINED, [], false, 'error TS2345: Argument of type')).toBeNull()
    expect(sandboxStopNote(CONTAINED, [], true, 'Operation not permitted')).toBeNull()
    const uncontained: CommandContainment = { contained: false, why: 'full-access' }
    expect(sandboxStopNote(uncontained, [], false, 'Operation not permitted')).toBeNull()
  })
})

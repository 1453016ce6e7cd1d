import { describe, expect, it } from 'vitest'
import { relativizeIncremental, relativizeText } from './mutation-incremental.ts'

describe("Stryker's incremental file, as committed", () => {
  it('keeps no folder of the machine Stryker ran on', () => {
    const written = {
      projectRoot: '/srv/checkout',
      files: {
        'src/a.ts': {
          mutants: [
            {
              statusReason:
                "expected '/tmp/assent-reach-QRjzh2/ws/notes.txt' to be null at /srv/checkout/src/a.ts:3",
            },
            { statusReason: "expected '/tmp/assent-last-instant-8n…' to be null" },
          ],
        },
      },
      testFiles: { 'src/a.test.ts': { tests: [{ id: '0', name: 'refuses a path' }] } },
    }
    const kept = JSON.stringify(relativizeIncremental(written, '/tmp'))
    expect(kept).not.toContain('/srv/checkout')
    expect(kept).not.toContain('/tmp/')
    expect(kept).not.toContain('QRjzh2')
    expect(kept).toContain("expected '<tmp>/assent-reach/ws/notes.txt' to be null at src/a.ts:3")
    expect(kept).toContain("'<tmp>/assent-last-instant-8n…'")
    expect(kept).toContain('"name":"refuses a path"')
  })

  it('leaves a path that is not under the checkout or the temp folder alone', () => {
    expect(relativizeText('/home/ada/project/a.txt', '/srv/checkout', '/tmp')).toBe(
      '/home/ada/project/a.txt',
    )
  })
})

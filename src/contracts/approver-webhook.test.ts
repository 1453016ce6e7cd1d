import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { approverWebhookUrlProblem } from './approver-webhook.ts'

describe('which URLs may be an approver webhook', () => {
  it('takes plain http only to the literal loopback addresses, whatever else names an address', () => {
    let accepted = 0
    fc.assert(
      fc.property(
        fc.oneof(
          fc.ipV4(),
          fc.ipV4Extended(),
          fc.domain(),
          fc.constant('localhost'),
          fc.constant('127.0.0.1'),
        ),
        fc.integer({ min: 1, max: 65_535 }),
        (host, port) => {
          const url = `http://${host}:${port}/decide`
          const ok = approverWebhookUrlProblem(url) === null
          if (ok) accepted += 1
          expect(ok).toBe(host === '127.0.0.1')
        },
      ),
      { numRuns: 500 },
    )
    expect(approverWebhookUrlProblem('http://[::1]:8080/decide')).toBeNull()
    expect(approverWebhookUrlProblem('http://[::ffff:127.0.0.1]:8080/decide')).not.toBeNull()
    expect(accepted).toBeGreaterThan(20)
  })

  it('takes only a URL written exactly as the parser writes it back', () => {
    let accepted = 0
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        const ok = approverWebhookUrlProblem(url) === null
        if (!ok) return
        accepted += 1
        const parsed = new URL(url)
        expect(parsed.href).toBe(url)
        expect(
          parsed.protocol === 'https:' || ['127.0.0.1', '[::1]'].includes(parsed.hostname),
        ).toBe(true)
        expect(parsed.hash).toBe('')
        expect(parsed.username + parsed.password).toBe('')
      }),
      { numRuns: 500 },
    )
    expect(accepted).toBeGreaterThan(20)
  })

  it('names what to write instead of a URL the parser would rewrite', () => {
    expect(approverWebhookUrlProblem('https://Approver.example/x')).toBe(
      'write it as https://approver.example/x',
    )
    expect(approverWebhookUrlProblem('http://127.1/x')).toBe('write it as http://127.0.0.1/x')
  })
})

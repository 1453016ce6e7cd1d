import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { RUNTIME_ERROR_CODES } from '../../contracts/error-codes.ts'
import { HTTP_STATUS_OF, httpStatusOf } from './error-status.ts'

const RUNTIME_DIR = fileURLToPath(new URL('..', import.meta.url))

/** The statuses the API answered with before codes had a table of their
 *  own, as its documentation and its callers know them. */
const DOCUMENTED: ReadonlyArray<readonly [string, number]> = [
  ['consent_required', 403],
  ['unknown_room', 404],
  ['private_conversation_required', 409],
  ['stale_revision', 409],
  ['client_request_conflict', 409],
  ['read_only_agent', 409],
  ['agent_directory_limits', 409],
  ['always_allow_unavailable', 409],
  ['invalid_body', 400],
  ['body_too_large', 400],
  ['unknown_approval', 404],
  ['approval_decided', 409],
  ['approval_expired', 410],
  ['execution_unknown', 409],
  ['not_pending', 409],
  ['blocking', 409],
  ['protected_form', 403],
  ['invalid_content', 400],
  ['wrong_host', 421],
  ['unauthorized', 401],
  ['gateway_forbidden', 403],
  ['not_durable', 503],
  ['internal', 500],
]

function runtimeSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return runtimeSources(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : []
  })
}

describe('the error code → HTTP status table', () => {
  it('gives every error code an error status', () => {
    for (const code of RUNTIME_ERROR_CODES) {
      const status = httpStatusOf(code)
      expect(Number.isInteger(status), code).toBe(true)
      expect(status, code).toBeGreaterThanOrEqual(400)
      expect(status, code).toBeLessThanOrEqual(599)
    }
  })

  it('lists no code the API does not know', () => {
    expect(Object.keys(HTTP_STATUS_OF).sort()).toEqual([...RUNTIME_ERROR_CODES].sort())
    expect(new Set(RUNTIME_ERROR_CODES).size).toBe(RUNTIME_ERROR_CODES.length)
  })

  it('keeps the status of every documented answer', () => {
    for (const [code, status] of DOCUMENTED) {
      expect(HTTP_STATUS_OF[code as keyof typeof HTTP_STATUS_OF], code).toBe(status)
    }
  })

  it('is the only place in the runtime that spells an HTTP error status', () => {
    const spelled = /\bstatus:\s*[45]\d\d\b|\(\s*[45]\d\d\s*,/
    const offenders = runtimeSources(RUNTIME_DIR)
      .map((path) => relative(RUNTIME_DIR, path).split('\\').join('/'))
      .filter((path) => !path.startsWith('server/'))
      .filter((path) => spelled.test(readFileSync(join(RUNTIME_DIR, path), 'utf8')))
    expect(offenders).toEqual([])
    // The pattern finds what it is meant to find.
    expect(spelled.test("throw new Refusal(409, 'stale_revision', 'x')")).toBe(true)
    expect(spelled.test("{ ok: false, status: 410, error: 'x' }")).toBe(true)
  })
})

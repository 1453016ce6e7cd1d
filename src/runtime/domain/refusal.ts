import type { RuntimeErrorCode } from '../../contracts/error-codes.ts'

/**
 * A request refused for a reason the caller should see, and nothing
 * changed. It names what went wrong (`code`) and says it in English for
 * logs (`message`); it carries no transport status: the server maps the
 * code to one (server/error-status.ts).
 */
export class Refusal extends Error {
  readonly code: RuntimeErrorCode

  constructor(code: RuntimeErrorCode, message: string) {
    super(message)
    this.name = 'Refusal'
    this.code = code
  }
}

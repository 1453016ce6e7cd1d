/** A request refused for a reason the caller should see: the HTTP layer
 *  answers with `status` and the message, nothing is changed. */
export class Refusal extends Error {
  readonly status: number
  readonly code: string

  constructor(status: number, code: string, message: string) {
    super(message)
    this.status = status
    this.code = code
  }
}

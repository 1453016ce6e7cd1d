import { RuntimeErrorCodeSchema } from '../../contracts/error-codes.ts'
import {
  workbenchError,
  type WorkbenchError,
  type WorkbenchErrorCode,
} from '../../common/workbench-error.ts'
import { RuntimeAnswerError, RuntimeRequestError } from './runtime-client.ts'

/** Main refused or could not do what the workbench asked: `code` says what,
 *  the message says it in English for logs. */
export class WorkbenchRefusal extends Error {
  readonly code: WorkbenchErrorCode

  constructor(code: WorkbenchErrorCode, message: string) {
    super(message)
    this.name = 'WorkbenchRefusal'
    this.code = code
  }
}

/**
 * Any failure on a workbench call as the workbench receives it. A runtime
 * refusal keeps the runtime's own code; a failure main cannot name is
 * `main_failed`, its message only a detail.
 */
export function workbenchErrorOf(error: unknown): WorkbenchError {
  if (error instanceof WorkbenchRefusal) return workbenchError(error.code, error.message)
  if (error instanceof RuntimeRequestError) {
    const code = RuntimeErrorCodeSchema.safeParse(error.code)
    if (code.success) return workbenchError(code.data, error.message)
    return workbenchError(error.status === 503 ? 'runtime_down' : 'main_failed', error.message)
  }
  if (error instanceof RuntimeAnswerError)
    return workbenchError('runtime_unreadable', error.message)
  return workbenchError('main_failed', error instanceof Error ? error.message : String(error))
}

import { describe, expect, it } from 'vitest'
import {
  MAX_ERROR_DETAIL_CHARS,
  encodeWorkbenchError,
  parseWorkbenchError,
  workbenchError,
} from './workbench-error.ts'

describe('the error shape between main and the workbench', () => {
  it('reads back what main encoded, through the wrapper Electron adds', () => {
    const error = workbenchError('approval_expired', 'approval ap-1 has expired')
    const wrapped = `Error invoking remote method 'assent:workbench:review': Error: ${encodeWorkbenchError(error)}`
    expect(parseWorkbenchError(wrapped)).toEqual(error)
    expect(parseWorkbenchError(encodeWorkbenchError(error))).toEqual(error)
  })

  it('finds nothing in a message without an encoded error, or with a malformed one', () => {
    expect(parseWorkbenchError('refused: review is for the workbench page only')).toBeUndefined()
    expect(parseWorkbenchError('assent-error:{not json')).toBeUndefined()
    expect(parseWorkbenchError('assent-error:{"code":"made_up","detail":""}')).toBeUndefined()
    expect(
      parseWorkbenchError('assent-error:{"code":"runtime_down","detail":"","extra":1}'),
    ).toBeUndefined()
  })

  it('caps the detail it carries', () => {
    const long = workbenchError('main_failed', 'x'.repeat(MAX_ERROR_DETAIL_CHARS + 10))
    expect(long.detail).toHaveLength(MAX_ERROR_DETAIL_CHARS)
    expect(parseWorkbenchError(encodeWorkbenchError(long))).toEqual(long)
  })
})

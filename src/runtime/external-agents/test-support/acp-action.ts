import { acpAction } from '../acp-tool-call-reading.ts'

/** The action an ACP tool call reads as; a refusal fails the test. */
export function actionOf(...args: Parameters<typeof acpAction>) {
  const reading = acpAction(...args)
  if ('refused' in reading) throw new Error(`refused: ${reading.detail}`)
  return reading.action
}

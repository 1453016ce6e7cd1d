import { RuntimeMessageSchema, type RuntimeMessage } from '../../contracts/runtime-message.ts'

/** A message code as the store keeps it: JSON, or NULL when there is none. */
export function messageJson(message: RuntimeMessage | undefined): string | null {
  return message === undefined ? null : JSON.stringify(message)
}

/** A stored message code under `key`, parsed: one that no longer fits the
 *  schema is left out (the English text beside it stays), never a reason
 *  to refuse the row it belongs to. */
export function storedMessage<K extends string>(
  key: K,
  json: unknown,
): { [P in K]?: RuntimeMessage } {
  if (typeof json !== 'string') return {}
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch {
    return {}
  }
  const parsed = RuntimeMessageSchema.safeParse(value)
  return parsed.success ? ({ [key]: parsed.data } as { [P in K]?: RuntimeMessage }) : {}
}

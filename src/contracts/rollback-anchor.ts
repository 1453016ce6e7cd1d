import { z } from 'zod'

/**
 * The rollback counter and its anchor (docs/integrity.md#rollback): the
 * audit log's sealed head holds a counter that every change of a room's
 * permissions or grants, and every clean shutdown, moves forward; main keeps the
 * highest counter it was told of outside the database, in the same
 * SecretStore as the integrity key. A database whose counter is below the
 * anchor is an older copy put back.
 *
 * A counter is a non-negative safe integer: it is stored as decimal text in
 * the SecretStore and as an INTEGER in SQLite, and compared as a number.
 */
export const RollbackCounterSchema = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)

const RequestIdSchema = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER)

/**
 * Runtime → main, over the runtime's IPC channel: store `counter` as the
 * anchor. Sent only for a counter whose change is committed and on disk,
 * so the anchor is never ahead of a database that survived.
 */
export const AnchorAdvanceRequestSchema = z.strictObject({
  type: z.literal('anchor-advance'),
  requestId: RequestIdSchema,
  counter: RollbackCounterSchema,
})
export type AnchorAdvanceRequest = z.infer<typeof AnchorAdvanceRequestSchema>

/** Main → runtime: the anchor now holds `counter` (written and read back). */
export const AnchorAdvancedSchema = z.strictObject({
  type: z.literal('anchor-advanced'),
  requestId: RequestIdSchema,
  counter: RollbackCounterSchema,
})

/** Main → runtime: the anchor could not be advanced (the keychain refused,
 *  or the request would have lowered it); `error` is for the log. */
export const AnchorRefusedSchema = z.strictObject({
  type: z.literal('anchor-refused'),
  requestId: RequestIdSchema,
  error: z.string().max(2_000),
})

export const AnchorAdvanceAnswerSchema = z.discriminatedUnion('type', [
  AnchorAdvancedSchema,
  AnchorRefusedSchema,
])
export type AnchorAdvanceAnswer = z.infer<typeof AnchorAdvanceAnswerSchema>

import type { InputRequestRecord, InputResponse } from '../../contracts/input-request.ts'
import type { ResponseSource } from '../domain/input-request.ts'

/**
 * Questions and forms. The service redacts secret answers and sensitive
 * content before anything reaches the store.
 *
 * Invariants the adapter keeps: each write and its audit event are one
 * transaction; an outcome is written only over a pending request, so two
 * answers can never both land; no audit event ever carries an answer.
 */
export interface InputRequestStore {
  get(id: string): InputRequestRecord | undefined
  /** The room's requests, oldest first. */
  listByRoom(roomId: string): InputRequestRecord[]
  /** Writes a new pending request with its `input_requested` event. */
  open(request: InputRequestRecord): void
  /** Writes the (redacted) outcome with its `input_resolved` event at `at`,
   *  which names who closed it (`by`); throws, writing nothing, when the
   *  request was no longer pending. */
  close(
    record: InputRequestRecord,
    action: InputResponse['action'],
    at: number,
    by: ResponseSource,
  ): void
  /** Moves a pending question's `autoResolveAt` with its
   *  `input_deadline_extended` event; throws, writing nothing, when the
   *  request was no longer pending. */
  extendDeadline(record: InputRequestRecord, at: number): void
  /** Marks every pending request stale, each with its `input_request_stale`
   *  event, and answers what it marked (as it was before). */
  markPendingStale(at: number): InputRequestRecord[]
}

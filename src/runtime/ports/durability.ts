/**
 * The store's durability barrier (its group commit, store/durability.ts).
 *
 * Invariant the adapter keeps: the promise resolves only once every write
 * committed before the call is on disk, and rejects (from then on, for
 * ever) once the store can no longer make writes durable. Its users keep
 * the other half: nothing is answered, announced or run because of a write
 * before this has resolved for it.
 */
export type WhenDurable = () => Promise<void>

import type { RuntimeEventType } from '../../contracts/events.ts'

export interface RuntimeEvent {
  id: number
  type: RuntimeEventType
  data: Record<string, unknown>
}

export const EVENT_BUFFER_SIZE = 1_000

/**
 * In-memory event stream with monotonically increasing ids, kept for
 * `Last-Event-ID` resume. Ids restart with each runtime instance; a client
 * that resumes from an id the buffer no longer holds, or from one this
 * instance never sent, is told to reload.
 */
export class EventBus {
  private nextId = 1
  private readonly buffer: RuntimeEvent[] = []
  private readonly listeners = new Set<(event: RuntimeEvent) => void>()

  emit(type: RuntimeEventType, data: Record<string, unknown>): RuntimeEvent {
    const event: RuntimeEvent = { id: this.nextId++, type, data }
    this.buffer.push(event)
    if (this.buffer.length > EVENT_BUFFER_SIZE) this.buffer.shift()
    for (const listener of this.listeners) listener(event)
    return event
  }

  /**
   * Events after `lastId`, or `undefined` when the client must reload: some of
   * them were dropped, or `lastId` is newer than anything this instance sent.
   * Ids restart at 1 with each instance, so such an id came from an earlier
   * one; answering "nothing new" would let the client silently miss every
   * event of this instance up to that number.
   */
  since(lastId: number): RuntimeEvent[] | undefined {
    if (lastId > this.lastId) return undefined
    const oldest = this.buffer[0]
    if (oldest && lastId < oldest.id - 1) return undefined
    if (!oldest && lastId < this.nextId - 1) return undefined
    return this.buffer.filter((event) => event.id > lastId)
  }

  get lastId(): number {
    return this.nextId - 1
  }

  subscribe(listener: (event: RuntimeEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }
}

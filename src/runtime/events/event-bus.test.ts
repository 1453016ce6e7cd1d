import { describe, expect, it } from 'vitest'
import { EVENT_BUFFER_SIZE, EventBus } from './event-bus.ts'

function busWith(count: number): EventBus {
  const bus = new EventBus()
  for (let index = 0; index < count; index += 1) {
    bus.emit('room.updated', { index })
  }
  return bus
}

describe('EventBus resume', () => {
  it('replays exactly the events after the last id the client saw', () => {
    const bus = busWith(5)
    expect(bus.since(2)?.map((event) => event.id)).toEqual([3, 4, 5])
    expect(bus.since(0)?.map((event) => event.id)).toEqual([1, 2, 3, 4, 5])
  })

  it('answers "nothing new" to a client that saw the newest event', () => {
    expect(busWith(5).since(5)).toEqual([])
    expect(new EventBus().since(0)).toEqual([])
  })

  it('tells a client to reload when its id is newer than anything this instance sent (an earlier instance’s id)', () => {
    expect(busWith(5).since(6)).toBeUndefined()
    expect(busWith(5).since(999_999)).toBeUndefined()
    expect(new EventBus().since(1)).toBeUndefined()
  })

  it('tells a client to reload when events it missed were dropped from the buffer', () => {
    const bus = busWith(EVENT_BUFFER_SIZE + 10)
    expect(bus.since(5)).toBeUndefined()
    // The oldest event still held is id 11: a client that saw id 10 misses nothing.
    expect(bus.since(10)).toHaveLength(EVENT_BUFFER_SIZE)
  })
})

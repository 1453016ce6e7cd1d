import { eventually, type RuntimeHarness } from './runtime-harness.ts'

export interface StreamedEvent {
  id: number | undefined
  type: string
  data: unknown
}

export interface EventStream {
  /** Every event received so far, in order. */
  readonly events: StreamedEvent[]
  /** Waits for the first event `match` accepts and returns it. */
  waitFor(match: (event: StreamedEvent) => boolean, what: string): Promise<StreamedEvent>
  close(): void
}

/**
 * Subscribes to the runtime's `/v1/events` over a real socket, as main does,
 * and collects events in the background. Resolves once the runtime says the
 * stream is connected, so every event emitted after that is seen; with
 * `fromStart`, also every event this runtime instance emitted before (what
 * it found at start), as main asks for a new instance's.
 */
export async function openEventStream(
  harness: RuntimeHarness,
  options: { fromStart?: boolean } = {},
): Promise<EventStream> {
  const { port, bearerToken } = harness.connection()
  const controller = new AbortController()
  const response = await fetch(`http://127.0.0.1:${port}/v1/events`, {
    headers: {
      authorization: `Bearer ${bearerToken}`,
      ...(options.fromStart ? { 'last-event-id': '0' } : {}),
    },
    signal: controller.signal,
  })
  if (response.status !== 200 || !response.body) {
    throw new Error(`GET /v1/events answered ${response.status}`)
  }
  const events: StreamedEvent[] = []
  let connected = false
  let pending = ''
  const decoder = new TextDecoder()
  const reader = response.body.getReader()
  void (async () => {
    try {
      for (;;) {
        const chunk = await reader.read()
        if (chunk.done) return
        pending += decoder.decode(chunk.value, { stream: true })
        let end = pending.indexOf('\n\n')
        while (end >= 0) {
          const block = pending.slice(0, end)
          pending = pending.slice(end + 2)
          if (block === ': connected') connected = true
          const event = parseBlock(block)
          if (event) events.push(event)
          end = pending.indexOf('\n\n')
        }
      }
    } catch {
      // Aborted by close().
    }
  })()
  await eventually(() => (connected ? true : undefined), 'the event stream to connect')
  return {
    events,
    waitFor: (match, what) => eventually(() => events.find(match), what),
    close: () => controller.abort(),
  }
}

function parseBlock(block: string): StreamedEvent | undefined {
  let id: number | undefined
  let type: string | undefined
  const data: string[] = []
  for (const line of block.split('\n')) {
    if (line.startsWith('id: ')) id = Number(line.slice(4))
    else if (line.startsWith('event: ')) type = line.slice(7)
    else if (line.startsWith('data: ')) data.push(line.slice(6))
  }
  if (type === undefined) return undefined
  return { id, type, data: JSON.parse(data.join('\n')) as unknown }
}

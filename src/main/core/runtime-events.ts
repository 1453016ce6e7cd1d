import type { RuntimeConnection } from './runtime-supervisor.ts'

export interface RuntimeStreamEvent {
  id: number | undefined
  type: string
  data: unknown
}

export const EVENTS_RETRY_MS = 500

/**
 * Main's subscription to the runtime's Server-Sent Events. Reconnects with
 * `Last-Event-ID` after a dropped connection; a `reset` (events lost) is
 * passed on so the workbench reloads instead of missing a decision.
 */
export class RuntimeEventStream {
  private readonly connection: () => RuntimeConnection | undefined
  private readonly onEvent: (event: RuntimeStreamEvent) => void
  private controller: AbortController | undefined
  private lastId: number | undefined
  private instanceId: string | undefined
  private stopped = true

  constructor(
    connection: () => RuntimeConnection | undefined,
    onEvent: (event: RuntimeStreamEvent) => void,
  ) {
    this.connection = connection
    this.onEvent = onEvent
  }

  start(): void {
    this.stopped = false
    void this.loop()
  }

  stop(): void {
    this.stopped = true
    this.controller?.abort()
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const connection = this.connection()
      if (connection) {
        if (connection.instanceId !== this.instanceId) {
          // Event ids restart with each runtime instance. Start from 0, not
          // from "now": what a new instance reported before main connected
          // (an integrity error found at start) is news too.
          this.instanceId = connection.instanceId
          this.lastId = 0
        }
        try {
          await this.read(connection)
        } catch {
          // Dropped or refused: retry below; the runtime may be restarting.
        }
      }
      if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, EVENTS_RETRY_MS))
    }
  }

  private async read(connection: RuntimeConnection): Promise<void> {
    this.controller = new AbortController()
    const response = await fetch(`http://127.0.0.1:${connection.port}/v1/events`, {
      headers: {
        authorization: `Bearer ${connection.bearerToken}`,
        ...(this.lastId === undefined ? {} : { 'last-event-id': String(this.lastId) }),
      },
      signal: this.controller.signal,
    })
    if (!response.ok || !response.body) throw new Error(`events: ${response.status}`)
    const decoder = new TextDecoder()
    let buffer = ''
    const reader = response.body.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      buffer += decoder.decode(value, { stream: true })
      let boundary = buffer.indexOf('\n\n')
      while (boundary >= 0) {
        this.dispatch(buffer.slice(0, boundary))
        buffer = buffer.slice(boundary + 2)
        boundary = buffer.indexOf('\n\n')
      }
    }
  }

  private dispatch(block: string): void {
    let id: number | undefined
    let type = 'message'
    const data: string[] = []
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue
      const colon = line.indexOf(':')
      const field = colon < 0 ? line : line.slice(0, colon)
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
      if (field === 'id') id = Number(value)
      else if (field === 'event') type = value
      else if (field === 'data') data.push(value)
    }
    if (data.length === 0) return
    if (id !== undefined && Number.isSafeInteger(id)) this.lastId = id
    let parsed: unknown
    try {
      parsed = JSON.parse(data.join('\n'))
    } catch {
      return
    }
    this.onEvent({ id, type, data: parsed })
  }
}

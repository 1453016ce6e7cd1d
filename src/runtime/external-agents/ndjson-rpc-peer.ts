import { z } from 'zod'
import { RpcError, RPC_INTERNAL_ERROR } from '../domain/json-rpc-error.ts'

/** The longest line an agent may send: far above any real message (a large
 *  diff is a few megabytes), small enough that a runaway agent cannot make
 *  the runtime buffer without end. A longer line ends the connection. */
export const MAX_AGENT_LINE_BYTES = 16 * 1024 * 1024

export type RpcId = string | number

const RpcIdSchema = z.union([z.string().min(1).max(256), z.number().int()])

/** The envelope of every message an agent sends. Agents add fields of their
 *  own, so unknown keys are tolerated here; `params` and `result` stay
 *  unknown until the adapter parses what it uses with its own schema. */
const RpcEnvelopeSchema = z.looseObject({
  id: RpcIdSchema.nullable().optional(),
  method: z.string().min(1).max(256).optional(),
  params: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.looseObject({ code: z.number().int(), message: z.string().max(64 * 1024) }).optional(),
})

export interface RpcPeerHandlers {
  /** Answers a request from the agent: the value is sent as the result; an
   *  `RpcError` (or any other throw, as an internal error) as the error. */
  onRequest(method: string, params: unknown, id: RpcId): Promise<unknown>
  onNotification(method: string, params: unknown): void
  /** Something the agent sent that is not a message this peer can use: a
   *  line that is not JSON, or a response to nothing it asked. Reported,
   *  never acted on. */
  onProtocolError(message: string): void
  /** The connection ended: the agent closed its output, or broke the line
   *  limit. Every pending request has been rejected with `reason`. */
  onClosed(reason: Error): void
}

interface PendingRequest {
  method: string
  resolve(result: unknown): void
  reject(error: Error): void
}

/**
 * JSON-RPC over newline-delimited JSON on an agent's stdio. `jsonrpc: '2.0'`
 * writes the version field (ACP); `null` leaves it out (Codex's app-server,
 * which speaks JSON-RPC without it). Reading accepts either.
 */
export class NdjsonRpcPeer {
  private readonly pending = new Map<RpcId, PendingRequest>()
  private nextId = 1
  private buffered: Buffer[] = []
  private bufferedBytes = 0
  private closed: Error | null = null
  private readonly output: NodeJS.WritableStream
  private readonly jsonrpc: '2.0' | null
  private readonly handlers: RpcPeerHandlers

  constructor(
    input: NodeJS.ReadableStream,
    output: NodeJS.WritableStream,
    jsonrpc: '2.0' | null,
    handlers: RpcPeerHandlers,
  ) {
    this.output = output
    this.jsonrpc = jsonrpc
    this.handlers = handlers
    input.on('data', (chunk: Buffer | string) => this.receive(Buffer.from(chunk)))
    input.on('end', () => this.close(new Error('the agent closed its output')))
    input.on('error', (error: Error) => this.close(error))
  }

  /** Sends a request and parses its result with `schema`: a result that does
   *  not fit rejects, naming the field, so nothing downstream sees it. */
  request<T>(method: string, params: unknown, schema: z.ZodType<T>): Promise<T> {
    if (this.closed) return Promise.reject(this.closed)
    const id = this.nextId++
    return new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, { method, resolve, reject })
      this.write({ id, method, params })
    }).then((result) => {
      const parsed = schema.safeParse(result)
      if (parsed.success) return parsed.data
      const issue = parsed.error.issues[0]
      const field = issue?.path.length ? issue.path.join('.') : '(result)'
      throw new Error(`${method}: the agent's answer is not usable: ${field}: ${issue?.message}`)
    })
  }

  notify(method: string, params?: unknown): void {
    if (this.closed) return
    this.write(params === undefined ? { method } : { method, params })
  }

  /** Rejects every pending request and ignores whatever arrives later. */
  close(reason: Error): void {
    if (this.closed) return
    this.closed = reason
    for (const request of this.pending.values()) request.reject(reason)
    this.pending.clear()
    this.buffered = []
    this.handlers.onClosed(reason)
  }

  private write(message: Record<string, unknown>): void {
    const framed = this.jsonrpc === null ? message : { jsonrpc: this.jsonrpc, ...message }
    this.output.write(`${JSON.stringify(framed)}\n`)
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return
    let start = 0
    let newline = chunk.indexOf(0x0a, start)
    while (newline >= 0) {
      this.buffered.push(chunk.subarray(start, newline))
      const line = Buffer.concat(this.buffered).toString('utf8')
      this.buffered = []
      this.bufferedBytes = 0
      if (line.trim() !== '') this.dispatch(line)
      if (this.closed) return
      start = newline + 1
      newline = chunk.indexOf(0x0a, start)
    }
    const rest = chunk.subarray(start)
    this.bufferedBytes += rest.length
    if (this.bufferedBytes > MAX_AGENT_LINE_BYTES) {
      this.close(new Error(`the agent sent a line longer than ${MAX_AGENT_LINE_BYTES} bytes`))
      return
    }
    if (rest.length > 0) this.buffered.push(rest)
  }

  private dispatch(line: string): void {
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      this.handlers.onProtocolError(`not JSON: ${line.slice(0, 200)}`)
      return
    }
    const parsed = RpcEnvelopeSchema.safeParse(value)
    if (!parsed.success) {
      this.handlers.onProtocolError(`not a JSON-RPC message: ${line.slice(0, 200)}`)
      return
    }
    const message = parsed.data
    if (message.method !== undefined && message.id !== undefined && message.id !== null) {
      this.answer(message.method, message.params, message.id)
    } else if (message.method !== undefined) {
      this.handlers.onNotification(message.method, message.params)
    } else if (message.id !== undefined && message.id !== null && this.pending.has(message.id)) {
      const request = this.pending.get(message.id) as PendingRequest
      this.pending.delete(message.id)
      if (message.error) {
        request.reject(new Error(`${request.method}: the agent answered ${message.error.message}`))
      } else {
        request.resolve(message.result)
      }
    } else {
      this.handlers.onProtocolError(`a response to no request: ${line.slice(0, 200)}`)
    }
  }

  private answer(method: string, params: unknown, id: RpcId): void {
    this.handlers.onRequest(method, params, id).then(
      (result) => {
        if (!this.closed) this.write({ id, result })
      },
      (error: unknown) => {
        if (this.closed) return
        const code = error instanceof RpcError ? error.code : RPC_INTERNAL_ERROR
        const text = error instanceof Error ? error.message : 'internal error'
        this.write({ id, error: { code, message: text } })
      },
    )
  }
}

/**
 * The most bytes of one message from an MCP server over HTTP: the bound the
 * SDK keeps for one line over stdio (`STDIO_DEFAULT_MAX_BUFFER_SIZE`), so a
 * server is held to the same whichever transport mcp.json names.
 */
export const MAX_MCP_MESSAGE_BYTES = 10 * 1024 * 1024

/**
 * `fetch` for the SDK's streamable-HTTP client, with every response body
 * read within `maxBytes` a message: a JSON answer (or any body but an event
 * stream) in all, an event stream an event at a time. The SDK reads either
 * whole into memory, so a server that sends without end grew the memory of
 * the process that called it (for a room's call, the runtime, which asks
 * the person) until it ran out, and held the call for ever. Past the limit
 * the connection is dropped and the request fails with the reason: a JSON
 * body fails as it is read; an event stream, whose failure the SDK would
 * only report aside (the request then waiting for ever), ends with an
 * error answer to each request the POST carried, and the event over the
 * limit is never passed on in part. A redirect is passed on as it came:
 * the SDK decides what to do with it from its headers.
 */
export function boundedFetch(maxBytes = MAX_MCP_MESSAGE_BYTES, base = fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init)
    if (response.body === null || (response.status >= 300 && response.status < 400)) {
      return response
    }
    const why = `the MCP server sent more than ${maxBytes} bytes in one message; the rest was not read`
    const limit =
      mediaType(response.headers.get('content-type')) === 'text/event-stream'
        ? eventLimit(maxBytes, why, requestIds(init?.body))
        : bodyLimit(maxBytes, why)
    const bounded = new Response(response.body.pipeThrough(limit), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
    // What the SDK reads of the original besides its body.
    Object.defineProperty(bounded, 'url', { value: response.url })
    return bounded
  }
}

function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase()
}

/** The ids of the requests a POST's JSON-RPC body carries (the SDK sends
 *  its messages as a JSON string). */
function requestIds(body: unknown): Array<string | number> {
  if (typeof body !== 'string') return []
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return []
  }
  return (Array.isArray(parsed) ? parsed : [parsed]).flatMap((message: unknown) => {
    if (typeof message !== 'object' || message === null) return []
    const { id, method } = message as { id?: unknown; method?: unknown }
    return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')
      ? [id]
      : []
  })
}

/** Passes a body on while it is within `maxBytes`; past it, fails it, which
 *  cancels the body and closes the connection. */
function bodyLimit(maxBytes: number, why: string): TransformStream<Uint8Array, Uint8Array> {
  let size = 0
  return new TransformStream({
    transform(chunk, controller) {
      size += chunk.byteLength
      if (size > maxBytes) controller.error(new Error(why))
      else controller.enqueue(chunk)
    },
  })
}

const LF = 0x0a
const CR = 0x0d

/**
 * Passes an event stream on an event at a time, each whole (up to and
 * including the blank line that ends it; lines end in LF or CRLF), while
 * it is within `maxBytes`. An event past the limit is dropped unread, an
 * error answer for each of `ids` takes its place, and the stream ends
 * (which cancels the body and closes the connection).
 */
function eventLimit(
  maxBytes: number,
  why: string,
  ids: ReadonlyArray<string | number>,
): TransformStream<Uint8Array, Uint8Array> {
  let held: Uint8Array[] = []
  let size = 0
  let lineEnded = false
  return new TransformStream({
    transform(chunk, controller) {
      let from = 0
      for (let at = 0; at < chunk.length; at += 1) {
        const byte = chunk[at]
        if (byte === CR) continue
        if (byte !== LF) {
          lineEnded = false
          continue
        }
        if (!lineEnded) {
          lineEnded = true
          continue
        }
        // A blank line: the event ends here.
        for (const part of held) controller.enqueue(part)
        controller.enqueue(chunk.subarray(from, at + 1))
        held = []
        size = 0
        lineEnded = false
        from = at + 1
      }
      const rest = chunk.subarray(from)
      size += rest.byteLength
      if (size > maxBytes) {
        held = []
        const answers = ids.map(
          (id) =>
            `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: MCP_SERVER_ERROR, message: why } })}\n\n`,
        )
        if (answers.length > 0) controller.enqueue(new TextEncoder().encode(answers.join('')))
        controller.terminate()
        return
      }
      if (rest.byteLength > 0) held.push(rest)
    },
    flush(controller) {
      // An event the stream ended in: passed on, for the parser to treat
      // as it treats any stream's unfinished end.
      for (const part of held) controller.enqueue(part)
    },
  })
}

/** JSON-RPC's code for an error the server side caused. */
const MCP_SERVER_ERROR = -32000

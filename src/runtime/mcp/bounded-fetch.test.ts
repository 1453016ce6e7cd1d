import { describe, expect, it } from 'vitest'
import { boundedFetch } from './bounded-fetch.ts'

/** A fetch that answers with `chunks` as the body, of `type`. */
function serving(type: string, chunks: string[]): typeof fetch {
  return () =>
    Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk))
            controller.close()
          },
        }),
        { status: 200, headers: { 'content-type': type } },
      ),
    )
}

const POST = {
  method: 'POST',
  body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
}
const LIMIT = 64

describe('boundedFetch', () => {
  it('passes an event stream on unchanged while each event is within the limit, however it is cut', async () => {
    const stream = `: c\r\n\r\nevent: message\ndata: ${'a'.repeat(40)}\n\ndata: b\r\n\r\ndata: tail`
    // Every cut of the stream into two chunks.
    for (let cut = 0; cut <= stream.length; cut += 1) {
      const read = boundedFetch(
        LIMIT,
        serving('text/event-stream', [stream.slice(0, cut), stream.slice(cut)]),
      )
      expect(await (await read('http://127.0.0.1/', POST)).text()).toBe(stream)
    }
  })

  it('drops an event over the limit unread, and answers each request the POST carried with the reason', async () => {
    const before = 'data: first\n\n'
    const read = boundedFetch(
      LIMIT,
      serving('text/event-stream', [
        before,
        'data: ',
        'x'.repeat(LIMIT),
        'never\n\n',
        'data: after\n\n',
      ]),
    )
    const text = await (await read('http://127.0.0.1/', POST)).text()
    expect(text.startsWith(before)).toBe(true)
    expect(text).not.toContain('x')
    expect(text).not.toContain('after')
    const answer = JSON.parse(text.slice(before.length).replace(/^event: message\ndata: /, '')) as {
      id: number
      error: { message: string }
    }
    expect(answer.id).toBe(7)
    expect(answer.error.message).toBe(
      `the MCP server sent more than ${LIMIT} bytes in one message; the rest was not read`,
    )
  })

  it('fails a JSON body over the limit with the reason, and passes one within it', async () => {
    const within = '{"a":"' + 'b'.repeat(LIMIT - 8) + '"}'
    const ok = boundedFetch(LIMIT, serving('application/json', [within]))
    expect(await (await ok('http://127.0.0.1/', POST)).text()).toBe(within)
    const over = boundedFetch(LIMIT, serving('application/json', [within, 'x']))
    await expect((await over('http://127.0.0.1/', POST)).text()).rejects.toThrow(
      `more than ${LIMIT} bytes in one message`,
    )
  })
})

import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * What the scripted model servers share (scripted-model-server.ts speaks
 * OpenAI's Responses API, scripted-messages-server.ts Anthropic's Messages
 * API): an HTTP server on 127.0.0.1 that reads each request's JSON body,
 * records it, and lets a test wait until enough requests have arrived.
 */

const MAX_REQUEST_BYTES = 16 * 1024 * 1024

export interface RecordedRequestBase {
  path: string
  headers: Record<string, string | string[] | undefined>
  /** The parsed JSON body, or null when it was not JSON. */
  body: unknown
}

export interface ScriptedHttpServer<R extends RecordedRequestBase> {
  readonly origin: string
  readonly requests: readonly R[]
  /** Resolves once `count` requests have been recorded (immediately if they
   *  have), or rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs: number): Promise<void>
  close(): Promise<void>
}

/**
 * Starts the server. `answer` writes the response to one request and
 * returns its record, or null for a request that is not part of the script
 * (it is then not recorded).
 */
export async function startScriptedHttpServer<R extends RecordedRequestBase>(
  answer: (
    request: IncomingMessage,
    response: ServerResponse,
    recorded: RecordedRequestBase,
  ) => R | null,
): Promise<ScriptedHttpServer<R>> {
  const requests: R[] = []
  const waiters = new Set<() => void>()
  const server = createServer((request, response) => {
    void readBody(request).then(
      (text) => {
        const recorded = answer(request, response, {
          path: request.url ?? '',
          headers: request.headers,
          body: parseJson(text),
        })
        if (recorded === null) return
        requests.push(recorded)
        for (const wake of [...waiters]) wake()
      },
      () => response.writeHead(413).end(),
    )
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    waitForRequests(count, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          if (requests.length < count) return
          clearTimeout(timer)
          waiters.delete(check)
          resolve()
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(
            new Error(`the model got ${requests.length} of ${count} requests in ${timeoutMs} ms`),
          )
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    // Recorded as null: a test that reads it will say what it expected.
    return null
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_REQUEST_BYTES) {
        request.destroy()
        reject(new Error('request too large'))
        return
      }
      chunks.push(chunk)
    })
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    request.on('error', reject)
  })
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** One server-sent event. */
export function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`
}

export const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }

import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http'

export interface LoopbackRequest {
  method: string
  path: string
  headers: Record<string, string>
  body?: string
  /** Gives up on the request (it rejects with the signal's reason). */
  signal?: AbortSignal
}

export interface LoopbackAnswer {
  status: number
  /** As Node parsed them: names in lower case. */
  headers: IncomingHttpHeaders
  text: string
}

/**
 * HTTP to the runtime on 127.0.0.1, as main and the MCP gateway speak it:
 * kept-alive connections, each answer read whole. node:http, not fetch: on
 * this path fetch cost about four times the CPU per request
 * (docs/benchmarks-history.md).
 */
export class LoopbackClient {
  private readonly agent = new Agent({ keepAlive: true })

  /**
   * One request: its status and its whole body as text. Rejects when the
   * connection fails or the answer is cut off.
   *
   * A kept-alive connection the runtime closed as idle in the instant it
   * was reused resets before the runtime read a byte of the request; that
   * one case is sent again, once, on a connection of its own (the pool may
   * hold another stale one). Sending it again cannot apply a decision
   * twice: the runtime never saw the first, and a consent token is
   * single-use, so a second arrival of the same token is refused.
   */
  async request(port: number, request: LoopbackRequest): Promise<LoopbackAnswer> {
    try {
      return await attempt(this.agent, port, request)
    } catch (error) {
      if (!(error instanceof StaleConnectionError)) throw error
      return attempt(false, port, request)
    }
  }

  /** Closes the idle connections, so a process that is done can exit. */
  close(): void {
    this.agent.destroy()
  }
}

/** A reset on a reused keep-alive connection before any answer arrived. */
class StaleConnectionError extends Error {}

function attempt(
  agent: Agent | false,
  port: number,
  request: LoopbackRequest,
): Promise<LoopbackAnswer> {
  return new Promise((resolve, reject) => {
    let answerStarted = false
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: request.method,
        path: request.path,
        headers: request.headers,
        agent,
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      },
      (response) => {
        answerStarted = true
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('error', reject)
        response.on('aborted', () => reject(new Error('the runtime cut its answer off')))
        response.on('end', () => {
          if (!response.complete) {
            reject(new Error('the runtime cut its answer off'))
            return
          }
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          })
        })
      },
    )
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      const stale = outgoing.reusedSocket && error.code === 'ECONNRESET' && !answerStarted
      reject(stale ? new StaleConnectionError(error.message, { cause: error }) : error)
    })
    outgoing.end(request.body)
  })
}

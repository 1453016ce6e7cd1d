import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, resolve, sep } from 'node:path'

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
}

export interface StaticServer {
  /** `http://127.0.0.1:<port>` with no trailing slash. */
  readonly origin: string
  close(): Promise<void>
}

/**
 * Serves the files under `root` on 127.0.0.1 at a random port, for tests
 * only: GET and HEAD, no directory listings, nothing outside `root`.
 */
export async function serveDirectory(root: string): Promise<StaticServer> {
  const base = resolve(root)
  const server: Server = createServer((request, response) => {
    void (async () => {
      const path = decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname)
      const file = resolve(base, `.${path}`)
      const inside = file.startsWith(base + sep)
      const info = inside ? await stat(file).catch(() => undefined) : undefined
      if (!info?.isFile() || (request.method !== 'GET' && request.method !== 'HEAD')) {
        response.writeHead(404).end()
        return
      }
      response.writeHead(200, {
        'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
        'content-length': info.size,
        'cache-control': 'no-store',
      })
      if (request.method === 'HEAD') response.end()
      else createReadStream(file).pipe(response)
    })().catch(() => response.writeHead(500).end())
  })
  await new Promise<void>((ready, fail) => {
    server.once('error', fail)
    server.listen(0, '127.0.0.1', ready)
  })
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((done) => server.close(() => done())),
  }
}

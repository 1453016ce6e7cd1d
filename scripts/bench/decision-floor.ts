// The floor a decision is compared with: what any decision must do, done
// bare, in the same run and right after the round it is compared with.
//
// An allowed write is, at the least, (1) one HTTP exchange between main
// and the runtime of the same size, through main's own client; (2) the
// same rows written under the same durability policy (same-rows-limit.ts);
// (3) the same file write the tool makes, with its fsyncs: a new temporary
// file written and synced, renamed over the name, and the directory
// synced. Each is measured at the same client count, each part's cost per
// decision is the inverse of its rate, and the floor is the rate of doing
// all three: 1 / (1/http + 1/rows + 1/write). The ratio of the runtime to
// that floor is what its own work (the token, its checks, the audit chain,
// the turn around the write) costs on top.

import { randomBytes, randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import { mkdirSync, rmSync } from 'node:fs'
import { open, rename } from 'node:fs/promises'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { RuntimeClient } from '../../src/main/core/runtime-client.ts'
import { mapLimit } from './runtime-fixtures.ts'

export interface BareExchange {
  /** Exchanges per second from `clients` concurrent loops, `count` in all. */
  perSecond(count: number, clients: number): Promise<number>
  close(): Promise<void>
}

/**
 * A bare node:http server on loopback that reads a decision request and
 * answers 200 with `answer` (the runtime's answer to a decision, as it
 * was), and main's own RuntimeClient sending it the decision request with
 * a consent token of `tokenLength` characters: the same client code, the
 * same sizes, nothing behind the socket.
 */
export async function openBareExchange(answer: string, tokenLength: number): Promise<BareExchange> {
  const server: Server = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(answer)),
      })
      response.end(answer)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  const connection = {
    port: address.port,
    instanceId: `inst_${randomUUID()}`,
    bearerToken: randomBytes(32).toString('base64url'),
    consentKey: randomBytes(32),
  }
  const client = new RuntimeClient(() => connection)
  const token = 'x'.repeat(tokenLength)
  const digest = randomBytes(32).toString('hex')
  return {
    async perSecond(count, clients) {
      const start = performance.now()
      await mapLimit(Array.from({ length: count }), clients, async () => {
        const answered = await client.decideApproval(
          `appr_${randomUUID()}`,
          'allow-once',
          token,
          digest,
        )
        if (answered.status !== 200) throw new Error(`the bare server answered ${answered.status}`)
      })
      return count / ((performance.now() - start) / 1_000)
    },
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export interface BareFileWrites {
  /** Writes per second from `clients` concurrent loops, `count` in all. */
  perSecond(count: number, clients: number): Promise<number>
  close(): void
}

/** The write tool's file write, bare (src/runtime/tools/safe-file-ops.ts
 *  `replaceFile`): a new temporary file with the content, fsync, close,
 *  rename over the name, fsync of the directory. In `folder`, which should
 *  be on the disk the runtime's workspace is on. */
export function openBareFileWrites(folder: string, content: string): BareFileWrites {
  mkdirSync(folder, { recursive: true })
  let written = 0
  return {
    async perSecond(count, clients) {
      const start = performance.now()
      await mapLimit(Array.from({ length: count }), clients, async () => {
        const name = join(folder, `w${(written += 1)}.txt`)
        const temporary = `${name}.tmp-${randomUUID()}`
        const file = await open(temporary, 'wx', 0o644)
        try {
          await file.writeFile(content, 'utf8')
          await file.sync()
        } finally {
          await file.close()
        }
        await rename(temporary, name)
        const directory = await open(folder, 'r')
        try {
          await directory.sync()
        } finally {
          await directory.close()
        }
      })
      return count / ((performance.now() - start) / 1_000)
    },
    close() {
      rmSync(folder, { recursive: true, force: true })
    },
  }
}

/** The rate of doing all of the parts, one after the other, per decision. */
export function combinedRate(rates: readonly number[]): number {
  return 1 / rates.reduce((cost, rate) => cost + 1 / rate, 0)
}

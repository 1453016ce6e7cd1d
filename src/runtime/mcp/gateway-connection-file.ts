import { randomBytes } from 'node:crypto'
import { readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import {
  GATEWAY_CONNECTION_FILE_NAME,
  GatewayConnectionFileSchema,
  type GatewayConnectionFile,
} from '../../contracts/mcp-gateway.ts'
import { writePrivately } from '../config/private-file.ts'

/** A fresh gateway credential: 32 random bytes, made at each runtime start,
 *  so a credential read from an old file dies with its runtime. */
export function newGatewayCredential(): string {
  return randomBytes(32).toString('base64url')
}

/**
 * Writes the connection file (mode 0600, through a temporary file) that
 * lets a gateway on this account find the runtime. It holds the gateway
 * credential only: never the bearer token or the consent key, so whoever can
 * read it can ask the person, and nothing more.
 */
export function writeGatewayConnectionFile(dataDir: string, file: GatewayConnectionFile): string {
  const path = join(dataDir, GATEWAY_CONNECTION_FILE_NAME)
  writePrivately(path, `${JSON.stringify(GatewayConnectionFileSchema.parse(file), null, 2)}\n`)
  return path
}

export function readGatewayConnectionFile(dataDir: string): GatewayConnectionFile {
  const path = join(dataDir, GATEWAY_CONNECTION_FILE_NAME)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    throw new Error(
      `no running Assent runtime found: ${path} does not exist (start the app, npm run dev:cdp or npm run runtime with this data folder)`,
    )
  }
  const parsed = GatewayConnectionFileSchema.safeParse(JSON.parse(text))
  if (!parsed.success) throw new Error(`${path} is not a valid gateway connection file`)
  return parsed.data
}

/**
 * The connection file as a gateway reads it before each request: read and
 * checked again only when the file at its path is another one (the runtime
 * writes it through a new file, so a restarted runtime's has a new inode)
 * or was changed in place; otherwise a stat, not a read and a parse, on
 * every request. A file that is gone is never answered from memory.
 */
export class GatewayConnectionFileReader {
  private readonly dataDir: string
  private last: { key: string; file: GatewayConnectionFile } | undefined

  constructor(dataDir: string) {
    this.dataDir = dataDir
  }

  read(): GatewayConnectionFile {
    const found = statSync(join(this.dataDir, GATEWAY_CONNECTION_FILE_NAME), {
      bigint: true,
      throwIfNoEntry: false,
    })
    const key =
      found === undefined
        ? undefined
        : `${found.dev}:${found.ino}:${found.size}:${found.mtimeNs}:${found.ctimeNs}`
    if (key !== undefined && this.last?.key === key) return this.last.file
    this.last = undefined
    // Read even when the stat found nothing: the read says why, clearly.
    const file = readGatewayConnectionFile(this.dataDir)
    if (key !== undefined) this.last = { key, file }
    return file
  }
}

/** Removes the file if it is still this instance's, so a runtime shutting
 *  down never deletes the file of the one that replaced it. */
export function removeGatewayConnectionFile(dataDir: string, instanceId: string): void {
  try {
    if (readGatewayConnectionFile(dataDir).instanceId !== instanceId) return
    rmSync(join(dataDir, GATEWAY_CONNECTION_FILE_NAME), { force: true })
  } catch {
    // Already gone, or replaced by something we cannot read: leave it.
  }
}

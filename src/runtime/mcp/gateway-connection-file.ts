import { randomBytes } from 'node:crypto'
import { readFileSync, rmSync } from 'node:fs'
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

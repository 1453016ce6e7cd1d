import { randomBytes } from 'node:crypto'
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  rmSync,
  type BigIntStats,
} from 'node:fs'
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
    throw noRuntimeFound(path)
  }
  return parseConnectionFile(text, path)
}

function noRuntimeFound(path: string): Error {
  return new Error(
    `no running Assent runtime found: ${path} does not exist (start the app, npm run dev:cdp or npm run runtime with this data folder)`,
  )
}

function parseConnectionFile(text: string, path: string): GatewayConnectionFile {
  const parsed = GatewayConnectionFileSchema.safeParse(JSON.parse(text))
  if (!parsed.success) throw new Error(`${path} is not a valid gateway connection file`)
  return parsed.data
}

/**
 * Why the connection file at `path`, as `stats` describe it, may not be the
 * runtime's, or null. The runtime writes it for this user alone: a regular
 * file, mode 0600, owned by the user. Anything else someone else may have
 * written, or read: another OS user who can write the data folder (one
 * made by hand, open to a group) could put a file there naming a port and a
 * credential of theirs, and prove "allowed" under it as the runtime would.
 * Where the system has no owners and modes (Windows), there is nothing to
 * judge here.
 */
export function connectionFileProblem(
  stats: BigIntStats,
  owner: number | undefined,
): string | null {
  if (!stats.isFile()) return 'it is not a regular file'
  if (owner === undefined) return null
  if (stats.uid !== BigInt(owner)) return `it belongs to user ${stats.uid}, not to ${owner}`
  const mode = Number(stats.mode & 0o777n)
  if ((mode & 0o077) !== 0) return `others may read or write it (mode ${mode.toString(8)})`
  return null
}

/**
 * The connection file as a gateway reads it before each request: read and
 * checked again only when the file at its path is another one (the runtime
 * writes it through a new file, so a restarted runtime's has a new inode)
 * or was changed in place; otherwise a stat, not a read and a parse, on
 * every request. A file that is gone is never answered from memory. A file
 * that may not be the runtime's (`connectionFileProblem`) is refused: its
 * port and credential are believed from nobody but this user's runtime.
 */
export class GatewayConnectionFileReader {
  private readonly dataDir: string
  /** The user the file must belong to. */
  private readonly owner: number | undefined
  private last: { key: string; file: GatewayConnectionFile } | undefined

  constructor(dataDir: string, owner: number | undefined = process.getuid?.()) {
    this.dataDir = dataDir
    this.owner = owner
  }

  read(): GatewayConnectionFile {
    const path = join(this.dataDir, GATEWAY_CONNECTION_FILE_NAME)
    const found = lstatSync(path, { bigint: true, throwIfNoEntry: false })
    if (found === undefined) {
      this.last = undefined
      throw noRuntimeFound(path)
    }
    // Judged at every read, from the stat made anyway; a file already read
    // is answered from memory only while it is that file: its owner or
    // mode changing changes its ctime, and so its key.
    this.judge(path, found)
    if (this.last?.key === statKey(found)) return this.last.file
    this.last = undefined
    // Judged and read through one descriptor, never followed through a
    // link: the file read is the file judged, even if another is renamed
    // into its place meanwhile.
    let descriptor: number
    try {
      descriptor = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW)
    } catch {
      throw noRuntimeFound(path)
    }
    try {
      const opened = fstatSync(descriptor, { bigint: true })
      this.judge(path, opened)
      const file = parseConnectionFile(readFileSync(descriptor, 'utf8'), path)
      this.last = { key: statKey(opened), file }
      return file
    } finally {
      closeSync(descriptor)
    }
  }

  /** Throws unless the file `stats` describe may be the runtime's. */
  private judge(path: string, stats: BigIntStats): void {
    const problem = connectionFileProblem(stats, this.owner)
    if (problem === null) return
    this.last = undefined
    throw new Error(
      `${path} is not believed, since it may not be the runtime's: ${problem} (the runtime writes it for its user alone, mode 0600)`,
    )
  }
}

function statKey(stats: BigIntStats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`
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

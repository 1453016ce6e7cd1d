import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATABASE_FILE_NAME } from '../src/runtime/store/database.ts'
import { GATEWAY_CONNECTION_FILE_NAME } from '../src/contracts/mcp-gateway.ts'
import { createRoom } from './support/room-helpers.ts'
import { startHarness, type RuntimeHarness } from './support/runtime-harness.ts'

// The data folder holds the store (every conversation, every action asked
// and what each tool call returned) and the gateway's credential. Another OS
// user on the machine must reach none of it, also when the folder was
// there before Assent (an ASSENT_DATA_DIR made by hand with the usual
// umask, a folder an older version left): mkdir sets a mode only on a
// folder it makes, and SQLite makes its files 0644.

/** Who besides the owner could read `file` in `folder`: a class needs to
 *  enter the folder (x) and read the file (r). */
function readersBesidesOwner(folder: string, file: string): string[] {
  const folderMode = statSync(folder).mode
  const fileMode = statSync(join(folder, file)).mode
  const readers: string[] = []
  if (folderMode & 0o010 && fileMode & 0o040) readers.push('group')
  if (folderMode & 0o001 && fileMode & 0o004) readers.push('others')
  return readers
}

const FILES_OF_THE_STORE = [
  DATABASE_FILE_NAME,
  `${DATABASE_FILE_NAME}-wal`,
  `${DATABASE_FILE_NAME}-shm`,
  GATEWAY_CONNECTION_FILE_NAME,
]

describe('a data folder that was already open to others', () => {
  let root: string
  let harness: RuntimeHarness

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'assent-private-'))
    const dataDir = join(root, 'data')
    mkdirSync(dataDir)
    chmodSync(dataDir, 0o755)
    harness = await startHarness({ root })
    await createRoom(harness)
  })

  afterAll(async () => {
    await harness.close()
    rmSync(root, { recursive: true, force: true })
  })

  it.each(FILES_OF_THE_STORE)('keeps %s from every other user', (file) => {
    expect(readdirSync(harness.dataDir)).toContain(file)
    expect(readersBesidesOwner(harness.dataDir, file)).toEqual([])
  })

  it('keeps every other file of the folder, and its listing, from every other user', () => {
    const open = readdirSync(harness.dataDir).filter(
      (file) => readersBesidesOwner(harness.dataDir, file).length > 0,
    )
    expect(open).toEqual([])
    expect(statSync(harness.dataDir).mode & 0o077).toBe(0)
  })
})

import { mkdtemp, realpath, rm } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll } from 'vitest'

/**
 * A real folder for one test file, made before its tests and removed after
 * them; the returned function gives its real path once made. Under
 * /var/tmp, not /tmp: the sandbox gives a command a /tmp of its own, so a
 * fixture there would be hidden from it, and a write outside the workspace
 * must meet the read-only host. Call it before the file's own `beforeAll`,
 * which can then lay its fixture in the folder (hooks run in order, and the
 * removal after the file's own `afterAll`).
 */
export function varTmpFolder(prefix: string): () => string {
  let made: string | undefined
  beforeAll(async () => {
    made = await realpath(await mkdtemp(path.join('/var/tmp', prefix)))
  })
  afterAll(async () => {
    if (made !== undefined) await rm(made, { recursive: true, force: true })
  })
  return () => {
    if (made === undefined) throw new Error(`the ${prefix} folder is made in a beforeAll`)
    return made
  }
}

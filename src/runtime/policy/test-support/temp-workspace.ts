import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach } from 'vitest'
import type { ActionTouch } from '../person-only.ts'

/**
 * A fresh folder for each test, with a workspace `ws` in it (holding the
 * folders `inside` names), removed after it; and the touch of a built-in
 * write there. Read `root` and `workspace` inside a test: they change with
 * each one.
 */
export function tempWorkspace(prefix: string, inside: readonly string[] = []) {
  const place = { root: '', workspace: '' }
  beforeEach(() => {
    place.root = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
    place.workspace = join(place.root, 'ws')
    mkdirSync(place.workspace)
    for (const folder of inside) mkdirSync(join(place.workspace, folder), { recursive: true })
  })
  afterEach(() => {
    rmSync(place.root, { recursive: true, force: true })
  })
  const write = (path: string): ActionTouch => ({
    toolName: 'write_file',
    arguments: { path, content: 'x' },
    workspace: place.workspace,
  })
  return { place, write }
}

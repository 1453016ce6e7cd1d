import { mkdir, mkdtemp, realpath, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

/** The folders the sandbox's tests judge paths in, by their real paths. */
export interface SandboxTree {
  /** The fresh temporary folder holding the others (the caller removes it). */
  base: string
  /** The workspace: `a/file.txt`, and `link-out` pointing at `outside`. */
  ws: string
  /** A folder beside it holding `secret.txt`. */
  outside: string
  /** Another folder beside it: `readme.md`, and its own `link-out`. */
  repo: string
}

export async function makeSandboxTree(): Promise<SandboxTree> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'assent-sandbox-')))
  const ws = path.join(base, 'ws')
  const outside = path.join(base, 'outside')
  const repo = path.join(base, 'repo')
  await mkdir(path.join(ws, 'a'), { recursive: true })
  await mkdir(outside)
  await mkdir(repo)
  await writeFile(path.join(ws, 'a', 'file.txt'), 'in')
  await writeFile(path.join(outside, 'secret.txt'), 'out')
  await writeFile(path.join(repo, 'readme.md'), 'repo')
  await symlink(outside, path.join(ws, 'link-out'))
  await symlink(outside, path.join(repo, 'link-out'))
  return { base, ws, outside, repo }
}

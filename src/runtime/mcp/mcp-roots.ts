import { realpathSync, statSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Root } from '@modelcontextprotocol/sdk/types.js'
import { isInsideRoot } from '../policy/path-containment.ts'

/** A root the agent gave that no server behind the gateway is shown, and
 *  why. */
export interface DroppedRoot {
  uri: string
  why: string
}

export interface RootsInWorkspace {
  roots: Root[]
  dropped: DroppedRoot[]
}

/**
 * The agent's roots (`roots/list`) as the servers behind the gateway may
 * see them: each narrowed to the workspace the gateway serves.
 *
 * A server takes the roots its client lists as the folders it may work
 * in, and in place of the ones the person started it with
 * (server-filesystem replaces its command-line folders with them). Passed
 * on as the agent's client wrote them, a root of `file:///` would let the
 * agent widen a read-only server it reaches unasked from the workspace to
 * the whole disk. And a server takes a relative path from its roots
 * (server-filesystem does): a root of `<workspace>/.git` would make
 * `config` name `.git/config`, while every door judges a relative path
 * from the workspace and the server's own folder (person-only.ts). So a
 * server is shown the workspace itself, never more and never a folder
 * inside it:
 *
 * - a root whose real folder is the workspace, is inside it, or holds it
 *   (the home folder, `/`) becomes the workspace (a symlink in the
 *   workspace that leads out of it is judged by where it leads);
 * - anything else is dropped: another folder, a file, a path that does not
 *   exist (it could be made later as a link that leads out), a URI that is
 *   not a local `file:` one (a plain path, `~`, another host).
 *
 * None left is an empty list, which a server reads as "the client names no
 * folder" and keeps its own. `workspace` must be a real path.
 */
export function rootsInWorkspace(workspace: string, roots: readonly Root[]): RootsInWorkspace {
  const kept = new Map<string, Root>()
  const dropped: DroppedRoot[] = []
  for (const root of roots) {
    const folder = realFolderOf(root.uri)
    if (typeof folder !== 'string') {
      dropped.push({ uri: root.uri, why: folder.why })
      continue
    }
    if (!isInsideRoot(workspace, folder) && !isInsideRoot(folder, workspace)) {
      dropped.push({ uri: root.uri, why: 'outside the workspace' })
      continue
    }
    const uri = pathToFileURL(workspace).href
    if (!kept.has(uri))
      kept.set(uri, { uri, ...(root.name === undefined ? {} : { name: root.name }) })
  }
  return { roots: [...kept.values()], dropped }
}

function realFolderOf(uri: string): string | { why: string } {
  if (!uri.startsWith('file:')) return { why: 'not a file: URI' }
  let named: string
  try {
    // Throws for a host other than localhost and for an encoded separator.
    named = fileURLToPath(uri)
  } catch {
    return { why: 'not a local file: URI' }
  }
  let real: string
  try {
    real = realpathSync.native(named)
  } catch {
    return { why: 'no such folder' }
  }
  try {
    if (!statSync(real).isDirectory()) return { why: 'not a folder' }
  } catch {
    return { why: 'no such folder' }
  }
  return real
}

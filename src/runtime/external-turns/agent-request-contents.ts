import { lstat, stat } from 'node:fs/promises'
import { message, type RuntimeMessage } from '../../contracts/runtime-message.ts'
import { regularFileText } from '../policy/regular-file-text.ts'
import type {
  ExternalActionRequest,
  ExternalFileChange,
} from '../external-agents/external-agent-port.ts'

// What is on disk where an external agent's file change acts, read when
// its request arrives, so the protected window shows what the change
// removes as well as what it adds (agent-request-action.ts).

/** The most characters of file content one request may carry (all its
 *  diffs and texts together): a change too large to show in the protected
 *  window cannot be consented to, so it is refused without asking. */
export const MAX_AGENT_REQUEST_TEXT_CHARS = 2 * 1024 * 1024

/**
 * The current content of each file an ACP agent edits by old and new text,
 * and of each file either agent adds that is already there (it is
 * replaced), read when the request arrives so its preview can carry the
 * file's lines; null for a file that cannot be read as text within the
 * size a request may carry.
 */
export async function currentContentsFor(
  request: ExternalActionRequest,
): Promise<Map<string, string | null>> {
  const contents = new Map<string, string | null>()
  if (request.action.kind !== 'file-changes') return contents
  for (const change of request.action.changes) {
    // A move onto a file that is there replaces it: its lines are shown
    // as removed (`movesOver`), as for an added file that replaces one.
    const target = change.movePath
    if (target !== null && !contents.has(target) && (await exists(target))) {
      contents.set(target, await readTextWithin(target, MAX_AGENT_REQUEST_TEXT_CHARS))
    }
    if (contents.has(change.path)) continue
    // Codex's diff of an edit or a delete carries its own lines; its added
    // file's content (its `diff` too) says nothing of what is there.
    if (change.diff !== null && change.change !== 'add') continue
    // An added file is looked for: one that is there is replaced.
    if (change.oldText === null && !(await exists(change.path))) continue
    contents.set(change.path, await readTextWithin(change.path, MAX_AGENT_REQUEST_TEXT_CHARS))
  }
  return contents
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT'
  }
}

async function readTextWithin(path: string, maxChars: number): Promise<string | null> {
  try {
    if ((await stat(path)).size > maxChars) return null
    // Never a wait on a named pipe swapped in since the stat.
    return regularFileText(path, maxChars * 4)
  } catch {
    return null
  }
}

/**
 * What a move destroys: a file already at a move's target is replaced by
 * the moved one, whichever agent moves it (Codex's `*** Move to:`, an
 * ACP agent's `move_path`), and neither says so. Each such file is shown
 * as deleted, with its current lines, beside the move, so the person sees
 * what goes and the digest binds it. Refused (fails closed) when one of
 * them cannot be read and shown, and when a target is moved onto twice or
 * also changed by the request itself: what that leaves behind depends on
 * the order the agent applies them in, which the window cannot show.
 */
export function movesOver(
  changes: readonly ExternalFileChange[],
  currentContents: ReadonlyMap<string, string | null>,
): { replaced: ExternalFileChange[] } | { refused: RuntimeMessage } {
  const named = new Set(changes.map((change) => change.path))
  const replaced: ExternalFileChange[] = []
  for (const { movePath } of changes) {
    if (movePath === null) continue
    if (named.has(movePath))
      return { refused: message('external.moveOntoChanged', { path: movePath }) }
    named.add(movePath)
    if (!currentContents.has(movePath)) continue
    const current = currentContents.get(movePath)
    if (typeof current !== 'string') return { refused: message('external.tooLarge') }
    replaced.push({
      path: movePath,
      change: 'delete',
      movePath: null,
      diff: null,
      oldText: current,
      newText: null,
    })
  }
  return { replaced }
}

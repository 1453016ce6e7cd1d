import { mkdirSync, renameSync, rmSync, symlinkSync } from 'node:fs'
import type { RuntimeMessageCode } from '../../src/contracts/runtime-message.ts'

/**
 * What can happen to a workspace folder while a person decides: each move
 * with the words the refused call must carry. The folder moved away is kept
 * beside it (`<folder>.old`), so a test can see nothing landed there either.
 * Synchronous, so a test can move the folder between two awaits.
 */
export interface WorkspaceMove {
  name: string
  /** Moves `folder` away and leaves what the move leaves at its path;
   *  `elsewhere` is an existing folder nobody allowed. */
  apply(folder: string, elsewhere: string): void
  /** The `workspace.*` message of the refusal. */
  words: RuntimeMessageCode
}

export const WORKSPACE_MOVES: readonly WorkspaceMove[] = [
  {
    name: 'replaced by a link to another folder',
    apply: (folder, elsewhere) => {
      renameSync(folder, `${folder}.old`)
      symlinkSync(elsewhere, folder)
    },
    words: 'workspace.redirected',
  },
  {
    name: 'replaced by another folder of the same name',
    apply: (folder) => {
      renameSync(folder, `${folder}.old`)
      mkdirSync(folder)
    },
    words: 'workspace.replaced',
  },
  {
    name: 'removed',
    apply: (folder) => renameSync(folder, `${folder}.old`),
    words: 'workspace.missing',
  },
]

/** Puts the folder a move took away back at its path. */
export function undoMove(folder: string): void {
  rmSync(folder, { recursive: true, force: true })
  renameSync(`${folder}.old`, folder)
}

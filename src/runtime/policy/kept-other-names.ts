import type { PersonOnly } from './person-only.ts'
import {
  homeCredentialFiles,
  homeTopPersonOnlyFiles,
  MAX_OTHER_NAME_ENTRIES,
  otherNameIn,
  personOnlyFiles,
} from './person-only-files.ts'
import type { ReadOnlyWalk } from './read-only-walk.ts'

// Files only a person may change or read that have another name (a hard
// link) a contained command could reach them by (person-only.ts asks it).

/** Inside a git folder, what the sandbox's check of other names leaves
 *  out: objects, refs and their logs run nothing and configure nothing,
 *  and a large repository has thousands. */
const NOT_RUN_IN_GIT_FOLDER = new Set(['objects', 'refs', 'logs'])

/**
 * A person-only file with another name (a hard link) that a contained
 * command may write, or null. The sandbox binds read-only the names its
 * walk found, not the files: a command the person allowed, or a grant
 * answered for, that writes another name without naming it (a build
 * writing `docs/notes.txt`) writes the hook, the config or `~/.bashrc`
 * too. Such a link cannot be made inside the sandbox (a link across its
 * mounts fails), so it was made outside it (a dotfiles repository links
 * the person's start-up files into a workspace).
 *
 * The same holds for a key the sandbox hides by its folder's name: its
 * other name in the workspace is readable, and what a command reads it
 * may write where the agent reads next.
 *
 * The files looked at: those the walk keeps read-only in the writable
 * roots, git's places it found elsewhere, the person-only files at the
 * home folder's top, and the files in the person's credential folders
 * (`homeCredentialFiles`). Most have one name, and then nothing else is
 * read; for one with more, the roots are searched for another name
 * outside what is kept. Fails closed: a kept folder or a root that cannot
 * be read, or holds more than can be checked, needs the person too.
 */
export function keptWithOtherNames(
  walked: ReadOnlyWalk,
  roots: readonly string[],
): PersonOnly | null {
  const kept = personOnlyFiles([...walked.paths, ...walked.elsewhere], NOT_RUN_IN_GIT_FOLDER)
  const credentials = homeCredentialFiles()
  if (kept.unlistable !== null) {
    return {
      path: kept.unlistable,
      class: 'unlistable',
      reason:
        'its entries cannot be read, so the sandbox cannot check its files for other names (hard links)',
    }
  }
  const tooMany = kept.tooMany ?? credentials.tooMany
  if (tooMany !== null) {
    return {
      path: tooMany,
      class: 'unwalked',
      reason:
        'it holds more files than the sandbox checks for other names (hard links), so not all of them are kept from the command',
    }
  }
  const linked = [...kept.files, ...homeTopPersonOnlyFiles(), ...credentials.files].filter(
    ({ stats }) => stats.nlink > 1,
  )
  if (linked.length === 0) return null
  const other = otherNameIn(roots, linked, walked.paths)
  if (other === null) return null
  if ('stopped' in other) {
    return {
      path: other.stopped,
      class: 'unwalked',
      reason: `a file only a person may change or read has other names (hard links), and this folder holds more than the sandbox searches for them (${MAX_OTHER_NAME_ENTRIES} entries) or cannot be read`,
    }
  }
  return {
    path: other.file,
    class: 'linked-elsewhere',
    reason: `it has another name (a hard link), ${other.name}, that the sandbox can neither keep read-only nor hide, and a command that writes or reads it reaches this file`,
  }
}

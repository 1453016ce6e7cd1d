import path from 'node:path'
import { realPathAllowingMissing } from './real-paths.ts'

// The two files by which git finds a git folder under another name: a
// `.git` file (`gitdir: …`, a worktree, a submodule, `git init
// --separate-git-dir`) and a worktree's `commondir`. Each is read here
// as git reads it, since the folder git finds is where it reads its
// config and runs its hooks from. A tidier reading named another folder
// than git's, whose config and hooks then counted for nothing: with
// `gitdir: store ` and the git folder at `store ` (a trailing space),
// git ran the hooks its config moved into the workspace, and every door
// and the sandbox let them be written.

/** What a `.git` file starts with for git to take it. */
const GITDIR_PREFIX = 'gitdir: '

/**
 * The folder a `.git` file in `top` names, as git reads it
 * (`read_gitfile_gently`): the file starts with `gitdir: `, only line ends
 * come off its end (a space or a tab there, or a second space after the
 * colon, is part of the name), and the name stops at a NUL. Null when
 * nothing is named at all.
 *
 * A file git does not take (no `gitdir: ` at its very start) makes git
 * stop with "invalid gitfile format", so nothing of it runs; it is read
 * loosely all the same, as before, which can only name a folder more.
 */
export function gitFileFolder(top: string, text: string): string | null {
  const content = withoutLineEnds(text)
  if (content.startsWith(GITDIR_PREFIX) && content.length > GITDIR_PREFIX.length) {
    return takenFrom(top, untilNul(content.slice(GITDIR_PREFIX.length)))
  }
  const loose = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1]
  return loose === undefined ? null : takenFrom(top, untilNul(loose))
}

/**
 * The folder a worktree's git folder `gitFolder` names in its `commondir`
 * file, whose text is `text`, as git reads it (`get_common_dir_noenv`):
 * only line ends come off its end and the name stops at a NUL. Null for
 * an empty one, which names the git folder itself.
 */
export function commonDirFolder(gitFolder: string, text: string): string | null {
  const named = untilNul(withoutLineEnds(text))
  return named === '' ? null : takenFrom(gitFolder, named)
}

/**
 * `named` taken from `folder` as the kernel takes it: a `..` after a link
 * goes up from where the link leads, so the path is not tidied
 * (`path.resolve` would drop `sub/..` and name another folder where `sub`
 * is a link). The real path, links followed, as far as there is one. For
 * every path git reads from a file and opens as it is: these two files'
 * and its configs' (a hooks folder, an included file).
 */
export function takenFrom(folder: string, named: string): string {
  const joined = path.isAbsolute(named) ? named : `${folder}${path.sep}${named}`
  return realPathAllowingMissing(joined) ?? path.resolve(joined)
}

function withoutLineEnds(text: string): string {
  return text.replace(/[\r\n]+$/, '')
}

function untilNul(text: string): string {
  const nul = text.indexOf('\0')
  return nul === -1 ? text : text.slice(0, nul)
}

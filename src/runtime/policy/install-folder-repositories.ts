import { lstatSync, readdirSync } from 'node:fs'
import path from 'node:path'

/** How many packages of one install folder are looked at for a git
 *  folder; past it, the walk counts as unfinished (fails closed). */
export const INSTALL_FOLDER_PACKAGES = 20_000

/**
 * The git folders an install folder (`node_modules`) holds where git and
 * the tools that run it find them: its own (`node_modules/.git`) and each
 * package's (`node_modules/pkg/.git`, `node_modules/@scope/pkg/.git`). The
 * walks do not go into install folders, which are large and rebuilt at
 * will, and an installed package holds no git folder; but one a command
 * made there (`git init node_modules/pkg`, a `core.fsmonitor` in its
 * config) is the repository of git run in that package, by its install
 * script, or by the person's editor when a file of it is opened, outside
 * any sandbox. One listing of the folder and of each scope, and one look
 * per package. Null when it holds more than `INSTALL_FOLDER_PACKAGES`, or
 * cannot be listed.
 * A git folder deeper in a package is not looked for (a limit,
 * docs/security-model.md).
 */
export function gitFoldersInInstallFolder(folder: string): string[] | null {
  const found: string[] = []
  const packages: string[] = []
  const names = namesIn(folder)
  if (names === null) return null
  for (const name of names) {
    if (name.startsWith('@')) {
      const inner = namesIn(path.join(folder, name))
      if (inner === null) return null
      packages.push(...inner.map((each) => path.join(folder, name, each)))
    } else packages.push(path.join(folder, name))
    if (packages.length > INSTALL_FOLDER_PACKAGES) return null
  }
  for (const at of [folder, ...packages]) {
    const git = path.join(at, '.git')
    if (there(git)) found.push(git)
  }
  return found
}

/** The folders (and links) in `folder`; none when it is gone or not a
 *  folder. Null when it cannot be listed (a command can take its listing
 *  away, `chmod 111`, and git still goes in): what it holds is not known,
 *  so the walk counts as unfinished and fails closed. */
function namesIn(folder: string): string[] | null {
  try {
    return readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
      .map((entry) => entry.name)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'ENOENT' || code === 'ENOTDIR' ? [] : null
  }
}

/** Whether anything is at `place` (a link not followed: a link named
 *  `.git` makes a repository of where it leads). One that cannot be
 *  looked at counts as there: git may still find it. */
function there(place: string): boolean {
  try {
    return lstatSync(place, { throwIfNoEntry: false }) !== undefined
  } catch {
    return true
  }
}

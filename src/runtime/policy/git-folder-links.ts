import { readdirSync } from 'node:fs'
import path from 'node:path'
import type { ConfigPlaces } from './git-config-places.ts'
import { GIT_HOOK_NAMES } from './git-hook-names.ts'
import { realPathsOfTheMoment } from './judgment-moment.ts'
import { isInsideRoot } from './path-containment.ts'
import { linkTarget, realPathAllowingMissing, type RealPathsSeen } from './real-paths.ts'

// What git reads and runs through a link out of a repository's git folder:
// `.git/config -> ../tools/gitconfig`, a `.git/hooks` that is a link to
// `scripts/hooks`, a hook `pre-commit -> ../../scripts/pre-commit`. The
// sandbox keeps the git folder read-only by its path, and git follows the
// links to files a command may write; the person's git then reads or runs
// what the command wrote there. These are git's places as much as the
// ones in the git folder, kept wherever they really are.

/** How many entries of a hooks folder are looked at for links; one with
 *  more (a `core.hooksPath` naming a large folder) is looked at by the
 *  names git runs as hooks only (`GIT_HOOK_NAMES`), which is what git
 *  runs from it. */
const MAX_HOOKS_FOLDER_ENTRIES = 1_000

/**
 * The places git reaches through links out of the git folders: the real
 * paths of the repository's own config files (`config`, `config.worktree`,
 * `info/attributes`), of its default hooks folder (`<common>/hooks`), and
 * of what each link in any of its hooks folders (`hooksFolders`, the
 * default one among them) leads to. Only those outside the git folders
 * are given: what is in them is git's already.
 *
 * The default hooks folder is kept even when a config names another
 * (`core.hooksPath`): which config git reads last depends on conditions
 * (`[includeIf]`) this reading does not weigh, so the default one may be
 * the folder git runs.
 */
export function placesLinkedOut(
  gitFolder: string,
  commonFolder: string | null,
  hooksFolders: readonly string[],
  seen: RealPathsSeen = realPathsOfTheMoment(),
): ConfigPlaces {
  const shared = commonFolder ?? gitFolder
  const outside = (real: string | null): real is string =>
    real !== null &&
    !isInsideRoot(gitFolder, real) &&
    (commonFolder === null || !isInsideRoot(commonFolder, real))
  const configFiles = [
    path.join(shared, 'config'),
    path.join(gitFolder, 'config.worktree'),
    path.join(shared, 'info', 'attributes'),
  ]
    // Where a link among them leads, as where anything else is: its real
    // path.
    .map((file) => realPathAllowingMissing(file, seen))
    .filter(outside)
  const defaultHooks = realPathAllowingMissing(path.join(shared, 'hooks'), seen)
  const linkedHooksFolder = outside(defaultHooks) ? [defaultHooks] : []
  const programs: ConfigPlaces['programs'] = []
  const folders = [path.join(shared, 'hooks'), ...linkedHooksFolder, ...hooksFolders]
  for (const folder of new Set(folders)) {
    for (const { link, target } of linkTargetsIn(folder, seen)) {
      if (outside(target) && !isInsideRoot(folder, target)) {
        programs.push({ path: target, setting: link })
      }
    }
  }
  return { hooksFolders: linkedHooksFolder, templateFolders: [], programs, configFiles }
}

/** Each entry of `folder` that is a link, with the real path it leads to
 *  (a missing end as written: a command could make it). A folder that is
 *  not there holds none; one that cannot be listed, or holds more than
 *  `MAX_HOOKS_FOLDER_ENTRIES`, is looked at by the names git runs as
 *  hooks. */
function linkTargetsIn(
  folder: string,
  seen: RealPathsSeen,
): Array<{ link: string; target: string }> {
  let names: readonly string[] = [...GIT_HOOK_NAMES]
  try {
    const listed = readdirSync(folder, { withFileTypes: true })
    // Asked of every action's repository: only the links are looked at
    // again, by `linkTarget`, which checks each is still one.
    if (listed.length <= MAX_HOOKS_FOLDER_ENTRIES) {
      names = listed.filter((entry) => entry.isSymbolicLink()).map((entry) => entry.name)
    }
  } catch (error) {
    // No folder there (or a file in its place): no name in it is a link
    // now, as a look-up of each would find (a clone without hooks, asked
    // of at every judgment). Any other failure (not listable) leaves the
    // names git runs as hooks to look at one by one, since git can still
    // run one of them.
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return []
  }
  const out: Array<{ link: string; target: string }> = []
  for (const name of names) {
    const link = path.join(folder, name)
    const target = linkTarget(link, seen)
    if (target !== null) out.push({ link, target })
  }
  return out
}

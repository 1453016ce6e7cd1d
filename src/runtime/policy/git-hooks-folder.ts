import { existsSync, lstatSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import { filesNamedByProgram, runsProgram } from './git-config-programs.ts'

// What git keeps and runs for a repository, wherever it really is: its git
// folder (which a `.git` file may name under any other name), the folder
// its config moves the hooks to (`core.hooksPath`), and the config files
// that config includes. No grant or automatic allow may write to any of
// them (person-only.ts), and the command sandbox keeps them read-only.

/** How many config files are read for one repository, includes and all;
 *  past it, the ones not read name no hooks folder (and a repository
 *  whose configs include each other in a loop ends here). The seven git
 *  may read before any include (the environment's two, the system's, the
 *  person's two, the repository's two) leave seventeen for includes. */
const MAX_CONFIG_FILES = 24

/** Where git, as distributions build it, keeps the system's config. */
const SYSTEM_GIT_CONFIG = '/etc/gitconfig'

export interface GitPlaces extends ConfigPlaces {
  /** The repository's real git folder: `.git`, or where a `.git` file
   *  points (`git init --separate-git-dir`, a worktree, a submodule). */
  gitFolder: string
  /** For a linked worktree (`git worktree add`), the real folder its git
   *  folder's `commondir` names: the main checkout's git folder, whose
   *  config, hooks, objects and refs every worktree shares; null for a
   *  git folder that names none. */
  commonFolder: string | null
}

/** What the configs git reads make git's, besides its folders. */
export interface ConfigPlaces {
  /** Every real folder a config git reads for the repository names as
   *  `core.hooksPath`. git runs the hooks of the last one it reads; every
   *  one is kept, since which is last depends on conditions
   *  (`[includeIf]`) this reading does not weigh: one left out could be
   *  the folder git runs. */
  hooksFolders: string[]
  /** Every real folder a config names as `init.templateDir`: git copies
   *  it (its hooks among it) into each repository it makes or clones. */
  templateFolders: string[]
  /** Every real file a config git reads names in a setting whose value
   *  git runs (`core.fsmonitor = tools/fsmonitor.sh`, a filter, an alias
   *  starting with `!`), relative ones taken from the repository's top,
   *  with the setting. */
  programs: Array<{ path: string; setting: string }>
  /** Every config file git reads for the repository besides its own
   *  `config`: the worktree's, and each one included (`[include]`,
   *  `[includeIf]`, whatever the condition), as real paths. */
  configFiles: string[]
}

/**
 * What git keeps and runs for the repository git finds from `workspace`
 * (the nearest `.git` at the workspace or above it: a workspace may be a
 * folder inside a repository), or null when there is none or its `.git`
 * cannot be read. The hooks folders are read from the configs git reads:
 * the system's (`/etc/gitconfig`, or `$GIT_CONFIG_SYSTEM`), the person's
 * own (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`, or
 * `$GIT_CONFIG_GLOBAL`), then
 * the repository's (`config`, in a linked worktree the main checkout's,
 * and `config.worktree`), each with what it includes. A relative value is
 * taken from the repository's top (a worktree's own), where git runs its
 * hooks. A config that cannot be read names nothing: the default hooks
 * folder is inside the git folder, which is covered anyway.
 */
export function gitPlacesOf(workspace: string): GitPlaces | null {
  const repository = repositoryOf(workspace)
  if (repository === null) return null
  return placesOf(repository)
}

/** What git keeps and runs for a bare repository, a git folder known by
 *  its shape (`gitFolderShaped`): git runs its hooks there, so a relative
 *  `core.hooksPath` in its config is taken from the folder itself. */
export function bareGitPlacesOf(folder: string): GitPlaces {
  return placesOf({ top: folder, gitFolder: folder })
}

/** The git places of a repository whose hooks run in `top` and whose git
 *  folder is `gitFolder`. */
function placesOf(repository: { top: string; gitFolder: string }): GitPlaces {
  const gitFolder = realPathAllowingMissing(repository.gitFolder) ?? repository.gitFolder
  // A linked worktree's git folder holds its own HEAD and index; git reads
  // the repository's config (and runs its hooks) from the folder its
  // `commondir` names. A worktree is where agents are commonly run, and
  // the main checkout's `core.hooksPath` applies in it, from its own top.
  const named = commonFolderOf(gitFolder)
  const commonFolder = named === null ? null : (realPathAllowingMissing(named) ?? named)
  const files = [
    ...personalConfigFiles(),
    path.join(commonFolder ?? gitFolder, 'config'),
    path.join(gitFolder, 'config.worktree'),
  ]
  return { gitFolder, commonFolder, ...configPlaces(files, repository.top) }
}

/**
 * What the person's own configs (the system's, theirs, those the
 * environment names) make git's wherever they use git, with no repository
 * at hand: a hooks folder, a template folder, a program or an included
 * file each config names by an absolute path (or from `~/`). A relative
 * one is taken from a repository's top, which `gitPlacesOf` does. A
 * global `core.hooksPath = ~/.githooks` runs in every repository of the
 * person's, so it is git's from any workspace, in a repository or not.
 */
export function personalGitPlaces(): ConfigPlaces {
  return configPlaces(personalConfigFiles(), null)
}

/** The config files git reads for every repository, before the
 *  repository's own: the environment's (git reads the named one instead
 *  of the system's or the person's; both are read here, which can only
 *  keep more), the system's and the person's. */
function personalConfigFiles(): string[] {
  const named = [process.env.GIT_CONFIG_SYSTEM, process.env.GIT_CONFIG_GLOBAL].flatMap((file) =>
    file ? [path.resolve(file)] : [],
  )
  const xdg = process.env.XDG_CONFIG_HOME || path.join(homeFolder(), '.config')
  return [
    ...named,
    SYSTEM_GIT_CONFIG,
    path.join(xdg, 'git', 'config'),
    path.join(homeFolder(), '.gitconfig'),
  ]
}

/** What the settings in `files` (and what they include) make git's: real
 *  paths, relative values taken from `top`, or left out without one. */
function configPlaces(files: readonly string[], top: string | null): ConfigPlaces {
  const configFiles: string[] = []
  const settings: ConfigRead = { hooksPaths: [], includes: [], programs: [], templates: [] }
  let budget = MAX_CONFIG_FILES
  const read = (file: string, included: boolean): void => {
    if (budget <= 0) return
    budget -= 1
    // An included file git reads once it exists (`~/.gitconfig.local`):
    // making it is changing git's settings too.
    if (included) configFiles.push(realPathAllowingMissing(file) ?? file)
    // Most of these files do not exist: a stat that says so without
    // throwing costs a fraction of a read that fails.
    if (!existsSync(file)) return
    let config: string
    try {
      config = readFileSync(file, 'utf8')
    } catch {
      return
    }
    const found = readConfig(config)
    settings.hooksPaths.push(...found.hooksPaths)
    settings.programs.push(...found.programs)
    settings.templates.push(...found.templates)
    for (const include of found.includes) {
      read(resolveConfigPath(path.dirname(file), include), true)
    }
  }
  for (const file of files) read(file, false)
  const real = (value: string): string | null =>
    top === null && !path.isAbsolute(value) && !value.startsWith('~/')
      ? null
      : realPathAllowingMissing(resolveConfigPath(top ?? '/', value))
  const folders = (values: readonly string[]) => [
    ...new Set(values.flatMap((value) => real(value) ?? [])),
  ]
  const programFiles = new Map<string, string>()
  for (const { setting, value } of settings.programs) {
    for (const file of filesNamedByProgram(value)) {
      const found = real(file)
      if (found !== null && !programFiles.has(found)) programFiles.set(found, setting)
    }
  }
  return {
    hooksFolders: folders(settings.hooksPaths),
    templateFolders: folders(settings.templates),
    programs: [...programFiles].map(([file, setting]) => ({ path: file, setting })),
    configFiles,
  }
}

/** A path as git config reads one: `~/` is the person's home. */
function resolveConfigPath(from: string, value: string): string {
  const expanded = value.startsWith('~/') ? path.join(homeFolder(), value.slice(2)) : value
  return path.resolve(from, expanded)
}

/** The repository git would find from `workspace`: the nearest folder at
 *  or above it holding `.git`, and its git folder; null if none, or if the
 *  nearest `.git` cannot be read. */
function repositoryOf(workspace: string): { top: string; gitFolder: string } | null {
  let top = path.resolve(workspace)
  for (;;) {
    const gitFolder = gitFolderAt(top)
    if (gitFolder !== undefined) return gitFolder === null ? null : { top, gitFolder }
    const parent = path.dirname(top)
    if (parent === top) return null
    top = parent
  }
}

/** The git folder of a repository whose top is `top`; undefined when there
 *  is no `.git` there, null when there is one that cannot be read. */
function gitFolderAt(top: string): string | null | undefined {
  const dotGit = path.join(top, '.git')
  // Every door asks this on every action, for each folder up to the root,
  // and most have no .git: a stat that reports "none" without throwing
  // costs a fraction of a read that fails.
  let found: Stats | undefined
  try {
    found = statSync(dotGit, { throwIfNoEntry: false })
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? undefined : null
  }
  if (found === undefined) return undefined
  if (found.isDirectory()) return dotGit
  try {
    const pointer = readFileSync(dotGit, 'utf8')
    const gitdir = /^gitdir:\s*(.+?)\s*$/m.exec(pointer)?.[1]
    return gitdir === undefined ? null : path.resolve(top, gitdir)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // EISDIR: a .git folder made since the stat.
    if (code === 'EISDIR') return dotGit
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : null
  }
}

/** The `hooksPath` git takes from the `[core]` section of one git config
 *  (the last), or null. */
export function coreHooksPath(config: string): string | null {
  return readConfig(config).hooksPaths.at(-1) ?? null
}

/** What a git config says that matters here, read as git reads it: each
 *  `core.hooksPath` in order, the `path` of every `[include]` and
 *  `[includeIf …]` section (whatever the condition: one that holds later,
 *  on another branch, would hand git the file then), and every setting
 *  whose value git runs (git-config-programs.ts). Keys and section
 *  names are case-insensitive, a key may follow its section header on the
 *  same line, a line ending in a backslash goes on on the next one, and a
 *  value is read by `configValue`. Reading it otherwise would name a
 *  folder git does not use, and leave the one it does use to any door. */
function readConfig(config: string): ConfigRead {
  let section = ''
  const read: ConfigRead = { hooksPaths: [], includes: [], programs: [], templates: [] }
  // An odd number of backslashes before the line's end continues it.
  const joined = config.replace(/(?<!\\)((?:\\\\)*)\\\r?\n/g, '$1')
  for (const raw of joined.split(/\r?\n/)) {
    let line = raw.trim()
    const header = /^\[\s*([^\]\s]+)[^\]]*\](.*)$/.exec(line)
    if (header) {
      // `[diff "x"]`, or as older configs write it, `[diff.x]`.
      section = (header[1] ?? '').toLowerCase().split('.')[0] ?? ''
      line = (header[2] ?? '').trim()
    }
    const entry = /^([a-z][a-z0-9-]*)\s*=(.*)$/i.exec(line)
    if (!entry) continue
    const key = (entry[1] ?? '').toLowerCase()
    const value = configValue(entry[2] ?? '')
    if (value === '') continue
    if (section === 'core' && key === 'hookspath') read.hooksPaths.push(value)
    else if (section === 'init' && key === 'templatedir') read.templates.push(value)
    else if ((section === 'include' || section === 'includeif') && key === 'path') {
      read.includes.push(value)
    } else if (section === 'core' && key === 'attributesfile') {
      // Attributes under another name than `.gitattributes`: which files
      // each filter and diff driver runs on. Read like an include.
      read.includes.push(value)
    }
    if (runsProgram(section, key)) read.programs.push({ setting: `${section}.${key}`, value })
  }
  return read
}

/** What one config says that matters here (`readConfig`). */
interface ConfigRead {
  hooksPaths: string[]
  includes: string[]
  templates: string[]
  /** Each setting whose value git runs, with its value. */
  programs: Array<{ setting: string; value: string }>
}

/** A git config value as git reads it: `;` or `#` outside double quotes
 *  starts a comment, the quotes themselves are dropped, a backslash
 *  escapes the next character (n, t and b as in C), and white space
 *  outside quotes is trimmed at both ends. */
function configValue(raw: string): string {
  let value = ''
  let kept = 0
  let quoted = false
  for (let i = 0; i < raw.length; i += 1) {
    const char = raw[i] ?? ''
    if (char === '\\') {
      i += 1
      const next = raw[i] ?? ''
      value += next === 'n' ? '\n' : next === 't' ? '\t' : next === 'b' ? '\b' : next
      kept = value.length
      continue
    }
    if (char === '"') {
      quoted = !quoted
      kept = value.length
      continue
    }
    if (!quoted && (char === ';' || char === '#')) break
    if (!quoted && value === '' && /\s/.test(char)) continue
    value += char
    if (quoted || !/\s/.test(char)) kept = value.length
  }
  return value.slice(0, kept)
}

function homeFolder(): string {
  return homedir()
}

/** Real paths already looked up in one judgment: a path, and its real
 *  path or null when it was not there. */
export type RealPathsSeen = Map<string, string | null>

/** The real path of `absolute`, following links, with a missing tail
 *  appended as written; null if not even its folder resolves. `seen`
 *  keeps what one judgment looked up, so the paths it names (which share
 *  their folders) look each folder up once. */
export function realPathAllowingMissing(
  absolute: string,
  seen: RealPathsSeen = new Map(),
): string | null {
  let tail = ''
  let current = absolute
  for (let i = 0; i < 64; i += 1) {
    let real = seen.get(current)
    if (real === undefined) {
      real = realPathIfThere(current)
      seen.set(current, real)
    }
    if (real !== null) return tail === '' ? real : path.join(real, tail)
    const parent = path.dirname(current)
    if (parent === current) return null
    tail = tail === '' ? path.basename(current) : path.join(path.basename(current), tail)
    current = parent
  }
  return null
}

/** The real path of `absolute`, or null when nothing is there. */
function realPathIfThere(absolute: string): string | null {
  // A missing path (a file the action would create) is the common case:
  // asked without an exception first, which costs more than the lookup.
  if (!existsSync(absolute)) return null
  try {
    return realpathSync.native(absolute)
  } catch {
    // Gone since it was found: judged as missing, as it now is.
    return null
  }
}

/** The names git runs as hooks (githooks(5)), lower-cased: a file of one
 *  of these names in a folder some repository's config names as its hooks
 *  folder runs when the person uses git there. */
export const GIT_HOOK_NAMES: ReadonlySet<string> = new Set([
  'applypatch-msg',
  'pre-applypatch',
  'post-applypatch',
  'pre-commit',
  'pre-merge-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'pre-rebase',
  'post-checkout',
  'post-merge',
  'pre-push',
  'pre-receive',
  'update',
  'proc-receive',
  'post-receive',
  'post-update',
  'reference-transaction',
  'push-to-checkout',
  'pre-auto-gc',
  'post-rewrite',
  'sendemail-validate',
  'fsmonitor-watchman',
  'p4-changelist',
  'p4-prepare-changelist',
  'p4-post-changelist',
  'p4-pre-submit',
  'post-index-change',
])

/** What git looks for in a folder to take it for a git folder
 *  (`is_git_directory`): `HEAD`, and the `objects` and `refs` folders. */
export const GIT_FOLDER_PARTS: ReadonlyArray<{ name: string; folder: boolean }> = [
  { name: 'HEAD', folder: false },
  { name: 'objects', folder: true },
  { name: 'refs', folder: true },
]

/** A worktree's git folder: `HEAD` and a `commondir` file naming the
 *  folder that holds the objects, the refs and the config. git looks for
 *  `objects` and `refs` there, wherever it is, so a folder with these two
 *  is taken for a git folder whatever the one it names holds. */
export const WORKTREE_GIT_FOLDER_PARTS: ReadonlyArray<{ name: string; folder: boolean }> = [
  { name: 'HEAD', folder: false },
  { name: 'commondir', folder: false },
]

/** Either set of parts makes a git folder. */
export const GIT_FOLDER_SHAPES = [GIT_FOLDER_PARTS, WORKTREE_GIT_FOLDER_PARTS] as const

/** Whether `folder` holds what makes git take it for a git folder, with
 *  `target` (a path about to be written) counted as there. A link counts
 *  as whatever it may point to. */
export function gitFolderShaped(
  folder: string,
  target: string | null = null,
  present: (part: string, isFolder: boolean) => boolean = gitFolderPartPresent,
): boolean {
  return GIT_FOLDER_SHAPES.some((parts) =>
    parts.every(({ name, folder: isFolder }) => {
      const part = path.join(folder, name)
      if (target !== null && (target === part || target.startsWith(part + path.sep))) return true
      return present(part, isFolder)
    }),
  )
}

/** The folder a worktree's git folder names in its `commondir` (its
 *  config, hooks, objects and refs), or null when it names none. */
export function commonFolderOf(folder: string): string | null {
  const file = path.join(folder, 'commondir')
  if (!existsSync(file)) return null
  try {
    const named = readFileSync(file, 'utf8').trim()
    return named === '' ? null : path.resolve(folder, named)
  } catch {
    return null
  }
}

/** Whether one part of a git folder's shape is there, as a folder
 *  (`isFolder`) or a file; a link counts as whatever it may point to. */
export function gitFolderPartPresent(part: string, isFolder: boolean): boolean {
  let found: Stats | undefined
  try {
    found = lstatSync(part, { throwIfNoEntry: false })
  } catch {
    // Not there for git either (a file where a folder would be, no
    // permission to look).
    return false
  }
  if (found === undefined) return false
  return found.isSymbolicLink() || found.isDirectory() === isFolder
}

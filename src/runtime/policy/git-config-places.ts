import { homedir } from 'node:os'
import path from 'node:path'
import { configPathValues } from './git-config-paths.ts'
import { filesNamedByProgram, runsProgram } from './git-config-programs.ts'
import { takenFrom } from './git-pointers.ts'
import { realPathAllowingMissing } from './real-paths.ts'
import { SettledFileCache } from './settled-file-cache.ts'

// The git configs Assent reads as git reads them, and what their settings
// make git's: the hooks folders, the template folders, the programs git
// runs and the files they include (git-hooks-folder.ts adds a
// repository's own folders).

/** How many config files are read for one repository, includes and all;
 *  past it, the ones not read name no hooks folder (and a repository
 *  whose configs include each other in a loop ends here). The seven git
 *  may read before any include (the environment's two, the system's, the
 *  person's two, the repository's two) leave seventeen for includes. */
const MAX_CONFIG_FILES = 24

/** What each config file says, read again only when the file changes. */
const CONFIGS_READ = new SettledFileCache((text) => readConfig(text))

/** Where git, as distributions build it, keeps the system's config. */
const SYSTEM_GIT_CONFIG = '/etc/gitconfig'

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
   *  with the setting; and every file a hook manager's, an editor's, a dev
   *  container's or mise's config names as what it runs unasked
   *  (tool-config-programs.ts), with the config and its class. */
  programs: Array<{
    path: string
    setting: string
    class?: 'git' | 'runs-later'
    /** A folder whose every file runs (tool-config-keys.ts). */
    folder?: true
  }>
  /** Every config file git reads for the repository besides its own
   *  `config`: the worktree's, and each one included (`[include]`,
   *  `[includeIf]`, whatever the condition), as real paths. */
  configFiles: string[]
}

/** `ConfigPlaces`, and every real folder a config names as `core.worktree`
 *  (taken from the git folder): the top git then runs the hooks in and
 *  takes a relative value from, in place of the folder holding `.git`. */
export interface RepositoryConfigPlaces extends ConfigPlaces {
  worktreeTops: string[]
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
export function personalConfigFiles(): string[] {
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
 *  paths, relative values taken from `top`, or left out without one, and
 *  from each folder a `core.worktree` names (taken from each of
 *  `gitFolders`: a linked worktree's own, and the one it shares). */
export function configPlaces(
  files: readonly string[],
  top: string | null,
  gitFolders: readonly string[] = [],
): RepositoryConfigPlaces {
  const configFiles: string[] = []
  const settings: ConfigRead = {
    hooksPaths: [],
    includes: [],
    programs: [],
    templates: [],
    worktrees: [],
  }
  let budget = MAX_CONFIG_FILES
  const read = (file: string, included: boolean): void => {
    if (budget <= 0) return
    budget -= 1
    // An included file git reads once it exists (`~/.gitconfig.local`):
    // making it is changing git's settings too.
    if (included) configFiles.push(realPathAllowingMissing(file) ?? file)
    // Read at every judgment, most not there and the rest seldom changed:
    // one stat each, a read only when the file changed (settled-file-cache.ts).
    const found = CONFIGS_READ.read(file)
    if (found === null) return
    settings.hooksPaths.push(...found.hooksPaths)
    settings.programs.push(...found.programs)
    settings.templates.push(...found.templates)
    settings.worktrees.push(...found.worktrees)
    for (const include of found.includes) {
      for (const named of configPathValues(include)) {
        read(takenFrom(path.dirname(file), named), true)
      }
    }
  }
  for (const file of files) read(file, false)
  // With `core.worktree`, git runs the hooks in the folder it names and
  // takes a relative value from there; taken from the folder holding
  // `.git` alone, the hooks folder git runs was another one, left to
  // every door. Each one named is a top as well as that folder: what
  // either names is kept, more than git uses (it takes the last), never
  // less.
  const worktreeTops =
    top === null
      ? []
      : [
          ...new Set(
            settings.worktrees.flatMap((named) => gitFolders.map((from) => takenFrom(from, named))),
          ),
        ]
  const tops = top === null ? [] : [top, ...worktreeTops]
  // Relative values taken from each top, as the kernel takes them (a `..`
  // after a link goes up from where it leads); without one, only those
  // git expands to absolute ones (`~/`, `~user/`, `%(prefix)/`) name a
  // place.
  const real = (value: string): string[] =>
    configPathValues(value).flatMap((named) =>
      path.isAbsolute(named)
        ? (realPathAllowingMissing(named) ?? [])
        : tops.map((from) => takenFrom(from, named)),
    )
  const folders = (values: readonly string[]) => [...new Set(values.flatMap(real))]
  const programFiles = new Map<string, string>()
  for (const { setting, value } of settings.programs) {
    for (const file of filesNamedByProgram(value)) {
      for (const found of real(file)) {
        if (!programFiles.has(found)) programFiles.set(found, setting)
      }
    }
  }
  return {
    hooksFolders: folders(settings.hooksPaths),
    templateFolders: folders(settings.templates),
    programs: [...programFiles].map(([file, setting]) => ({ path: file, setting })),
    configFiles,
    worktreeTops,
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
  const read: ConfigRead = {
    hooksPaths: [],
    includes: [],
    programs: [],
    templates: [],
    worktrees: [],
  }
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
    else if (section === 'core' && key === 'worktree') read.worktrees.push(value)
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
  /** Each `core.worktree`, as written. */
  worktrees: string[]
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

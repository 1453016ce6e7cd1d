import { homedir } from 'node:os'
import path from 'node:path'
import { GIT_HOOK_NAMES } from './git-hook-names.ts'
import { HOOK_TOOL_CONFIG_PATTERNS } from './hook-tool-configs.ts'
import { lstatOfTheMoment, realPathsOfTheMoment } from './judgment-moment.ts'
import { packageHookText, packageScriptsOf } from './package-hooks.ts'
import { keyedPlaces, type KeyedPlaces } from './tool-config-keys.ts'
import { taskRunnerFiles } from './task-runner-files.ts'
import { isInsideRoot } from './path-containment.ts'
import { realPathAllowingMissing, realPathsNamed, type RealPathsSeen } from './real-paths.ts'
import { SettledFileCache, SettledFolderCache } from './settled-file-cache.ts'

// The scripts of the workspace that the person's own tools run, outside
// any sandbox and without asking, because a config the person-only table
// already holds names them: a hook manager's config (pre-commit's
// `entry: ./scripts/check.sh`, lefthook's `run:`, overcommit's `command:`)
// and a hook file (`.husky/pre-commit` calling `./scripts/check.sh`), run
// at the person's next `git commit`; an editor's task run when the folder
// opens (`"runOn": "folderOpen"`); a dev container's commands
// (`initializeCommand` runs on the host); mise's hooks, tasks and the
// files it sources on entering the folder. The config is the person's, but
// the script it names is one level further: a grant that rewrote it would
// change what runs as surely as a grant that rewrote the config. Such a
// script is the config's as a program a git config names is git's
// (git-config-programs.ts): the doors leave a change to it to the person,
// and the sandbox keeps it read-only.
//
// The line: what runs without the person asking for that code (a commit,
// opening the folder, entering it). A script CI runs on the next push, a
// build task the person starts, a package's `scripts`, run when the person
// runs the project, are the project's code, which the agent is there to
// change (but for those a hook runs by name: package-hooks.ts). A CI
// workflow itself stays in the table.
//
// No parser reads these YAML, TOML and JSON files: each is read as text,
// and every word in it that holds a `/` (`./scripts/check.sh`,
// `${workspaceFolder}/scripts/setup.sh`, `{{config_root}}/bin/x`) names a
// file, wherever in the file it stands, a comment or a key no tool runs
// included; so does the word after an interpreter (`node check.js`), and
// a few keys' values (tool-config-keys.ts). A reading that keeps more than the tool runs costs the person
// a question about that file; one that keeps less would let a grant
// rewrite what runs. A word that is a folder (`files: ^src/`) names no
// file, and keeps nothing (the doors match the file itself, the sandbox
// keeps only files).

/** One file a tool's config names as what it runs (`ConfigPlaces`). */
export interface ToolProgram {
  path: string
  /** The config that names it, from the folder it was found in. */
  setting: string
  /** `git` for what runs at a git command (hook managers, hooks);
   *  `runs-later` for what an editor, a dev container or mise runs. */
  class: 'git' | 'runs-later'
  /** A folder whose every file the tool runs (tool-config-keys.ts), held
   *  whole; otherwise the file alone. */
  folder?: true
}

/** What one config says: the words naming files, and for an editor's
 *  tasks whether one of them runs when the folder opens. */
interface ConfigWords {
  words: string[]
  runsOnOpen: boolean
  /** What its keys name even without a `/`. */
  keyed: KeyedPlaces
  /** The package scripts it runs by name (`npm test`, `yarn lint`). */
  scripts: string[]
  /** The recipe files the task runners it calls read (`make check`). */
  recipes: string[]
  /** Of a package.json, its scripts, by name. */
  packageScripts?: Record<string, unknown>
}

const NO_KEYED: KeyedPlaces = { folders: [], files: [], configs: [] }

/** A package script run by name: `npm test`, `npm run -s lint`, `yarn
 *  lint`, `pnpm run check`, an editor's npm task's `"script": "watch"`. */
const SCRIPT_RUN =
  /\b(?:npm|pnpm|yarn|bun)(?:\s+--?[\w-]+)*\s+(?:run(?:-script)?(?:\s+--?[\w-]+)*\s+)?([\w:.-]+)|"script"\s*:\s*"([\w:.-]+)"/g

/** The scripts `text` runs by name, with what npm runs around each
 *  (`pretest`, `posttest`); `npm t` is `npm test`. */
function scriptsRun(text: string): string[] {
  const names = [...text.matchAll(SCRIPT_RUN)].map((match) => match[1] ?? match[2] ?? '')
  return [...new Set(names.map((name) => (name === 't' || name === 'tst' ? 'test' : name)))]
    .filter((name) => name !== '')
    .flatMap((name) => [name, `pre${name}`, `post${name}`])
}

/** What each config says, read again only when the file changes: every
 *  door judges every action with this, one stat per config. */
const CONFIGS_READ = new SettledFileCache<ConfigWords>((text) => ({
  words: pathWords(text),
  runsOnOpen: /folderOpen/.test(text),
  keyed: keyedPlaces(plainOf(text)),
  scripts: scriptsRun(text),
  recipes: taskRunnerFiles(text),
}))

/** A package.json's words, of the part its hook keys make alone
 *  (package-hooks.ts): its dependencies and other scripts name nothing
 *  a hook runs. */
const PACKAGES_READ = new SettledFileCache<ConfigWords>((text) => ({
  words: pathWords(packageHookText(text)),
  runsOnOpen: false,
  keyed: NO_KEYED,
  scripts: [],
  recipes: [],
  packageScripts: packageScriptsOf(text),
}))

/** The folders listed for the configs in them, listed again only when a
 *  name in them changes. */
const FOLDERS_LISTED = new SettledFolderCache()

/** The hooks folders listed, of which only the names git runs as hooks
 *  are kept: `core.hooksPath` may name any folder, the workspace's top
 *  among them. */
const HOOKS_LISTED = new SettledFolderCache(Date.now, (name) =>
  GIT_HOOK_NAMES.has(name.toLowerCase()),
)

/** The configs at a folder's top, by their names there: hook managers'
 *  (pre-commit, lefthook in each of its formats and its `-local` config,
 *  overcommit), a dev container's, and mise's. */
const TOP_CONFIG: ReadonlyArray<[RegExp, ToolProgram['class']]> = [
  [/^\.pre-commit-config\.ya?ml$/, 'git'],
  [/^\.?lefthook(?:-local)?\.(?:ya?ml|toml|jsonc?)$/, 'git'],
  [/^\.overcommit\.yml$/, 'git'],
  // lint-staged's, husky's and the like (hook-tool-configs.ts), and a
  // package's own keys for the same (package-hooks.ts).
  ...HOOK_TOOL_CONFIG_PATTERNS.map((pattern): [RegExp, ToolProgram['class']] => [
    new RegExp(pattern),
    'git',
  ]),
  [/^package\.json$/, 'git'],
  [/^\.devcontainer\.json$/, 'runs-later'],
  // `mise.toml`, `.mise.toml`, `mise.local.toml`, `mise.<env>.toml`.
  [/^\.?mise(?:\.[\w-]+)?\.toml$/, 'runs-later'],
  // direnv's, run on entering the folder as mise's is; and npm's and
  // yarn's, whose `script-shell`, `node-options` or `yarnPath` is run in
  // place of what every `npm run` or `yarn` the person types runs.
  [/^\.envrc$/, 'runs-later'],
  [/^\.npmrc$|^\.yarnrc(?:\.yml)?$/, 'runs-later'],
]

/** The configs in folders at the top, looked at when the folder is there:
 *  the same tools' other places. */
const FOLDER_CONFIG: ReadonlyArray<[string, RegExp, ToolProgram['class']]> = [
  ['.config', /^lefthook(?:-local)?\.(?:ya?ml|toml|jsonc?)$/, 'git'],
  ['.config', /^mise(?:\.[\w-]+)?\.toml$/, 'runs-later'],
  ['.config/mise', /^config(?:\.[\w-]+)?\.toml$/, 'runs-later'],
  // mise reads every file of its `conf.d` as a config, in name order.
  ['.config/mise/conf.d', /\.toml$/, 'runs-later'],
  ['.mise', /^config(?:\.[\w-]+)?\.toml$/, 'runs-later'],
  ['mise', /^config(?:\.[\w-]+)?\.toml$/, 'runs-later'],
  ['.devcontainer', /^devcontainer\.json$/, 'runs-later'],
  // husky's hooks, each a shell script by a hook's name run at its git
  // event (`_` holds husky's own).
  ['.husky', /^[a-z-]+$/, 'git'],
]

/** The names at a folder's top that may be a tool's config, or a folder
 *  holding one. */
const TOP_FOLDERS = new Set(['.vscode', ...FOLDER_CONFIG.map(([folder]) => folder.split('/')[0])])

/** A folder's top listed, of which only what may be a tool's config is
 *  kept: a workspace's top may hold thousands of names (a folder of
 *  notes an agent writes one by one), and its listing, kept whole, grew
 *  with every file written there. */
const TOPS_LISTED = new SettledFolderCache(Date.now, (name) => {
  const lower = name.toLowerCase()
  return TOP_FOLDERS.has(lower) || TOP_CONFIG.some(([pattern]) => pattern.test(lower))
})

/**
 * The files the tools' configs at `top` name as what they run, and those
 * the hooks in `hooksFolders` (the folders git runs hooks from) call, as
 * real paths: each word holding a `/`, taken from `top` (where these tools
 * run what they name) and from the config's own folder. An absolute word counts only inside
 * `top`: `/usr/bin/env` in a hook is no script of the workspace. A config
 * that cannot be read names nothing, as for git's configs: every one of
 * them is in the person-only table, so no door let the agent make it so.
 */
export function toolConfigPrograms(
  top: string,
  hooksFolders: readonly string[],
  seen: RealPathsSeen = realPathsOfTheMoment(),
): ToolProgram[] {
  return configsAt(top, hooksFolders, seen).programs
}

/**
 * The package scripts that the hooks of the repository `git` describes,
 * and the tools' configs at its top, run by name (`npm test` in
 * `.husky/pre-commit`, as husky's own set-up writes it): what such a
 * script says runs at the person's next commit, or as they open or enter
 * the folder (package-hooks.ts). None for a bare repository.
 */
export function packageScriptsRun(
  git: { top: string; gitFolder: string; commonFolder: string | null; hooksFolders: string[] },
  seen: RealPathsSeen = realPathsOfTheMoment(),
): ReadonlySet<string> {
  if (git.top === git.gitFolder) return new Set()
  const hooks = [path.join(git.commonFolder ?? git.gitFolder, 'hooks'), ...git.hooksFolders]
  return configsAt(git.top, hooks, seen).scripts
}

/** What `toolConfigPrograms` and `packageScriptsRun` read. */
function configsAt(
  top: string,
  hooksFolders: readonly string[],
  seen: RealPathsSeen,
): { programs: ToolProgram[]; scripts: Set<string> } {
  const found = new Map<string, ToolProgram>()
  const scripts = new Set<string>()
  const add = (
    config: string,
    cls: ToolProgram['class'],
    words: readonly string[],
    folder = false,
  ): void => {
    const setting = path.relative(top, config) || config
    // These tools run what they name from the top; a config in a folder
    // below it may name a path from its own folder as well (a dev
    // container's `"dockerfile": "../Dockerfile"`, a hook's
    // `$(dirname "$0")/../scripts/x.sh`).
    const froms = [...new Set([top, path.dirname(config)])]
    for (const word of words) {
      for (const real of froms.flatMap((from) => wordPlaces(from, word, seen))) {
        const had = found.get(real) // kept once, as the folder when a key names it so
        if (had !== undefined && (had.folder === true || !folder)) continue
        if (path.isAbsolute(word) && !isInsideRoot(top, real)) continue
        // A folder holding the top (`_.path = ["."]`) is not held whole:
        // that would hold every file of the workspace.
        if (folder && isInsideRoot(real, top)) continue
        found.set(real, { path: real, setting, class: cls, ...(folder ? { folder } : {}) })
      }
    }
  }
  const readConfigs = new Set<string>()
  const read = (config: string, cls: ToolProgram['class']): void => {
    // A config extending one that extends it back is read once.
    if (readConfigs.has(config)) return
    readConfigs.add(config)
    const cache = path.basename(config) === 'package.json' ? PACKAGES_READ : CONFIGS_READ
    const said = cache.read(config)
    if (said === null) return
    // An editor's tasks run unasked only when one runs as the folder
    // opens; the others run when the person starts them.
    if (path.basename(config) === 'tasks.json' && !said.runsOnOpen) return
    add(config, cls, [...said.words, ...said.recipes])
    for (const script of said.scripts) scripts.add(script)
    const { folders, files, configs } = said.keyed
    const named = (values: readonly string[]) => values.filter((value) => PATH_LIKE.test(value))
    add(config, cls, named([...files, ...configs]))
    add(config, cls, named(folders), true)
    // What a config this one extends names runs as this one's does, from
    // the top and from this config's folder.
    for (const other of named(configs)) {
      for (const from of new Set([top, path.dirname(config)])) {
        for (const at of realPathsNamed(from, other, seen)) read(at, cls)
      }
    }
  }
  // Lower-cased: a file system that ignores case opens `.VSCode` as the
  // `.vscode` the editor reads.
  const atTop = new Set(namesIn(top, TOPS_LISTED).map((name) => name.toLowerCase()))
  for (const name of atTop) {
    const match = TOP_CONFIG.find(([pattern]) => pattern.test(name))
    if (match !== undefined) read(path.join(top, name), match[1])
  }
  // An editor's tasks: read where they are, a stat fewer than a listing.
  if (atTop.has('.vscode')) read(path.join(top, '.vscode', 'tasks.json'), 'runs-later')
  for (const [folder, pattern, cls] of FOLDER_CONFIG) {
    const first = folder.split('/')[0] ?? folder
    if (!atTop.has(first)) continue
    const at = path.join(top, folder)
    for (const name of namesIn(at).map((each) => each.toLowerCase())) {
      if (folder === '.husky' && !GIT_HOOK_NAMES.has(name)) continue
      if (pattern.test(name)) read(path.join(at, name), cls)
      // A dev container of several configs, one folder each.
      if (folder === '.devcontainer') read(path.join(at, name, 'devcontainer.json'), cls)
    }
  }
  for (const folder of hooksFolders) {
    for (const name of namesIn(folder, HOOKS_LISTED)) {
      if (GIT_HOOK_NAMES.has(name.toLowerCase())) read(path.join(folder, name), 'git')
    }
  }
  // What the package scripts a hook runs by name say: a file they name
  // runs as one a hook names does.
  const manifest = atTop.has('package.json')
    ? PACKAGES_READ.read(path.join(top, 'package.json'))
    : null
  for (const name of scripts) {
    const script = manifest?.packageScripts?.[name]
    if (typeof script === 'string') add(path.join(top, 'package.json'), 'git', pathWords(script))
  }
  return { programs: [...found.values()], scripts }
}

/** The names in `folder`, none when it cannot be listed (not there, not a
 *  folder): a tool finds no config there either. One stat while the
 *  folder keeps its names (`SettledFolderCache`). */
function namesIn(folder: string, listed: SettledFolderCache = FOLDERS_LISTED): string[] {
  return listed.read(folder) ?? []
}

/**
 * The real path of `absolute`, as `realPathAllowingMissing` finds it, at
 * less cost for the many names a config gives in one folder
 * (`scripts/a.sh`, `scripts/b.sh`): the folder is looked up once in the
 * judgment (`seen`), and the name in it by one `lstat`; only a name that
 * is a link is followed the long way, to where a write to it lands.
 */
function realPath(absolute: string, seen: RealPathsSeen): string | null {
  const folder = realPathAllowingMissing(path.dirname(absolute), seen)
  if (folder === null) return null
  const name = path.join(folder, path.basename(absolute))
  try {
    if (lstatOfTheMoment(name)?.isSymbolicLink() !== true) return name
  } catch {
    // Cannot be looked at (a folder on the way that is no folder): no
    // file for a tool to run there either, nor to write.
    return name
  }
  return realPathAllowingMissing(name, seen)
}

/** Where `word` leads from `from` (`realPath`), and with a `..` as the
 *  kernel takes it too (`realPathsNamed`: `hl/../x.sh`, `hl -> s/sub`). */
function wordPlaces(from: string, word: string, seen: RealPathsSeen): string[] {
  const tidied = realPath(resolveWord(from, word), seen)
  const found = tidied === null ? [] : [tidied]
  if (word.startsWith('~/') || !word.split(/[\\/]/).includes('..')) return found
  return [...new Set([...found, ...realPathsNamed(from, word, seen)])]
}

/** A word as the tool would take it from `from`: `~/` is the person's
 *  home. */
function resolveWord(from: string, word: string): string {
  return word.startsWith('~/') ? path.join(homedir(), word.slice(2)) : path.resolve(from, word)
}

/** A word a path may be, as these configs spell one: no pattern
 *  (`^src/`, `*.py`), variable (`$HOME/x`), URL or shebang (`#!/bin/sh`),
 *  each of which names no file of the workspace as written. */
const PATH_LIKE = /^[\p{L}\p{N}_.~@+%/-]+$/u

/**
 * The words of a config's text that may name a file: each holding a `/`,
 * split wherever a shell, YAML, TOML or JSON would end one, an option
 * (`-x/y`), a folder by its spelling (`exclude: docs/`) and what is no
 * path (`PATH_LIKE`) left out. What a path
 * starts from when the tool runs it (a variable, `${workspaceFolder}/`,
 * mise's `{{config_root}}/`, a hook's `$(git rev-parse --show-toplevel)/`
 * or `$(dirname "$0")/`) is read as the top or the config's folder
 * (`toolConfigPrograms` takes each word from both). A word after pre-commit's
 * `entry:` is a script at the top even without a `/` (`language: script`).
 */
function pathWords(text: string): string[] {
  const plain = plainOf(text)
  const all = plain.split(/[\s;|&()<>`'"=,[\]{}]+/)
  const words = all.filter(
    (word) =>
      word.includes('/') && PATH_LIKE.test(word) && !word.startsWith('-') && !word.endsWith('/'),
  )
  const entries = [...plain.matchAll(/^[\s-]*entry:\s*['"]?([^\s'"#]+)/gm)].map(
    (match) => match[1] ?? '',
  )
  return [...new Set([...words, ...entries, ...interpreted(all)].filter((word) => word !== ''))]
}

/** Programs that run the file named after their options, from where they
 *  run (`node check.js`, `bash setup.sh`, `. ./env.sh`). */
const INTERPRETERS = new Set([
  ...['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'source', '.'],
  ...['node', 'deno', 'bun', 'tsx', 'ts-node', 'python', 'python3', 'ruby', 'perl', 'php'],
])

/** The word after each interpreter's options in `words`: a script at the
 *  top though it holds no `/`. (`deno run`, `bun run` skip the `run`.) */
function interpreted(words: readonly string[]): string[] {
  const out: string[] = []
  for (let index = 0; index < words.length; index += 1) {
    if (!INTERPRETERS.has(path.basename(words[index] ?? ''))) continue
    let next = index + 1
    while ((words[next] ?? '').startsWith('-') || words[next] === 'run') next += 1
    const word = words[next] ?? ''
    if (PATH_LIKE.test(word) && !word.endsWith('/')) out.push(word)
  }
  return out
}

/** `text` with what a path starts from when the tool runs it (a variable,
 *  `${workspaceFolder}/`, `{{config_root}}/`, `$(…)/`) read as `./`. */
function plainOf(text: string): string {
  return text.replace(/\$\{[^}\s]*\}\/|\{\{[^}\s]*\}\}\/|\$\([^()]*\)\/|\$\w+\//g, './')
}

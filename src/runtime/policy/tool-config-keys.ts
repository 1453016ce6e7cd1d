// The settings of hook managers' and mise's configs whose value is a
// place even when it holds no `/` (tool-config-programs.ts reads every
// other word only when it does): a folder whose every file the tool runs,
// a file it loads, or another config it reads as its own. Each value is
// read as written at the key, on its line or in a list below it, in YAML,
// TOML or JSON (`source_dir: hooks`, `_.path = ["bin", "tools"]`,
// `"extends": ["more.yml"]`).

/** What the keys of one config name. */
export interface KeyedPlaces {
  /** Folders whose every file the tool runs: lefthook's `source_dir` and
   *  `source_dir_local` (`<folder>/<hook>/<script>` at that git event),
   *  overcommit's `plugin_directory` (its Ruby hooks), and mise's
   *  `_.path` (put first on PATH on entering the folder: a `git` there is
   *  the person's next `git`; `mise.path` in older configs). */
  folders: string[]
  /** Files mise loads on entering the folder: `_.file` (its variables,
   *  `LD_PRELOAD` or `GIT_SSH_COMMAND` among them) and `_.source` (a
   *  script the shell sources). */
  files: string[]
  /** Configs lefthook reads as part of this one (`extends`): what they
   *  name runs as this one's does. */
  configs: string[]
}

const FOLDER_KEYS = new Set([
  'source_dir',
  'source_dir_local',
  'plugin_directory',
  '_.path',
  'mise.path',
])
const FILE_KEYS = new Set(['_.file', '_.source', 'mise.file'])
const CONFIG_KEYS = new Set(['extends'])

/** A key at a line's start, quoted or not, with what follows it. */
const KEYED =
  /^[\s-]*["']?(source_dir(?:_local)?|plugin_directory|(?:_|mise)\.(?:path|file|source)|extends)["']?\s*[:=]\s*(.*)$/

/** direnv's commands in an `.envrc` that name a folder put first on PATH
 *  (as mise's `_.path`) or a file it sources or loads (as `_.source`). */
const DIRENV =
  /^\s*(PATH_add|path_add|source_env|source_env_if_exists|source_up|source_up_if_exists|dotenv|dotenv_if_exists)\s+(.*)$/

/** One value as a config spells it: a quoted or bare word. */
const VALUE = /"([^"]*)"|'([^']*)'|([^\s,[\]{}"'#]+)/g

/** The places `text`'s keys name, as written (relative or not). */
export function keyedPlaces(text: string): KeyedPlaces {
  const out: KeyedPlaces = { folders: [], files: [], configs: [] }
  const lines = text.split(/\r?\n/)
  for (let index = 0; index < lines.length; index += 1) {
    const direnv = DIRENV.exec(lines[index] ?? '')
    if (direnv !== null) {
      const values = [...(direnv[2] ?? '').replace(/\s#.*$/, '').matchAll(VALUE)]
      const named = values.map((value) => value[1] ?? value[2] ?? value[3] ?? '')
      const into = /^path_add$/i.test(direnv[1] ?? '') ? out.folders : out.files
      into.push(...named.filter((value) => value !== ''))
      continue
    }
    const match = KEYED.exec(lines[index] ?? '')
    if (match === null) continue
    const key = match[1] ?? ''
    let rest = (match[2] ?? '').replace(/\s#.*$/, '')
    // A list below the key (YAML's `- x` lines), or a bracket not closed
    // on the key's line.
    if (rest.trim() === '' || (rest.includes('[') && !rest.includes(']'))) {
      for (let next = index + 1; next < lines.length; next += 1) {
        const line = lines[next] ?? ''
        const item = /^\s*-\s+(.*)$/.exec(line)
        if (rest.trim() === '' && item === null) break
        rest += ` ${item?.[1] ?? line}`
        if (item === null && line.includes(']')) break
      }
    }
    const values = [...rest.matchAll(VALUE)]
      .map((value) => value[1] ?? value[2] ?? value[3] ?? '')
      .filter((value) => value !== '' && !/^[a-z][\w+.-]*:\/\//i.test(value))
    const into = FOLDER_KEYS.has(key)
      ? out.folders
      : FILE_KEYS.has(key)
        ? out.files
        : CONFIG_KEYS.has(key)
          ? out.configs
          : []
    into.push(...values)
  }
  return out
}

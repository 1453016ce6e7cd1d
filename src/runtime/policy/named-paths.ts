import { opendirSync, type Stats } from 'node:fs'
import path from 'node:path'
import {
  AGENT_COMMAND_TOOL,
  AGENT_FILE_CHANGE_TOOL,
  AGENT_TOOL_CALL_TOOL,
} from '../../contracts/agent-request.ts'
import { BUILT_IN_FILESYSTEM_SERVER_ID } from '../../contracts/mcp-config.ts'
import { addParts, addPathAndWords } from './argument-spellings.ts'
import { baseFolders, MAX_ARGUMENT_DEPTH, type commandsOf } from './command-lines.ts'
import { copiedPlaces } from './copied-places.ts'
import { realPathAllowingMissing, type RealPathsSeen } from './git-hooks-folder.ts'
import { lstatOfTheMoment, realPathsOfTheMoment } from './judgment-moment.ts'
import { isFolderNow, realPathsNamed } from './real-paths.ts'
import type { ActionTouch, PersonOnly } from './person-only.ts'
import {
  homeCredentialFiles,
  homeTopPersonOnlyFiles,
  NOT_COMPARED_NAMES,
  personOnlyFiles,
} from './person-only-files.ts'
import { personOnlyPathsIn } from './read-only-walk.ts'
import { globMatches, hasGlob } from './shell-glob.ts'
import { readShell, wordSpellings, type ShellReading } from './shell-words.ts'

// What an action names, for the person-only rule (person-only.ts): its
// candidate paths, read as a server or a shell may read them, and their
// real paths from every folder relative paths are taken from; and which of
// them is another name (a hard link) of a person-only file.

/** More candidate paths than this in one action: the action asks. Checking
 *  each costs a realpath; an action built to be too costly to check is not
 *  one any door should answer for. */
export const MAX_CHECKED_CANDIDATES = 512

/** What an action names, for the person-only rule. */
export interface NamedPaths {
  candidates: string[]
  /** Real paths, and the places its copies write (copied-places.ts). */
  resolved: string[]
  seen: RealPathsSeen
  /** Why the places its copies, moves or links write could not all be
   *  found (too many, or a folder that cannot be read), or null: the
   *  person decides (person-only.ts). */
  unchecked: PersonOnly | null
}

/**
 * The paths an action names (`candidatePaths`) and their real paths, each
 * taken from every folder relative paths are taken from, globs expanded,
 * and the places its copies write that no word names; null when there
 * are more than can be checked.
 */
export function namedPaths(
  touch: ActionTouch,
  commands: ReturnType<typeof commandsOf>,
  readings: readonly ShellReading[],
): NamedPaths | null {
  const found = candidatePaths(touch, readings)
  if (found === null) return null
  const { candidates, globs } = found
  const resolved = [...(touch.resolvedPaths ?? [])]
  // Relative paths are taken from the workspace, and for a command from
  // its folder and every folder it `cd`s to as well.
  const bases = baseFolders(touch, commands, readings)
  // What this judgment looked up: the paths it names share their folders
  // (and, in one moment, with the other rules judging the same action).
  const seen: RealPathsSeen = realPathsOfTheMoment()
  for (const candidate of candidates) {
    for (const base of bases) {
      resolved.push(...realPathsNamed(base, candidate, seen))
    }
  }
  // A command's glob names what it matches when the shell expands it
  // (`.gi?` is `.git`): each match is judged too.
  const globBudget = { entries: MAX_GLOB_ENTRIES }
  for (const glob of globs) {
    for (const base of bases) {
      const matches = globMatches(glob, base, globBudget)
      if (matches === null) return null
      for (const match of matches) {
        const matched = realPathAllowingMissing(match, seen)
        if (matched !== null) resolved.push(matched)
      }
    }
  }
  // A folder whose contents a command copies whole brings its dot entries
  // along (`cp -r vendor/. .` brings `vendor/.git`): each is judged too.
  if (!addCopiedContents(readings, bases, resolved, seen)) return null
  // Every folder the action names is a folder its relative paths may be
  // taken from: `env -C tools cp x hooks/pre-commit`, `make -C`, `tar -C`,
  // `cd tool?`, an MCP tool's `{ directory, filename }`. Which option of
  // which program changes its folder is not read; any named folder is.
  const folders = namedFolders(resolved)
  if (folders === null) return null
  const relative = candidates.filter((candidate) => !path.isAbsolute(candidate))
  const others = folders.filter((folder) => !bases.includes(folder))
  // Each pair is a look-up on the runtime's thread: past the bound the
  // action asks rather than hold up every other decision.
  if (others.length * relative.length > MAX_FOLDER_PAIRS) return null
  for (const folder of others) {
    for (const candidate of relative) {
      resolved.push(...realPathsNamed(folder, candidate, seen))
    }
  }
  // A copy, a move or a link writes where no word names: `cp x dir/` is
  // `dir/x`, `cp -r tmpl/git ~/.config/` is `~/.config/git/config`. Added
  // after the folders above are counted: they are places written, not
  // folders the action's relative paths are taken from.
  const copied = copiedPlaces(readings, [...bases, ...others], seen)
  if (!Array.isArray(copied)) return { candidates, resolved, seen, unchecked: copied }
  resolved.push(...copied)
  return { candidates, resolved, seen, unchecked: null }
}

/** How many folder entries the contents a command copies may read (its
 *  `x/.` folders and the dot folders in them); past it the action asks. */
const MAX_COPIED_ENTRIES = 4_096

/**
 * The entries a command brings along when it copies a folder's contents
 * whole, added to `resolved`: a word ending in `/.` (`cp -r vendor/. .`,
 * `cp -a x/./ y`), and, in a line that runs rsync, one ending in `/`
 * (`rsync -a vendor/ .`). The table's names brought that way are dot
 * names at the folder's top (`.git`, `.envrc`, `.husky`) or in a dot
 * folder there (`.github/workflows`, `.vscode/tasks.json`): those are
 * read, up to `MAX_COPIED_ENTRIES`. False past it (the action asks).
 */
function addCopiedContents(
  readings: readonly ShellReading[],
  bases: readonly string[],
  resolved: string[],
  seen: RealPathsSeen,
): boolean {
  const budget = { entries: MAX_COPIED_ENTRIES }
  for (const { words } of readings) {
    const rsync = words.some((word) => path.basename(word) === 'rsync')
    for (const word of words) {
      if (!/\/\.\/?$/.test(word) && !(rsync && word.length > 1 && word.endsWith('/'))) continue
      for (const base of bases) {
        for (const real of realPathsNamed(base, word, seen)) {
          if (!isFolderNow(real)) continue
          const top = dotEntries(real, budget)
          if (top === null) return false
          for (const entry of top) {
            resolved.push(entry)
            if (!isFolderNow(entry)) continue
            const inner = dotEntries(entry, budget, true)
            if (inner === null) return false
            resolved.push(...inner)
          }
        }
      }
    }
  }
  return true
}

/** The paths of the entries of `folder` whose names start with a dot (or
 *  all of them), null past `budget`. */
function dotEntries(folder: string, budget: { entries: number }, all = false): string[] | null {
  const out: string[] = []
  try {
    const dir = opendirSync(folder)
    try {
      for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
        if ((budget.entries -= 1) < 0) return null
        if (all || entry.name.startsWith('.')) out.push(path.join(folder, entry.name))
      }
    } finally {
      dir.closeSync()
    }
  } catch {
    // A folder that cannot be read brings nothing it can show.
    return out
  }
  return out
}

/** More pairs than this of a named folder and a relative path to judge
 *  from it: the action asks. */
const MAX_FOLDER_PAIRS = 2_048

/** More folders than this named by one action: it asks (each is another
 *  folder every relative path of the action is judged from). */
const MAX_NAMED_FOLDERS = 64

/** The existing folders among `resolved`; null when there are more than
 *  `MAX_NAMED_FOLDERS`. */
function namedFolders(resolved: readonly string[]): string[] | null {
  const folders = new Set<string>()
  for (const real of new Set(resolved)) {
    if (!isFolderNow(real)) continue
    folders.add(real)
    if (folders.size > MAX_NAMED_FOLDERS) return null
  }
  return [...folders]
}

/** Fields that hold text, never a place, for the tools Assent knows. */
const CONTENT = new Set(['content'])
const BUILT_IN_TEXT_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  write_file: CONTENT,
  [AGENT_FILE_CHANGE_TOOL]: new Set(['preview', 'agentDiff', 'sourceSha256', 'agent']),
  [AGENT_COMMAND_TOOL]: new Set(['agent']),
}
const FILESYSTEM_SERVER_TEXT_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  write_file: CONTENT,
  'write_file.preview': CONTENT,
}

function textFieldsOf(touch: ActionTouch): ReadonlySet<string> {
  const table =
    touch.mcpServerId === undefined
      ? BUILT_IN_TEXT_FIELDS
      : touch.mcpServerId === BUILT_IN_FILESYSTEM_SERVER_ID
        ? FILESYSTEM_SERVER_TEXT_FIELDS
        : {}
  return Object.hasOwn(table, touch.toolName) ? (table[touch.toolName] ?? NONE) : NONE
}
const NONE: ReadonlySet<string> = new Set()

/**
 * Whether any string of the action may be a line a shell reads: an MCP
 * server's tool other than Assent's own file server's, or an ACP agent's
 * own tool call. Which of its strings the server runs is its own: a
 * terminal server types one into a shell it started (Desktop Commander's
 * `interact_with_process { input }`), under a key no rule could list.
 */
function anyStringMayBeALine(touch: ActionTouch): boolean {
  return touch.mcpServerId === undefined
    ? touch.toolName === AGENT_TOOL_CALL_TOOL
    : touch.mcpServerId !== BUILT_IN_FILESYSTEM_SERVER_ID
}

function isAgentFileChange(touch: ActionTouch): boolean {
  return touch.mcpServerId === undefined && touch.toolName === AGENT_FILE_CHANGE_TOOL
}

/** The candidate paths an action names, and the globs among its command
 *  words; null when there are more than can be checked. */
function candidatePaths(
  touch: ActionTouch,
  readings: readonly ShellReading[],
): { candidates: string[]; globs: string[] } | null {
  const skip = textFieldsOf(touch)
  const out = new Set<string>()
  let tooMany = false
  // The words of each string as a shell would pass them on, where any
  // string may be a line a shell reads (`anyStringMayBeALine`).
  const lines: ShellReading[] = []
  const asLines = anyStringMayBeALine(touch)
  const add = (value: string) => {
    if (!tooMany && !addPathAndWords(value, out)) tooMany = true
    // Past the bound the action asks: its strings are not read again.
    if (asLines && !tooMany && out.size <= MAX_CHECKED_CANDIDATES) lines.push(readShell(value))
  }
  const visit = (value: unknown, depth: number): void => {
    if (tooMany || out.size > MAX_CHECKED_CANDIDATES) return
    if (typeof value === 'string') {
      add(value)
      return
    }
    if (typeof value !== 'object' || value === null) return
    if (depth >= MAX_ARGUMENT_DEPTH) {
      // Too deep to read: uncheckable, which makes it ask.
      tooMany = true
      return
    }
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1)
      return
    }
    for (const [key, inner] of Object.entries(value)) {
      if (depth === 0 && skip.has(key)) continue
      // An external agent's file changes: each change's own text fields.
      if (depth === 2 && isAgentFileChange(touch) && skip.has(key)) continue
      // A key can be a place too: a server's "write these files" tool may
      // take `{ files: { "<path>": "<content>" } }`.
      add(key)
      visit(inner, depth + 1)
    }
  }
  visit(touch.arguments, 0)
  if (tooMany || out.size > MAX_CHECKED_CANDIDATES) return null
  // A command's words as the shell passes them (and those of any string
  // a shell may read: `anyStringMayBeALine`), each with the names its
  // braces and `~` make, split further where a program may (`--out=x`,
  // `src:.git/hooks`), and each part with its glued option value
  // (`-o.git/config`).
  const globs = new Set<string>()
  for (const { words } of [...readings, ...lines]) {
    for (const word of words) {
      const spellings = wordSpellings(word)
      if (spellings === null) return null
      for (const name of [word, ...spellings]) {
        out.add(name)
        if (!addParts(name, out)) return null
        if (hasGlob(name)) globs.add(name)
      }
    }
  }
  if (tooMany || out.size > MAX_CHECKED_CANDIDATES) return null
  return { candidates: [...out], globs: [...globs] }
}

/** How many folder entries the globs of one action may read; past it the
 *  action asks. */
const MAX_GLOB_ENTRIES = 4_096

/**
 * The first of `resolved` that is another name (a hard link) of a file
 * only a person may change: writing it writes the hook or the start-up
 * file too, and reading it reads the key, under an innocent name. A file's
 * other names cannot be found from one of them, so the files of the
 * person-only table are looked at instead, by device and inode: what the
 * walk of each folder finds (`.git` and the rest), the person-only files
 * at the home folder's top, and the files in the person's credential
 * folders (`homeCredentialFiles`), read up to `MAX_PERSON_ONLY_ENTRIES`
 * with git's objects, caches and logs left out. Only an action naming a
 * file with more than one name pays for that (pnpm's packages and cargo's
 * binaries are such files, and no hook). Past the bound, any such file
 * asks.
 */
export function hardLinkedIn(
  resolved: readonly string[],
  folders: readonly string[],
): string | null {
  const linked = [...new Set(resolved)].filter((real) => {
    const stats = lstatQuietly(real)
    return stats !== null && stats.isFile() && stats.nlink > 1
  })
  if (linked.length === 0) return null
  const protectedFiles = personOnlyFileIdentities(folders)
  for (const real of linked) {
    const stats = lstatQuietly(real)
    if (stats === null) continue
    if (protectedFiles === null || protectedFiles.has(`${stats.dev}:${stats.ino}`)) return real
  }
  return null
}

/** Device and inode of every file of the person-only table in `folders`,
 *  at the home folder's top and in its credential folders; null when the
 *  table's folders cannot all be read (past `MAX_PERSON_ONLY_ENTRIES`, or
 *  one unlistable). */
function personOnlyFileIdentities(folders: readonly string[]): Set<string> | null {
  const identities = new Set<string>()
  const places: string[] = []
  for (const folder of folders) {
    const walked = personOnlyPathsIn(folder)
    if (walked.truncated) return null
    places.push(...walked.paths, ...walked.elsewhere)
  }
  for (const { stats } of homeTopPersonOnlyFiles()) identities.add(`${stats.dev}:${stats.ino}`)
  const table = personOnlyFiles(places, NOT_COMPARED_NAMES)
  if (table.unlistable !== null || table.tooMany !== null) return null
  const credentials = homeCredentialFiles()
  if (credentials.tooMany !== null) return null
  for (const { stats } of [...table.files, ...credentials.files]) {
    identities.add(`${stats.dev}:${stats.ino}`)
  }
  return identities
}

function lstatQuietly(real: string): Stats | null {
  try {
    return lstatOfTheMoment(real) ?? null
  } catch {
    return null
  }
}

/** The person-only reason of an action that names more paths than can be
 *  checked. */
export function tooManyPaths(touch: Pick<ActionTouch, 'toolName'>): PersonOnly {
  return {
    path: touch.toolName,
    class: 'too-many-paths',
    reason: `the action names more than ${MAX_CHECKED_CANDIDATES} paths, more than can be checked`,
  }
}

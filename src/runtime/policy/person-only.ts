import { lstatSync, readdirSync, statSync, type Stats } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import { AGENT_COMMAND_TOOL, AGENT_FILE_CHANGE_TOOL } from '../../contracts/agent-request.ts'
import type { CommandContainment } from '../../contracts/command-containment.ts'
import { BUILT_IN_FILESYSTEM_SERVER_ID } from '../../contracts/mcp-config.ts'
import {
  message,
  type RuntimeMessage,
  type RuntimeMessageCode,
} from '../../contracts/runtime-message.ts'
import { realPathAllowingMissing, type RealPathsSeen } from './git-hooks-folder.ts'
import { inGitPlacesOf } from './git-places-touched.ts'
import { ASSENT_OWN_WHY, assentOwnPathIn } from './assent-own-paths.ts'
import type { SensitiveClass } from './sensitive-path-rules.ts'
import { sensitivePath } from './sensitive-paths.ts'
import { addPathAndWords, WORD_SEPARATORS } from './argument-spellings.ts'
import { baseFolders, commandsOf, MAX_ARGUMENT_DEPTH } from './command-lines.ts'
import {
  personOnlyPathsIn,
  personOnlyPathsInRoots,
  READ_ONLY_WALK_ENTRIES,
} from './read-only-walk.ts'
import { commandFinding, readCommandLines } from './shell-commands.ts'
import { globMatches, hasGlob } from './shell-glob.ts'
import { wordSpellings, type ShellReading } from './shell-words.ts'

/**
 * "Needs a person every time": the one rule every door that allows without
 * a person applies, at the moment of use. The doors are each grant kind
 * (a built-in tool, command or path grant; an MCP tool or MCP server
 * grant; an external agent's command or file grant), the approve-for-me
 * reviewer and the approver webhook; the command sandbox keeps the same
 * paths read-only inside the workspace (`personOnlyPathsIn`). A door that
 * finds a reason here leaves the action to the person in the protected
 * window. What the rule covers is the table in sensitive-path-rules.ts.
 */

/** One action as a door sees it. */
export interface ActionTouch {
  /** A built-in tool (`write_file`), an external agent's request
   *  (`agent_command`), or an MCP server's own name for its tool. */
  toolName: string
  /** For an MCP call, the server it goes to. */
  mcpServerId?: string
  arguments: unknown
  /** The folder relative paths are taken from: the room's workspace. */
  workspace: string
  /** For an MCP call on a server Assent started, the folder the server
   *  works in: its relative paths are taken from there as well. */
  serverFolder?: string | undefined
  /** Real paths a sandbox check already resolved for the call. */
  resolvedPaths?: readonly string[]
  /** For Assent's own command, every folder its sandbox lets it write
   *  (the workspace and any the turn widened), as the person is shown
   *  them; the workspace alone when not given. */
  writableRoots?: readonly string[]
}

/** Why an action needs a person: a class of the table, or what a command
 *  does that no path of it shows. */
export type PersonOnlyClass =
  | SensitiveClass
  | 'assent-own'
  | 'built-at-run-time'
  | 'git-settings'
  | 'unwalked'
  | 'unlistable'
  | 'hard-linked'
  | 'too-many-paths'

export interface PersonOnly {
  /** The path as found (an argument, a word of a command, or a real path),
   *  or the words of a command that need the person. */
  path: string
  class: PersonOnlyClass
  /** In English, finishing "<path>: …". */
  reason: string
}

/** More candidate paths than this in one action: the action asks. Checking
 *  each costs a realpath; an action built to be too costly to check is not
 *  one any door should answer for. */
export const MAX_CHECKED_CANDIDATES = 512

/**
 * Why this action needs a person, or null when a door may answer for it.
 *
 * Every path the action names is checked as written, as resolved against
 * the workspace (a link inside the workspace can lead to .git/hooks under
 * an innocent name), and as the sandbox resolved it. Which arguments name
 * paths: for Assent's own tools and external agents' requests, the fields
 * that do (a file's content and a diff are text, not places); for an MCP
 * tool Assent does not know, every string in its arguments, as a whole and
 * word by word, since any of them may be a path the server acts on.
 * Commands are read word by word too (`cp x .git/hooks/pre-commit`).
 *
 * Fails closed: an action with more candidates than can be checked asks.
 */
export function personOnlyReason(touch: ActionTouch): PersonOnly | null {
  const commands = commandsOf(touch)
  const readings = readCommandLines(commands.lines)
  const command = commandReason(touch, readings)
  if (command !== null) return command
  const named = namedPaths(touch, commands, readings)
  if (named === null) return tooManyPaths(touch)
  const { candidates, resolved, seen } = named
  for (const candidate of [...candidates, ...resolved]) {
    const finding = sensitivePath(candidate)
    if (finding) return { path: candidate, class: finding.class, reason: finding.reason }
  }
  const own = assentOwnPathIn(resolved)
  if (own !== null) return { path: own, class: 'assent-own', reason: ASSENT_OWN_WHY }
  const linked = hardLinkedIn(resolved, [
    ...new Set([touch.workspace, touch.serverFolder ?? touch.workspace]),
  ])
  if (linked !== null) {
    return {
      path: linked,
      class: 'hard-linked',
      reason:
        'it has other names (hard links), any of which may be a file only a person may change, such as a git hook',
    }
  }
  // A server started in the workspace itself (the usual case) has one
  // folder, not two: its repositories are read once. A real path found
  // twice (as written and as the sandbox resolved it) is looked at once.
  const folders = new Set([touch.workspace, touch.serverFolder ?? touch.workspace])
  // Assent's own write tool names the one file it writes in a field of
  // its own, never a word. (An external agent's file change is read whole,
  // words and all: its `kind` of change may be `update`.)
  const namesFiles = touch.mcpServerId === undefined && touch.toolName === 'write_file'
  return inGitPlacesOf([...folders], [...new Set(resolved)], seen, namesFiles)
}

/** The person-only reason of an action that names more paths than can be
 *  checked. */
function tooManyPaths(touch: ActionTouch): PersonOnly {
  return {
    path: touch.toolName,
    class: 'too-many-paths',
    reason: `the action names more than ${MAX_CHECKED_CANDIDATES} paths, more than can be checked`,
  }
}

/**
 * The paths an action names (`candidatePaths`) and their real paths, each
 * taken from every folder relative paths are taken from, globs expanded;
 * null when there are more than can be checked.
 */
function namedPaths(
  touch: ActionTouch,
  commands: ReturnType<typeof commandsOf>,
  readings: readonly ShellReading[],
): { candidates: string[]; resolved: string[]; seen: RealPathsSeen } | null {
  const found = candidatePaths(touch, readings)
  if (found === null) return null
  const { candidates, globs } = found
  const resolved = [...(touch.resolvedPaths ?? [])]
  // Relative paths are taken from the workspace, and for a command from
  // its folder and every folder it `cd`s to as well.
  const bases = baseFolders(touch, commands, readings)
  // What this judgment looked up: the paths it names share their folders.
  const seen: RealPathsSeen = new Map()
  for (const candidate of candidates) {
    for (const base of bases) {
      const real = realPathAllowingMissing(path.resolve(base, candidate), seen)
      if (real !== null) resolved.push(real)
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
      const real = realPathAllowingMissing(path.resolve(folder, candidate), seen)
      if (real !== null) resolved.push(real)
    }
  }
  return { candidates, resolved, seen }
}

/**
 * The first of `resolved` that is another name (a hard link) of a file
 * only a person may change: writing it writes the hook or the start-up
 * file too, under an innocent name. A file's other names cannot be found
 * from one of them, so the files of the person-only table are looked at
 * instead, by device and inode: what the walk of each folder finds
 * (`.git` and the rest, their files read up to `MAX_LINKED_FILES`, git's
 * objects left out), and the person-only files at the home folder's top
 * (not its person-only folders). Only an
 * action naming a file with more than one name pays for that (pnpm's
 * packages and cargo's binaries are such files, and no hook). Past the
 * bound, any such file asks.
 */
function hardLinkedIn(resolved: readonly string[], folders: readonly string[]): string | null {
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

/** How many entries of the person-only table's folders are read for
 *  their files' identities; past it, every hard link asks. */
const MAX_LINKED_FILES = 4_000

/** Device and inode of every file of the person-only table in `folders`
 *  and at the home folder's top; null past `MAX_LINKED_FILES`. */
function personOnlyFileIdentities(folders: readonly string[]): Set<string> | null {
  const identities = new Set<string>()
  const places: string[] = []
  for (const folder of folders) {
    const walked = personOnlyPathsIn(folder)
    if (walked.truncated) return null
    places.push(...walked.paths, ...walked.elsewhere)
  }
  // The home folder's own files only (`.bashrc`, `.gitconfig`): its
  // person-only folders (an interpreter's versions, a browser profile)
  // can be large, and hold no file an agent's workspace links to.
  const home = homedir()
  for (const name of readdirQuietly(home)) {
    if (sensitivePath(name) === null) continue
    const stats = lstatQuietly(path.join(home, name))
    if (stats?.isFile() === true) identities.add(`${stats.dev}:${stats.ino}`)
  }
  let budget = MAX_LINKED_FILES
  while (places.length > 0) {
    const place = places.pop() ?? ''
    const stats = lstatQuietly(place)
    if (stats === null) continue
    if (stats.isFile()) identities.add(`${stats.dev}:${stats.ino}`)
    if (!stats.isDirectory()) continue
    for (const name of readdirQuietly(place)) {
      budget -= 1
      if (budget < 0) return null
      // Git's objects run nothing, and a large repository has many.
      if (name !== 'objects') places.push(path.join(place, name))
    }
  }
  return identities
}

function lstatQuietly(real: string): Stats | null {
  try {
    return lstatSync(real, { throwIfNoEntry: false }) ?? null
  } catch {
    return null
  }
}

function readdirQuietly(folder: string): string[] {
  try {
    return readdirSync(folder)
  } catch {
    return []
  }
}

/** Whether `real` is a folder now; a name too long or unreadable is not
 *  one (it is still judged as a path). */
function isFolder(real: string): boolean {
  try {
    return statSync(real, { throwIfNoEntry: false })?.isDirectory() === true
  } catch {
    return false
  }
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
    if (!isFolder(real)) continue
    folders.add(real)
    if (folders.size > MAX_NAMED_FOLDERS) return null
  }
  return [...folders]
}

/**
 * Whether the action names one of Assent's own files (assent-own-paths.ts),
 * without the rest of the judgment: an MCP call that does is refused
 * outright, since the gateway's own config is known only to the gateway,
 * and the runtime's grants could not leave it to the person. An action
 * naming more paths than can be checked is left to `personOnlyReason`,
 * which has every door ask.
 */
export function assentOwnNamedBy(touch: ActionTouch): PersonOnly | null {
  const commands = commandsOf(touch)
  const named = namedPaths(touch, commands, readCommandLines(commands.lines))
  const own = named === null ? null : assentOwnPathIn(named.resolved)
  return own === null ? null : { path: own, class: 'assent-own', reason: ASSENT_OWN_WHY }
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
  const add = (value: string) => {
    if (!tooMany && !addPathAndWords(value, out)) tooMany = true
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
  // A command's words as the shell passes them, each with the names its
  // braces and `~` make, split further where a program may (`--out=x`,
  // `src:.git/hooks`).
  const globs = new Set<string>()
  for (const { words } of readings) {
    for (const word of words) {
      const spellings = wordSpellings(word)
      if (spellings === null) return null
      for (const name of [word, ...spellings]) {
        out.add(name)
        for (const part of name.split(WORD_SEPARATORS)) if (part !== '') out.add(part)
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
 * What a command does that no path of it shows (shell-words.ts): a name
 * built only when it runs (`$(…)`, `${X:-.git}`, `eval`), which no rule
 * can read, or a change to what git runs (`git config`, `git -c`,
 * `GIT_CONFIG_*`); and for Assent's own command, a workspace too large
 * for its sandbox's walk. Null when there is none.
 */
function commandReason(touch: ActionTouch, readings: readonly ShellReading[]): PersonOnly | null {
  if (readings.length === 0) return null
  // Assent's own command runs in the sandbox, which keeps read-only what
  // its walk of the workspace found: in a workspace too large to walk
  // whole, what lies past the walk is not, and no door may answer for
  // that. (An external agent's command is not run in Assent's sandbox.)
  if (touch.toolName === 'run_command' && touch.mcpServerId === undefined) {
    const walked = personOnlyPathsInRoots(touch.writableRoots ?? [touch.workspace])
    if (walked.truncated !== null) {
      return {
        path: walked.truncated,
        class: 'unwalked',
        reason: `it holds more than ${READ_ONLY_WALK_ENTRIES} entries, more than the sandbox checks for git folders and files that run code`,
      }
    }
    // A folder in it whose entries cannot be read: what it holds is not
    // kept read-only, and git may still go in (`chmod 111` takes a
    // listing away, not the way in).
    const [unlistable] = walked.unlistable
    if (unlistable !== undefined) {
      return {
        path: unlistable,
        class: 'unlistable',
        reason:
          'its entries cannot be read, so the sandbox cannot check it for git folders and files that run code',
      }
    }
    // A folder the command may write that is a git folder or lies in one
    // (a workspace in `.git`, or in a bare repository): the sandbox can
    // keep nothing in it read-only but the whole folder.
    if (walked.inGitFolder !== null) {
      return {
        path: walked.inGitFolder,
        class: 'git',
        reason:
          'it is in a git folder, whose config and hooks git runs; the sandbox would let the command change them',
      }
    }
  }
  const finding = commandFinding(readings)
  if (finding === null) return null
  return finding.kind === 'built-at-run-time'
    ? {
        path: finding.what,
        class: 'built-at-run-time',
        reason: 'the command builds what it touches only when it runs, which cannot be checked',
      }
    : {
        path: finding.what,
        class: 'git-settings',
        reason: 'it changes what git runs (its settings)',
      }
}

/**
 * The grant `find` gives, unless the action needs a person: the one way
 * each door honours a grant of any kind, at the moment of use, so a grant
 * made before a file became person-only (or made for a tool, a server or
 * a command that later names one) never answers for it. The grant is
 * looked up first: most actions have none, and then there is nothing to
 * judge (the rule reads the file system, the lookup one indexed query);
 * either way no grant answers for an action the rule leaves to the person.
 */
export function grantThatMayAnswer<G>(
  touch: ActionTouch,
  find: () => G | undefined,
): G | undefined {
  const grant = find()
  if (grant === undefined) return undefined
  return personOnlyReason(touch) === null ? grant : undefined
}

/** The touch of a stored approval: its tool, arguments and folder, and
 *  for a contained command every folder it may write, as shown. */
export function touchOfApproval(
  approval: {
    toolName: string
    arguments: unknown
    workingDirectory: string
    mcp?: { serverId: string; serverFolder?: string | undefined } | undefined
    containment?: CommandContainment | undefined
  },
  workspace: string = approval.workingDirectory,
): ActionTouch {
  const containment = approval.containment
  return {
    toolName: approval.toolName,
    ...(approval.mcp ? { mcpServerId: approval.mcp.serverId } : {}),
    ...(approval.mcp?.serverFolder === undefined
      ? {}
      : { serverFolder: approval.mcp.serverFolder }),
    arguments: approval.arguments,
    workspace,
    ...(containment?.contained === true ? { writableRoots: containment.writableRoots } : {}),
  }
}

/** The reason as a message code, for the person's language. */
export function personOnlyMessage(found: PersonOnly): RuntimeMessage {
  return message(PERSON_ONLY_CODES[found.class], { path: found.path })
}

const PERSON_ONLY_CODES = {
  credentials: 'personOnly.credentials',
  'shell-startup': 'personOnly.shellStartup',
  git: 'personOnly.git',
  'runs-later': 'personOnly.runsLater',
  'built-at-run-time': 'personOnly.builtAtRunTime',
  'git-settings': 'personOnly.gitSettings',
  unwalked: 'personOnly.unwalked',
  unlistable: 'personOnly.unlistable',
  'hard-linked': 'personOnly.hardLinked',
  'too-many-paths': 'personOnly.tooManyPaths',
  'assent-own': 'personOnly.assentOwn',
} as const satisfies Record<PersonOnlyClass, RuntimeMessageCode>

/** The touch of an MCP call on `serverId`, run for `workspace` by a server
 *  working in `serverFolder` when Assent started it. */
export function mcpTouch(
  call: {
    serverId: string
    toolName: string
    arguments: unknown
    serverFolder?: string | undefined
  },
  workspace: string,
): ActionTouch {
  return {
    toolName: call.toolName,
    mcpServerId: call.serverId,
    arguments: call.arguments,
    workspace,
    ...(call.serverFolder === undefined ? {} : { serverFolder: call.serverFolder }),
  }
}

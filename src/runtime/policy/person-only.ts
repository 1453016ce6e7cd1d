import { readdirSync, realpathSync, type Dirent } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { AGENT_COMMAND_TOOL, AGENT_FILE_CHANGE_TOOL } from '../../contracts/agent-request.ts'
import { BUILT_IN_FILESYSTEM_SERVER_ID } from '../../contracts/mcp-config.ts'
import {
  message,
  type RuntimeMessage,
  type RuntimeMessageCode,
} from '../../contracts/runtime-message.ts'
import { gitPlacesOf, realPathAllowingMissing, type GitPlaces } from './git-hooks-folder.ts'
import { isInsideRoot } from './path-containment.ts'
import { sensitivePath, type SensitiveClass } from './sensitive-paths.ts'
import {
  builtAtRunTime,
  changesGitSettings,
  globMatches,
  hasGlob,
  shellSpellings,
} from './shell-words.ts'

/**
 * "Needs a person every time": the one rule every door that allows without
 * a person applies, at the moment of use. The doors are each grant kind
 * (a built-in tool, command or path grant; an MCP tool or MCP server
 * grant; an external agent's command or file grant), the approve-for-me
 * reviewer and the approver webhook; the command sandbox keeps the same
 * paths read-only inside the workspace (`personOnlyPathsIn`). A door that
 * finds a reason here leaves the action to the person in the protected
 * window. What the rule covers is the table in sensitive-paths.ts.
 */

/** One action as a door sees it. */
export interface ActionTouch {
  /** A built-in tool (`write_file`), an external agent's request
   *  (`agent_command`), or an MCP server's own name for its tool. */
  toolName: string
  /** For an MCP call, the server it goes to. */
  mcpServerId?: string
  arguments: unknown
  /** The folder relative paths are taken from: the room's workspace, or
   *  for an MCP call, the folder its server works in. */
  workspace: string
  /** Real paths a sandbox check already resolved for the call. */
  resolvedPaths?: readonly string[]
}

/** Why an action needs a person: a class of the table, or what a command
 *  does that no path of it shows. */
export type PersonOnlyClass = SensitiveClass | 'built-at-run-time' | 'git-settings' | 'unwalked'

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
  const command = commandReason(touch)
  if (command !== null) return command
  const candidates = candidatePaths(touch)
  const tooMany: PersonOnly = {
    path: touch.toolName,
    class: 'runs-later',
    reason: `the action names more than ${MAX_CHECKED_CANDIDATES} paths, more than can be checked`,
  }
  if (candidates.length > MAX_CHECKED_CANDIDATES) return tooMany
  const git = gitPlacesOf(touch.workspace)
  const resolved = [...(touch.resolvedPaths ?? [])]
  const globBudget = { entries: MAX_GLOB_ENTRIES }
  for (const candidate of candidates) {
    const real = realPathAllowingMissing(path.resolve(touch.workspace, candidate))
    if (real !== null) resolved.push(real)
    // A glob names what it matches when the shell expands it (`.gi?` is
    // `.git`): each match is judged too.
    if (!hasGlob(candidate)) continue
    const matches = globMatches(candidate, touch.workspace, globBudget)
    if (matches === null) return tooMany
    for (const match of matches) {
      const matched = realPathAllowingMissing(match)
      if (matched !== null) resolved.push(matched)
    }
  }
  for (const candidate of [...candidates, ...resolved]) {
    const finding = sensitivePath(candidate)
    if (finding) return { path: candidate, class: finding.class, reason: finding.reason }
  }
  return git === null ? null : inGitPlaces(git, resolved)
}

/** The first of `resolved` (real paths) that is one of git's places
 *  inside the repository git finds, with why; null if none is. */
function inGitPlaces(git: GitPlaces, resolved: readonly string[]): PersonOnly | null {
  const { gitFolder, hooksFolder, configFiles } = git
  const places: Array<[(real: string) => boolean, string]> = [
    // Named `.git`, the table has it already; under another name (a
    // `.git` file's `gitdir:`), only this finds it.
    [(real) => isInsideRoot(gitFolder, real), "it is in the repository's git folder"],
    [
      (real) => hooksFolder !== null && isInsideRoot(hooksFolder, real),
      'git runs the hooks in it (core.hooksPath)',
    ],
    [(real) => configFiles.includes(real), 'git reads it as configuration (an include)'],
  ]
  for (const [holds, reason] of places) {
    const found = resolved.find(holds)
    if (found !== undefined) return { path: found, class: 'git', reason }
  }
  return null
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

/** How deep into an argument object the search goes; deeper asks. */
const MAX_DEPTH = 16

function candidatePaths(touch: ActionTouch): string[] {
  const skip = textFieldsOf(touch)
  const out: string[] = []
  const visit = (value: unknown, depth: number): void => {
    if (out.length > MAX_CHECKED_CANDIDATES) return
    if (typeof value === 'string') {
      addPathAndWords(value, out)
      return
    }
    if (typeof value !== 'object' || value === null) return
    if (depth >= MAX_DEPTH) {
      // Too deep to read: count it as uncheckable, which makes it ask.
      out.length = MAX_CHECKED_CANDIDATES + 1
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
      addPathAndWords(key, out)
      visit(inner, depth + 1)
    }
  }
  visit(touch.arguments, 0)
  return out
}

/** How many folder entries the globs of one action may read; past it the
 *  action asks. */
const MAX_GLOB_ENTRIES = 4_096

/** Splits a command line or free text into the words that may be paths:
 *  on white space, quotes, shell operators, `=` (`--out=.git/x`) and `:`
 *  (`src:.git/hooks`, a mount or a copy's `host:path`). */
const WORD_SEPARATORS = /[\s'"`;|&<>()=,:]+/

/**
 * What a command does that no path of it shows: a name built only when it
 * runs (`$(…)`, backquotes, `$'…'`, `eval`), which no rule can read, or a
 * change to what git runs (`git config`, `git -c`, `GIT_CONFIG_*`). For
 * Assent's `run_command` and an external agent's command; null otherwise.
 */
function commandReason(touch: ActionTouch): PersonOnly | null {
  const line = commandLineOf(touch)
  if (line === null) return null
  // Assent's own command runs in the sandbox, which keeps read-only what
  // its walk of the workspace found: in a workspace too large to walk
  // whole, what lies past the walk is not, and no door may answer for
  // that. (An external agent's command is not run in Assent's sandbox.)
  if (touch.toolName === 'run_command' && personOnlyPathsIn(touch.workspace).truncated) {
    return {
      path: touch.workspace,
      class: 'unwalked',
      reason: `the workspace holds more than ${READ_ONLY_WALK_ENTRIES} entries, more than the sandbox checks for git folders and files that run code`,
    }
  }
  const built = builtAtRunTime(line)
  if (built !== null) {
    return {
      path: built,
      class: 'built-at-run-time',
      reason: 'the command builds what it touches only when it runs, which cannot be checked',
    }
  }
  const words = line
    .replace(/["'\\]/g, '')
    .replace(/([;&|()])/g, ' $1 ')
    .split(/\s+/)
    .filter((word) => word !== '')
  const git = changesGitSettings(words)
  if (git === null) return null
  return { path: git, class: 'git-settings', reason: 'it changes what git runs (its settings)' }
}

/** The command line of Assent's `run_command` or an external agent's
 *  command (as the agent asked, or as the reviewer is shown it: its argv
 *  alone); null for any other action. */
function commandLineOf(touch: ActionTouch): string | null {
  if (touch.mcpServerId !== undefined) return null
  if (touch.toolName !== AGENT_COMMAND_TOOL && touch.toolName !== 'run_command') return null
  const args = (touch.arguments ?? {}) as { argv?: unknown; commandLine?: unknown }
  if (typeof args.commandLine === 'string') return args.commandLine
  if (!Array.isArray(args.argv)) return null
  return args.argv.filter((word) => typeof word === 'string').join(' ')
}

/** How many times a percent-encoded string is decoded again: a value
 *  encoded twice (`%252e`) is read as a server that decodes twice would. */
const MAX_DECODINGS = 3

function addPathAndWords(value: string, out: string[], decodings = 0): void {
  if (value === '') return
  if (value.includes('\0')) {
    // No path holds a NUL, but a server may stop reading at one, or drop
    // it: each part, and the whole without them, is checked.
    for (const part of [...value.split('\0'), value.replaceAll('\0', '')]) {
      addPathAndWords(part, out, decodings)
    }
    return
  }
  out.push(value)
  // A file: URI (an MCP resource, or any argument written as one) names
  // the path it points to, whatever its host and however it is escaped.
  const filePath = pathOfFileUri(value)
  if (filePath !== null) out.push(filePath)
  const words = value.split(WORD_SEPARATORS).filter((word) => word !== '')
  if (words.length > 1 || words[0] !== value) {
    for (const word of words) out.push(word)
  }
  // What a shell would make of it: quotes and backslashes dropped, braces
  // expanded (`.g""it`, `{.git,x}`, `.g{i,}t` are `.git`).
  const spellings = shellSpellings(value)
  if (spellings === null) {
    out.length = MAX_CHECKED_CANDIDATES + 1
    return
  }
  for (const spelling of spellings) {
    out.push(spelling)
    for (const word of spelling.split(WORD_SEPARATORS)) if (word !== '') out.push(word)
  }
  // A server may decode percent-escapes in what it is given, a URI or a
  // plain path alike (`.git%2Fconfig`, `%2egit/config`): what it would
  // read is checked too. Checking more candidates can only make an action
  // ask, never let one through.
  const decoded = percentDecoded(value)
  if (decoded !== value && decodings < MAX_DECODINGS) addPathAndWords(decoded, out, decodings + 1)
}

/** The path a `file:` URI names, or null for anything else. `fileURLToPath`
 *  refuses a host other than localhost and an escaped `/`; the URI's path
 *  is still where a server that reads it would look, so it is taken
 *  decoded. A URI that does not parse at all is checked as written (and,
 *  decoded, by the caller). */
function pathOfFileUri(value: string): string | null {
  if (!/^file:/i.test(value)) return null
  try {
    return fileURLToPath(value)
  } catch {
    try {
      return percentDecoded(new URL(value).pathname)
    } catch {
      return null
    }
  }
}

/** `value` with every run of percent-escapes decoded as UTF-8; in a run
 *  that is not valid UTF-8, the ASCII escapes (`%2e`, `%2F`) are decoded
 *  and the rest left as written. */
function percentDecoded(value: string): string {
  if (!value.includes('%')) return value
  return value.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run)
    } catch {
      return run.replace(/%([0-7][0-9A-Fa-f])/g, (_escape, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      )
    }
  })
}

/** How many folder entries `personOnlyPathsIn` reads at most. */
export const READ_ONLY_WALK_ENTRIES = 20_000

/** Folders the walk does not go into: package managers' install folders,
 *  large, rebuilt at will, and never given a git folder of their own (a
 *  dependency from git is installed packed). A `.git` an agent makes in
 *  one is not one the person runs git in. */
const NOT_WALKED = new Set(['node_modules'])

/**
 * The paths inside `workspace` that the command sandbox keeps read-only:
 * every file or folder the table covers, found at any depth by a walk of
 * the workspace (a match is not descended into, nor `node_modules`), and
 * what git keeps and runs for the repository (`gitPlacesOf`). Real paths,
 * so the sandbox binds what is really there; links are not followed, so
 * the walk stays inside. `truncated` says the walk stopped at
 * `READ_ONLY_WALK_ENTRIES` entries: what lies past it is not kept
 * read-only, so a command in such a workspace always needs the person
 * (`personOnlyReason`), who is told why.
 */
export function personOnlyPathsIn(workspace: string): { paths: string[]; truncated: boolean } {
  let real: string
  try {
    real = realpathSync.native(workspace)
  } catch {
    return { paths: [], truncated: false }
  }
  const out = new Set<string>()
  let seen = 0
  let truncated = false
  let level: string[] = ['']
  while (level.length > 0 && !truncated) {
    const next: string[] = []
    for (const relative of level) {
      let entries: Dirent[]
      try {
        entries = readdirSync(path.join(real, relative), { withFileTypes: true })
      } catch {
        continue
      }
      seen += entries.length
      if (seen > READ_ONLY_WALK_ENTRIES) {
        truncated = true
        break
      }
      for (const entry of entries) {
        const child = relative === '' ? entry.name : path.join(relative, entry.name)
        if (sensitivePath(child) !== null) out.add(path.join(real, child))
        else if (entry.isDirectory() && !NOT_WALKED.has(entry.name)) next.push(child)
      }
    }
    level = next
  }
  const git = gitPlacesOf(real)
  if (git !== null) {
    const places = [git.gitFolder, git.hooksFolder, ...git.configFiles]
    for (const place of places) {
      if (place !== null && place !== real && isInsideRoot(real, place)) out.add(place)
    }
  }
  return { paths: [...out].sort(), truncated }
}

/**
 * The grant `find` gives, unless the action needs a person: the one way
 * each door honours a grant of any kind, at the moment of use, so a grant
 * made before a file became person-only (or made for a tool, a server or
 * a command that later names one) never answers for it.
 */
export function grantThatMayAnswer<G>(
  touch: ActionTouch,
  find: () => G | undefined,
): G | undefined {
  if (personOnlyReason(touch) !== null) return undefined
  return find()
}

/** The touch of a stored approval: its tool, arguments and folder. */
export function touchOfApproval(
  approval: {
    toolName: string
    arguments: unknown
    workingDirectory: string
    mcp?: { serverId: string } | undefined
  },
  workspace: string = approval.workingDirectory,
): ActionTouch {
  return {
    toolName: approval.toolName,
    ...(approval.mcp ? { mcpServerId: approval.mcp.serverId } : {}),
    arguments: approval.arguments,
    workspace,
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
} as const satisfies Record<PersonOnlyClass, RuntimeMessageCode>

/** The touch of an MCP call on `serverId`, run for `workspace`. */
export function mcpTouch(
  call: { serverId: string; toolName: string; arguments: unknown },
  workspace: string,
): ActionTouch {
  return {
    toolName: call.toolName,
    mcpServerId: call.serverId,
    arguments: call.arguments,
    workspace,
  }
}

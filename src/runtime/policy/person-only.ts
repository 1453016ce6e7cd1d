import { readdirSync, readFileSync, realpathSync, type Dirent } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { AGENT_COMMAND_TOOL, AGENT_FILE_CHANGE_TOOL } from '../../contracts/agent-request.ts'
import { BUILT_IN_FILESYSTEM_SERVER_ID } from '../../contracts/mcp-config.ts'
import {
  message,
  type RuntimeMessage,
  type RuntimeMessageCode,
} from '../../contracts/runtime-message.ts'
import { isInsideRoot } from './path-containment.ts'
import { sensitivePath, type SensitiveClass } from './sensitive-paths.ts'

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

export interface PersonOnly {
  /** The path as found (an argument, a word of a command, or a real path). */
  path: string
  class: SensitiveClass
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
  const candidates = candidatePaths(touch)
  if (candidates.length > MAX_CHECKED_CANDIDATES) {
    return {
      path: touch.toolName,
      class: 'runs-later',
      reason: `the action names more than ${MAX_CHECKED_CANDIDATES} paths, more than can be checked`,
    }
  }
  const hooks = hooksFolderOf(touch.workspace)
  const resolved = [...(touch.resolvedPaths ?? [])]
  for (const candidate of candidates) {
    const real = realPathAllowingMissing(path.resolve(touch.workspace, candidate))
    if (real !== null) resolved.push(real)
  }
  for (const candidate of [...candidates, ...resolved]) {
    const finding = sensitivePath(candidate)
    if (finding) return { path: candidate, class: finding.class, reason: finding.reason }
  }
  if (hooks !== null) {
    const inHooks = resolved.find((real) => isInsideRoot(hooks, real))
    if (inHooks !== undefined) {
      return {
        path: inHooks,
        class: 'git',
        reason: 'git runs the hooks in it (core.hooksPath)',
      }
    }
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
      visit(inner, depth + 1)
    }
  }
  visit(touch.arguments, 0)
  return out
}

/** Splits a command line or free text into the words that may be paths:
 *  on white space, quotes, shell operators and `=` (`--out=.git/x`). */
const WORD_SEPARATORS = /[\s'"`;|&<>()=,]+/

function addPathAndWords(value: string, out: string[]): void {
  if (value === '' || value.includes('\0')) return
  out.push(value)
  // A file: URI (an MCP resource, or any argument written as one) names
  // the path it points to; one that does not parse is checked as written.
  const filePath = pathOfFileUri(value)
  if (filePath !== null) out.push(filePath)
  const words = value.split(WORD_SEPARATORS).filter((word) => word !== '')
  if (words.length === 1 && words[0] === value) return
  for (const word of words) out.push(word)
}

function pathOfFileUri(value: string): string | null {
  if (!/^file:/i.test(value)) return null
  try {
    return fileURLToPath(value)
  } catch {
    return null
  }
}

/**
 * The real folder git runs hooks from when the workspace's repository sets
 * `core.hooksPath`, or null. The repository is the one git finds: the
 * nearest `.git` at the workspace or above it (a workspace may be a folder
 * inside a repository), read from its config (or the git folder a `.git`
 * file points to). A relative value is taken from the repository's top,
 * where git runs its hooks. A config that cannot be read names no folder:
 * the default hooks folder is inside .git, which the table covers anyway.
 */
function hooksFolderOf(workspace: string): string | null {
  const repository = repositoryOf(workspace)
  if (repository === null) return null
  let config: string
  try {
    config = readFileSync(path.join(repository.gitFolder, 'config'), 'utf8')
  } catch {
    return null
  }
  const value = coreHooksPath(config)
  if (value === null) return null
  const expanded = value.startsWith('~/') ? path.join(homeFolder(), value.slice(2)) : value
  return realPathAllowingMissing(path.resolve(repository.top, expanded))
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
  try {
    const pointer = readFileSync(dotGit, 'utf8')
    const gitdir = /^gitdir:\s*(.+?)\s*$/m.exec(pointer)?.[1]
    return gitdir === undefined ? null : path.resolve(top, gitdir)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // EISDIR: the usual case, a .git folder.
    if (code === 'EISDIR') return dotGit
    return code === 'ENOENT' || code === 'ENOTDIR' ? undefined : null
  }
}

/** `hooksPath` in the `[core]` section of a git config, or null, read as
 *  git reads it: keys and section names are case-insensitive, a key may
 *  follow its section header on the same line, and the value is read by
 *  `configValue`. Reading it otherwise would name a folder git does not
 *  use, and leave the one it does use to any door. */
export function coreHooksPath(config: string): string | null {
  let inCore = false
  let found: string | null = null
  for (const raw of config.split(/\r?\n/)) {
    let line = raw.trim()
    const section = /^\[\s*([^\]\s]+)[^\]]*\](.*)$/.exec(line)
    if (section) {
      inCore = section[1]?.toLowerCase() === 'core'
      line = (section[2] ?? '').trim()
    }
    if (!inCore) continue
    const entry = /^hookspath\s*=(.*)$/i.exec(line)
    const value = entry ? configValue(entry[1] ?? '') : ''
    if (value !== '') found = value
  }
  return found
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

/** How far `personOnlyPathsIn` looks below the workspace, and how many
 *  entries it reads at most. */
export const READ_ONLY_WALK_DEPTH = 3
export const READ_ONLY_WALK_ENTRIES = 4_000

/**
 * The paths inside `workspace` that the command sandbox keeps read-only:
 * every file or folder the table covers, found by a walk of the workspace
 * to `READ_ONLY_WALK_DEPTH` levels (a match is not descended into), and the
 * hooks folder git is told to use. Real paths, so the sandbox binds what
 * is really there; links are not followed, so the walk stays inside.
 * `truncated` says the walk stopped at `READ_ONLY_WALK_ENTRIES` entries.
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
  for (let depth = 0; depth < READ_ONLY_WALK_DEPTH && level.length > 0; depth += 1) {
    const next: string[] = []
    for (const relative of level) {
      let entries: Dirent[]
      try {
        entries = readdirSync(path.join(real, relative), { withFileTypes: true })
      } catch {
        continue
      }
      for (const entry of entries) {
        seen += 1
        if (seen > READ_ONLY_WALK_ENTRIES) {
          truncated = true
          break
        }
        const child = relative === '' ? entry.name : path.join(relative, entry.name)
        if (sensitivePath(child) !== null) out.add(path.join(real, child))
        else if (entry.isDirectory()) next.push(child)
      }
      if (truncated) break
    }
    if (truncated) break
    level = next
  }
  const hooks = hooksFolderOf(real)
  if (hooks !== null && isInsideRoot(real, hooks)) out.add(hooks)
  return { paths: [...out].sort(), truncated }
}

/** The real path of `absolute`, following links, with a missing tail
 *  appended as written; null if not even its folder resolves. */
function realPathAllowingMissing(absolute: string): string | null {
  let tail = ''
  let current = absolute
  for (let i = 0; i < 64; i += 1) {
    try {
      const real = realpathSync.native(current)
      return tail === '' ? real : path.join(real, tail)
    } catch {
      const parent = path.dirname(current)
      if (parent === current) return null
      tail = tail === '' ? path.basename(current) : path.join(path.basename(current), tail)
      current = parent
    }
  }
  return null
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
} as const satisfies Record<SensitiveClass, RuntimeMessageCode>

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

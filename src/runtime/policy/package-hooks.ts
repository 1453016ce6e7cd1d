import { lstatSync } from 'node:fs'
import path from 'node:path'
import { AGENT_FILE_CHANGE_TOOL } from '../../contracts/agent-request.ts'
import { BUILT_IN_FILESYSTEM_SERVER_ID } from '../../contracts/mcp-config.ts'
import type { ActionTouch, PersonOnly } from './person-only.ts'
import { gitPlacesOf } from './git-hooks-folder.ts'
import { realPathAllowingMissing } from './real-paths.ts'
import { SettledFileCache } from './settled-file-cache.ts'
import { packageScriptsRun } from './tool-config-programs.ts'

// Hook managers that keep what they run at the person's `git commit` in a
// package's `package.json`, beside what an agent changes every day (its
// dependencies, its scripts): husky before v5 (`"husky": { "hooks": … }`),
// simple-git-hooks, yorkie (`"gitHooks"`), the `pre-commit` and
// `pre-push` packages (a list of the package's scripts to run), ghooks
// and pre-git (under `"config"`), and the tools such a hook calls that run
// what their config says for the staged files (lint-staged, nano-staged)
// or load it as code (commitlint). Holding all of `package.json` as the
// person's would ask about every dependency the agent adds; holding none
// would let a grant rewrite what runs at the next commit. The line: a
// change to the part of a `package.json` these keys make (their values,
// and the package scripts those values name, as `npm run lint` or the
// `pre-commit` package's `["lint"]` runs them) is the person's, and so is
// a change to a script a hook or a tool's config elsewhere runs by name
// (`npm test` in `.husky/pre-commit`, as husky's own set-up writes it;
// tool-config-programs.ts `packageScriptsRun`); any other change stays the
// agent's.

/** The keys at a package.json's top that hold what runs at a git event. */
const TOP_KEYS = [
  'husky',
  'simple-git-hooks',
  'gitHooks',
  'pre-commit',
  'precommit',
  'pre-push',
  'prepush',
  'lint-staged',
  'nano-staged',
  'commitlint',
  'ghooks',
]

/** Why a change to such a part needs the person, finishing "<path>: …". */
const HOOK_KEYS_WHY =
  'it says what hooks run at the next git commit (husky, simple-git-hooks, lint-staged and the like, and the scripts they name), which the change may alter'

/** The same, under the package's `"config"`. */
const CONFIG_KEYS = ['ghooks', 'pre-git']

/** What stands for a package.json that cannot be read as JSON but may
 *  carry one of the keys: its hook part is unknown. */
const UNREADABLE = '\0unreadable'

/** A package.json as read: its object, `UNREADABLE`, or `none` for text
 *  that is no JSON object and names no key. */
type Parsed = Record<string, unknown> | typeof UNREADABLE | 'none'

const NO_NAMES: ReadonlySet<string> = new Set()

function parsePackage(text: string): Parsed {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = undefined
  }
  if (isObject(parsed)) return parsed
  const quoted = [...TOP_KEYS, ...CONFIG_KEYS].some((key) => text.includes(`"${key}"`))
  return quoted ? UNREADABLE : 'none'
}

/**
 * The part of a package.json's text that hooks run, as one string to
 * compare: the keys' values and every script of the package they name,
 * by the script's name as a word of them (and the scripts those scripts
 * name in turn). Empty when it carries none. Text that is no JSON object
 * carries none unless a key's name stands in it, quoted: then its part is
 * unknown (`UNREADABLE`), and a change to it is the person's.
 */
export function packageHookPart(text: string, hooked: ReadonlySet<string> = NO_NAMES): string {
  return partOf(parsePackage(text), hooked)
}

function partOf(parsed: Parsed, hooked: ReadonlySet<string>): string {
  if (parsed === 'none') return ''
  if (parsed === UNREADABLE) return UNREADABLE
  const config = isObject(parsed['config']) ? parsed['config'] : {}
  const part: Record<string, unknown> = {}
  for (const key of TOP_KEYS) if (Object.hasOwn(parsed, key)) part[key] = parsed[key]
  for (const key of CONFIG_KEYS) if (Object.hasOwn(config, key)) part[`config.${key}`] = config[key]
  const scripts = isObject(parsed['scripts']) ? parsed['scripts'] : {}
  // The scripts a hook or a config elsewhere runs by name.
  const run = Object.keys(scripts).filter((name) => hooked.has(name))
  if (Object.keys(part).length === 0 && run.length === 0) return ''
  part['run by a hook'] = run
  const named: Record<string, unknown> = {}
  // Each script named by what is kept so far, until no new one is.
  for (let text = JSON.stringify(part), grew = true; grew;) {
    grew = false
    const words = new Set(text.split(/[^\w:.-]+/))
    for (const [name, script] of Object.entries(scripts)) {
      if (Object.hasOwn(named, name) || !words.has(name)) continue
      named[name] = script
      text += ` ${JSON.stringify(script)}`
      grew = true
    }
  }
  return JSON.stringify([part, named])
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Each package.json as read, read again only when the file changes:
 *  the sandbox's walk looks at every one in the workspace. */
const PACKAGES_READ = new SettledFileCache(parsePackage)

/** The hook part of the package.json at `file` now: empty when it is not
 *  there, unknown (`UNREADABLE`) when it is but cannot be read. */
function hookPartNow(file: string, hooked: ReadonlySet<string>): string {
  const parsed = PACKAGES_READ.read(file)
  if (parsed !== null) return partOf(parsed, hooked)
  try {
    return lstatSync(file, { throwIfNoEntry: false }) === undefined ? '' : UNREADABLE
  } catch {
    return ''
  }
}

/** Whether `name` is a package's manifest, in any case (a file system
 *  that ignores case opens `Package.JSON` as `package.json`). */
export function isPackageManifest(name: string): boolean {
  return name.toLowerCase() === 'package.json'
}

/** Whether the package.json at `file` carries a key hooks run (or cannot
 *  be read, and may): the sandbox keeps such a file read-only. */
export function carriesPackageHooks(file: string, hooked: ReadonlySet<string>): boolean {
  return hookPartNow(file, hooked) !== ''
}

/** The text of a package.json's hook part that may name a file a hook
 *  runs (`"pre-commit": "./scripts/check.sh"`), for tool-config-programs.ts. */
export function packageHookText(text: string): string {
  const part = packageHookPart(text)
  return part === UNREADABLE ? text : part
}

/**
 * Why the action changes what a package.json's hooks run, or null. Of
 * Assent's write tool and the built-in file server's, the new text is
 * known: the change is the person's when its hook part differs from the
 * file's now. Of any other action (a command, an MCP tool, an external
 * agent's change, whose full new text is not known here), one naming a
 * package.json that carries such a key is the person's, and so is one
 * whose text names such a key (`mentionsHookKey`); any other is the
 * agent's, and what a command or an MCP tool adds is found after it as
 * what it made (made-person-only.ts: the walk counts a package.json that
 * carries one). The scripts hooks run by name are those of the
 * repository holding the package.json.
 */
export function packageHooksChanged(
  touch: ActionTouch,
  resolved: readonly string[],
): PersonOnly | null {
  for (const file of new Set(resolved)) {
    if (!isPackageManifest(path.basename(file))) continue
    const git = gitPlacesOf(path.dirname(file))
    const hooked = git === null ? NO_NAMES : packageScriptsRun(git)
    const now = hookPartNow(file, hooked)
    const written = newTextOf(touch)
    const changed =
      written === null
        ? now !== '' || mentionsHookKey(touch.arguments, hooked)
        : now !== packageHookPart(written, hooked)
    if (changed || now === UNREADABLE) {
      return {
        path: file,
        class: 'git',
        reason: HOOK_KEYS_WHY,
      }
    }
  }
  const moved = hooksMovedIn(touch)
  return moved === null ? null : { path: moved, class: 'git', reason: HOOK_KEYS_WHY }
}

/**
 * The package.json an external agent's file change moves another file
 * onto (or to, where there is none), by its name or through a link, when
 * the file moved carries a hook key or cannot be read and may: the
 * package.json's new text is that file's, which no field of the change
 * holds, and nothing walks the workspace after a file change to find what
 * it made. Null when there is none.
 */
function hooksMovedIn(touch: ActionTouch): string | null {
  if (touch.toolName !== AGENT_FILE_CHANGE_TOOL || touch.mcpServerId !== undefined) return null
  const args = touch.arguments
  const changes = isObject(args) && Array.isArray(args['changes']) ? args['changes'] : []
  for (const change of changes) {
    if (!isObject(change)) continue
    const { path: from, movePath } = change
    if (typeof from !== 'string' || typeof movePath !== 'string') continue
    // Where the move lands: the name given, and where a link there leads.
    const named = path.resolve(touch.workspace, movePath)
    const lands = [named, realPathAllowingMissing(named)]
    const target = lands.find(
      (each): each is string => each !== null && isPackageManifest(path.basename(each)),
    )
    if (target === undefined) continue
    const git = gitPlacesOf(path.dirname(target))
    const hooked = git === null ? NO_NAMES : packageScriptsRun(git)
    if (hookPartNow(path.resolve(touch.workspace, from), hooked) !== '') return target
  }
  return null
}

/**
 * Whether any text of the action names one of the keys, or a script a
 * hook runs, as a JSON key (`"simple-git-hooks":`, `"test":`): the lines
 * an external agent's diff adds, the content an MCP tool writes. Where
 * the whole new text is not known, a change that adds such a key to a
 * package.json carrying none is told by this; an external agent's file
 * change is judged only before it is made, with no walk after it.
 */
function mentionsHookKey(value: unknown, hooked: ReadonlySet<string>): boolean {
  const names = [...TOP_KEYS, ...CONFIG_KEYS, ...hooked].map((name) =>
    name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
  )
  const key = new RegExp(`"(?:${names.join('|')})"\\s*:`)
  // JSON lets a key stand apart from its colon, on a line of its own, and
  // spell any letter of it as an escape (`"simple\u002dgit-hooks"`), which
  // JSON.parse reads as the key: each string is read as written, with its
  // escapes read, and as the new side of a diff (its added and kept lines,
  // without their marks), so no spelling hides a key the new text holds.
  const seen = (inner: unknown, depth: number): boolean => {
    if (typeof inner === 'string') return spellingsOf(inner).some((text) => key.test(text))
    if (typeof inner !== 'object' || inner === null) return false
    // Deeper than any tool's arguments hold a file's text: asks.
    if (depth > 16) return true
    // A change as the window draws it holds a line a string: its new side
    // is read whole too, so a key and its colon on lines of their own are
    // read together.
    const side = newSideOfLines(inner)
    if (side !== null && spellingsOf(side).some((text) => key.test(text))) return true
    return Object.values(inner).some((each) => seen(each, depth + 1))
  }
  return seen(value, 0)
}

/** The lines of a hunk as the window draws it (`{ op, text }`, in
 *  file-change.ts), the ones it removes left out, as one text; null for
 *  anything else. */
function newSideOfLines(value: object): string | null {
  const lines = (value as { lines?: unknown }).lines
  if (!Array.isArray(lines)) return null
  return lines
    .filter(
      (line): line is { op: unknown; text: string } =>
        isObject(line) && typeof line['text'] === 'string',
    )
    .filter((line) => line.op !== 'remove')
    .map((line) => line.text)
    .join('\n')
}

/** `text` as written, with its JSON escapes read, and as the new side
 *  of a diff, escapes read too. */
function spellingsOf(text: string): string[] {
  const newSide = text
    .split(/\r?\n/)
    .filter((line) => !line.startsWith('-') && !line.startsWith('@@'))
    .map((line) => (line.startsWith('+') || line.startsWith(' ') ? line.slice(1) : line))
    .join('\n')
  return [text, newSide].flatMap((each) => [each, jsonEscapesRead(each)])
}

/** `text` with the escapes a JSON string may spell a letter with read
 *  (`\u002d` as `-`, `\/` as `/`); any other backslash is left as it is. */
function jsonEscapesRead(text: string): string {
  return text.replace(/\\(?:u([0-9a-fA-F]{4})|(\/))/g, (_all, hex?: string, slash?: string) =>
    hex === undefined ? (slash ?? '') : String.fromCharCode(Number.parseInt(hex, 16)),
  )
}

/** The whole new text of the one file the action writes, when the tool
 *  says it in a field of its own. */
function newTextOf(touch: ActionTouch): string | null {
  const own = touch.mcpServerId === undefined || touch.mcpServerId === BUILT_IN_FILESYSTEM_SERVER_ID
  if (!own || touch.toolName !== 'write_file') return null
  const args = touch.arguments
  return isObject(args) && typeof args['content'] === 'string' ? args['content'] : null
}

/** A package.json's scripts, by name; none when it cannot be read. */
export function packageScriptsOf(text: string): Record<string, unknown> {
  const parsed = parsePackage(text)
  return typeof parsed === 'object' && isObject(parsed['scripts']) ? parsed['scripts'] : {}
}

import path from 'node:path'
import {
  AGENT_FILE_CHANGE_TOOL,
  AGENT_TOOL_CALL_TOOL,
  type AgentFileChange,
} from '../../contracts/agent-request.ts'
import type { ApprovalRecord } from '../../contracts/approval.ts'
import { message, type RuntimeMessage } from '../../contracts/runtime-message.ts'
import { baseFolders, commandsOf, MAX_ARGUMENT_DEPTH } from './command-lines.ts'
import { inOneMoment, lstatOfTheMoment } from './judgment-moment.ts'
import { namesUnknownPlace } from './leading-expansion.ts'
import { namedPaths } from './named-paths.ts'
import type { ApprovalPolicy } from '../../contracts/policy-axes.ts'
import { grantsHonoured } from './approval-policy.ts'
import { grantThatMayAnswer, touchOfApproval, type ActionTouch } from './person-only.ts'
import { privateReadReason } from './read-reach.ts'
import { realPathAllowingMissing, realPathOf, type RealPathsSeen } from './real-paths.ts'
import { readCommandLines } from './shell-commands.ts'

// Whether an approval is a private read (read-reach.ts), whichever door
// opened it: the approval requester asks this before the approve-for-me
// reviewer or the approver webhook hears of an approval, so the rule
// holds for every door at once. It reads the stored action (what the
// deciders would be shown), never a door's own account of it.

/** The parts of a stored approval the rule reads. */
export type ApprovalAction = Pick<
  ApprovalRecord,
  'kind' | 'toolName' | 'arguments' | 'workingDirectory' | 'mcp' | 'containment'
>

/**
 * How an action may read, or null when it is no read:
 * - `tool`: a built-in read tool (`read_file`, `list_dir`), which reads
 *   exactly the places it names, each judged whole, by name too;
 * - `any-word`: an MCP call (a tool, a resource read, a prompt) or an
 *   external agent's own tool (an ACP `read` among them): Assent cannot
 *   know which of its strings the server or the agent reads, so each one,
 *   word by word as the person-only rule reads it, is a place it may read.
 * Commands, file changes and permission requests are shown as what they
 * do and are not reads: other rules hold them.
 */
function readingOf(action: ApprovalAction): 'tool' | 'any-word' | null {
  if (action.mcp !== undefined || action.toolName === AGENT_TOOL_CALL_TOOL) return 'any-word'
  return action.kind === 'read' ? 'tool' : null
}

/**
 * Why the approval is a private read, or null when no decider but the
 * person is kept from it: a place it names resolves outside the workspace
 * (and, for an MCP server Assent started, outside the server's own folder
 * where that folder could be a workspace and does not hold this one),
 * is one of Assent's own files, or has more than one name; for a built-in
 * read, a secret's name too. `resolvedByDoor` are the real paths the
 * door's sandbox check found, judged as well.
 *
 * Fails closed: an action naming more places than can be checked, or a
 * place that cannot be resolved, is private.
 */
export function privateReadOfApproval(
  action: ApprovalAction,
  workspace: string,
  resolvedByDoor: readonly string[] = [],
): string | null {
  const reading = readingOf(action)
  if (reading === null) return null
  return privateReadOfTouch(touchOfApproval(action, workspace), reading, resolvedByDoor)
}

/** The judgment `privateReadOfApproval` makes, on the action's touch. */
function privateReadOfTouch(
  touch: ActionTouch,
  reading: 'tool' | 'any-word',
  resolvedByDoor: readonly string[],
): string | null {
  const args = reading === 'any-word' ? withoutNetworkUrls(touch.arguments, 0) : touch.arguments
  const judged = { ...touch, arguments: args }
  const commands = commandsOf(judged)
  const readings = readCommandLines(commands.lines)
  const named = namedPaths(judged, commands, readings)
  if (named === null) return `${touch.toolName} names more places than can be checked`
  // `$PWD/../x` or `~bob/x` read as written is a folder of that name in
  // the workspace; what runs reads where the shell or the server says.
  const unknown = named.candidates.find(namesUnknownPlace)
  if (unknown !== undefined) return `${unknown} leads where only the shell or the server knows`
  const bases = baseFolders(judged, commands, readings)
  const unresolved = firstUnresolved(named.candidates, bases, named.seen)
  if (unresolved !== null) return `${unresolved} cannot be resolved`
  const globBases = reading === 'any-word' ? globBasesOf(named.candidates, bases) : []
  return privateReadReason({
    workspace: touch.workspace,
    // A server's relative paths mean its own folder, which mcp.json gave
    // it: reads there are the server's ordinary reads, where that folder
    // could be a workspace itself (read-reach.ts): a server started in
    // `/` or the home folder has no such place, and its reads there ask.
    alsoInside: touch.serverFolder === undefined ? [] : [touch.serverFolder],
    requested: named.candidates,
    resolved: [...resolvedByDoor, ...named.resolved, ...globBases],
    // A secret's name among an MCP call's words is the person-only rule's:
    // it keeps it from every decider, with its reason shown.
    secretNames: reading === 'tool',
    // A server or an agent's tool given a folder may search it whole,
    // through every link in it.
    foldersReadWhole: reading === 'any-word',
  })
}

/**
 * The grant `find` gives for an action a door is about to ask about
 * (`grantThatMayAnswer`: not under a policy that honours none, never for
 * what the person-only rule keeps), unless `action`, as the approval would
 * store it, is a private read: a place outside the workspace is read only
 * when the person allowed that very read, as neither the automatic review
 * nor the approver webhook may (the requester's `othersMayDecide`). A
 * grant given on a read inside the workspace, or on one the person did
 * read, never answers for another place. Fails closed: a read that cannot
 * be judged is private.
 */
export function grantForAction<G>(
  touch: ActionTouch,
  action: ApprovalAction,
  approvalPolicy: ApprovalPolicy,
  find: () => G | undefined,
): G | undefined {
  // Most actions have no grant: the lookup (one indexed query) comes
  // first, so only an action a grant may answer pays for the judgment.
  // The judgment is synchronous, so the grant cannot be revoked between
  // the lookup and the answer: it is looked up once.
  const grant = grantsHonoured(approvalPolicy) ? find() : undefined
  if (grant === undefined) return undefined
  // Both rules in one moment: they resolve the same paths.
  return inOneMoment(() => {
    if (judgedPrivateRead(action, touch.workspace, touch.resolvedPaths) !== null) return undefined
    return grantThatMayAnswer(touch, approvalPolicy, () => grant)
  })
}

/**
 * `privateReadOfApproval`, with a judgment that fails (a path that cannot
 * be read, an argument that cannot be walked) taken as a private read, so
 * an error never lets a decider other than the person see it.
 */
export function judgedPrivateRead(
  action: ApprovalAction,
  workspace: string,
  resolvedByDoor: readonly string[] = [],
): string | null {
  return failingClosed(() => privateReadOfApproval(action, workspace, resolvedByDoor))
}

/**
 * Whether the MCP call `touch` (a tool call, a resource read, a prompt),
 * about to run with nobody asked, is a private read: judged as its
 * approval would be (every word a place it may read), so a read-only
 * manifest, the server's own word, runs unasked no further than a grant
 * or the webhook may answer. Fails closed as `judgedPrivateRead`.
 */
export function judgedPrivateMcpRead(touch: ActionTouch): string | null {
  return failingClosed(() => privateReadOfTouch(touch, 'any-word', touch.resolvedPaths ?? []))
}

function failingClosed(judge: () => string | null): string | null {
  try {
    return judge()
  } catch (error) {
    return `the read could not be judged: ${String(error)}`
  }
}

/**
 * Why neither the automatic reviewer nor the approver webhook may hear of
 * the approval, or null: it is a private read (`judgedPrivateRead`), or a
 * change whose action holds lines such a read would show
 * (`judgedReplacedContent`). `about` says which, with the detail, in
 * English for the approval's record; `words` says it to the person.
 */
export function keptFromDeciders(
  action: ApprovalAction & Pick<ApprovalRecord, 'target'>,
  workspace: string,
  resolvedByDoor: readonly string[] = [],
): { about: string; words: RuntimeMessage } | null {
  return inOneMoment(() => keptFromDecidersNow(action, workspace, resolvedByDoor))
}

function keptFromDecidersNow(
  action: ApprovalAction & Pick<ApprovalRecord, 'target'>,
  workspace: string,
  resolvedByDoor: readonly string[],
): { about: string; words: RuntimeMessage } | null {
  const read = judgedPrivateRead(action, workspace, resolvedByDoor)
  if (read !== null) {
    return {
      about: `a private read: ${read}`,
      words: message('review.privateRead', { detail: read }),
    }
  }
  const replaced = judgedReplacedContent(action, workspace)
  if (replaced === null) return null
  return {
    about: `what it replaces: ${replaced}`,
    words: message('review.replacesPrivate', { detail: replaced }),
  }
}

/**
 * Why the approval's stored action holds what a private read would show,
 * or null: it replaces, edits, removes or moves onto a file that is there,
 * and the protected window shows that file's current lines, which are in
 * the action every decider is sent (a write's preview, an external agent's
 * `oldText`). A file outside the workspace (a folder the person widened
 * the turn to), one of Assent's own, one whose name is a secret's, or one
 * with another name (a hard link, which may lead outside): its content is
 * the person's to see, not the reviewer's or the webhook's, whatever the
 * action does with it. Fails closed: a judgment that throws counts.
 */
export function judgedReplacedContent(
  action: ApprovalAction & Pick<ApprovalRecord, 'target'>,
  workspace: string,
): string | null {
  try {
    const places = replacedPlaces(action)
    if (places.length === 0) return null
    return privateReadReason({ workspace, requested: places, resolved: places, secretNames: true })
  } catch (error) {
    return `what the action replaces could not be judged: ${String(error)}`
  }
}

/** The real paths of the files that are there which the action's change
 *  replaces, edits, removes or moves onto (a built-in write or delete's
 *  target; an external agent's file changes, by their real places). */
function replacedPlaces(action: ApprovalAction & Pick<ApprovalRecord, 'target'>): string[] {
  if (action.target?.exists === true) return [action.target.path]
  if (action.toolName !== AGENT_FILE_CHANGE_TOOL) return []
  const changes = action.arguments.changes
  if (!Array.isArray(changes)) return []
  const places: string[] = []
  for (const change of changes as AgentFileChange[]) {
    places.push(change.realPath ?? change.path)
    const moveTo = change.realMovePath ?? change.movePath
    if (moveTo !== null) places.push(moveTo)
  }
  return places.filter((place) => lstatOfTheMoment(place) !== undefined)
}

/** A segment a glob matches names by (`*`, `?`, `[…]`, `{a,b}`). */
const GLOB_SEGMENT = /[*?[{]/

/**
 * The real folders the globs among `candidates` search, taken from each
 * of `bases`: the part of a glob before its first segment that matches
 * by pattern (`docs/*.md` and `docs/**` search `docs`), which a server's glob
 * walks whole, following links (`docs/sub/out -> ../../elsewhere` gives it
 * `docs/sub/out/x.md`), though the word itself names no file there. A
 * base that is not there is left out: a glob in it matches nothing.
 */
function globBasesOf(candidates: readonly string[], bases: readonly string[]): string[] {
  const found: string[] = []
  for (const candidate of candidates) {
    const segments = candidate.split('/')
    const first = segments.findIndex((segment) => GLOB_SEGMENT.test(segment))
    // A glob with no folder before it (`*.md`, or a question's `work?`)
    // searches where the server works, which is judged as a call naming
    // no folder is (read-reach.ts): any word with a `?` would otherwise
    // walk the workspace for every link out of it.
    if (first < 1 || segments.slice(0, first).every((segment) => segment === '')) continue
    const prefix = segments.slice(0, first).join('/')
    for (const base of bases) {
      const real = realPathOf(path.resolve(base, prefix))
      if (real !== null) found.push(real)
    }
  }
  return found
}

/** The first candidate whose real path cannot be found from one of the
 *  folders relative paths are taken from, or null. */
function firstUnresolved(
  candidates: readonly string[],
  bases: readonly string[],
  seen: RealPathsSeen,
): string | null {
  for (const candidate of candidates) {
    for (const base of bases) {
      if (realPathAllowingMissing(path.resolve(base, candidate), seen) === null) return candidate
    }
  }
  return null
}

/**
 * A URL with a host (`https://example.com/a`, `ws://host/x`, `notes://x/y`):
 * taken out only when it is a network address (`isNetworkAddress`). Read
 * word by word, its `//example.com/a` would be an absolute path outside
 * the workspace, and every fetch would be private. A `file:` URI and one
 * without a host (`x:///etc/passwd`) name local places: they stay. A URL
 * ends where a shell or a list would part it from what follows (`,`, `;`,
 * `&`, `|`, braces, parentheses): `{https://x/a,/outside/diary}` is two
 * words to bash, and only the URL is taken out, never a path glued to it.
 */
const NETWORK_URL = /(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]+):\/\/(?!\/)[^\s'"`<>,;|&(){}\\]*/g

/** The schemes whose URLs a server fetches from another machine. */
const NETWORK_SCHEMES = new Set(['http', 'https', 'ws', 'wss', 'ftp', 'ftps', 'git', 'ssh', 'sftp'])

/** Hosts that are this machine: a server asked for them may serve its
 *  files (a local file server, a scheme of its own it maps to a folder).
 *  Matched against the host as the URL parser writes it, which spells an
 *  IPv4 address inside an IPv6 one in hex: `[::ffff:127.0.0.1]` is
 *  `[::ffff:7f00:1]`, and `[::ffff:0.0.0.0]` `[::ffff:0:0]`, each reaching
 *  what listens on this machine's loopback. A name under `localhost` is
 *  this machine's too (resolvers answer it with the loopback). */
const LOCAL_HOST =
  /^(?:(?:[^.]+\.)*localhost|127(?:\.\d{1,3}){0,3}|0\.0\.0\.0|\[::1?\]|\[::ffff:127(?:\.\d{1,3}){3}\]|\[::ffff:(?:7f[0-9a-f]{2}:[0-9a-f]{1,4}|0:0)\])\.?$/i

/**
 * Whether `url` (of `scheme`) is an address on another machine, which
 * reads nothing here: a known network scheme, a host that is not this
 * machine, and no `..` segment. Anything else, a scheme of the server's
 * own (`notes://localhost/home/me/diary.txt`) or a URL that does not
 * parse among them, is judged as the place it names: taking it out could
 * only let a private read pass unasked.
 */
function isNetworkAddress(url: string, scheme: string): boolean {
  if (!NETWORK_SCHEMES.has(scheme.toLowerCase()) || climbs(url)) return false
  try {
    const host = new URL(url).hostname
    return host !== '' && !LOCAL_HOST.test(host)
  } catch {
    return false
  }
}

/** Whether a URL has a `..` segment (spelled with `%2e` too): a server
 *  that takes the string for a path (`path.resolve(base, arg)`) reads
 *  `http://x/../../home/me/.ssh/id_ed25519` as the key, so such a URL is
 *  judged as the place it names, never taken out as a network address. */
function climbs(url: string): boolean {
  return /(?:^|[/\\])(?:\.|%2e){2}(?:[/\\?#]|$)/i.test(url)
}

/** `value` with every network URL in its strings taken out (keys are left
 *  as they are: a URL there is judged as a place, which can only make the
 *  read private). */
function withoutNetworkUrls<T>(value: T, depth: number): T {
  if (typeof value === 'string') {
    return value.replace(NETWORK_URL, (url, scheme: string) =>
      isNetworkAddress(url, scheme) ? ' ' : url,
    ) as T
  }
  // Too deep to read is left whole: the rule finds it too deep and asks.
  if (typeof value !== 'object' || value === null || depth >= MAX_ARGUMENT_DEPTH) return value
  if (Array.isArray(value)) return value.map((item) => withoutNetworkUrls(item, depth + 1)) as T
  // Own properties, `__proto__` among them, as JSON.parse made them.
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [key, withoutNetworkUrls(inner, depth + 1)]),
  ) as T
}

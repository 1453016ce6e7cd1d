import { AGENT_COMMAND_TOOL } from '../../contracts/agent-request.ts'
import type { CommandContainment } from '../../contracts/command-containment.ts'
import type { ApprovalPolicy } from '../../contracts/policy-axes.ts'
import { grantsHonoured } from './approval-policy.ts'
import { inGitPlacesOf } from './git-places-touched.ts'
import { credentialsHeldBy, credentialsLinkedFromFolders } from './credentials-held.ts'
import { heldInside } from './held-inside.ts'
import { packageHooksChanged } from './package-hooks.ts'
import { programFoundFirst } from './programs-found-first.ts'
import { writesUnnamed } from './writes-unnamed.ts'
import { ASSENT_OWN_WHY, assentOwnPathIn } from './assent-own-paths.ts'
import type { SensitiveClass } from './sensitive-path-rules.ts'
import { sensitivePath } from './sensitive-paths.ts'
import { commandsOf } from './command-lines.ts'
import {
  namesUnknownHome,
  namesUnknownPlace,
  UNKNOWN_HOME_WHY,
  UNKNOWN_PLACE_WHY,
} from './leading-expansion.ts'
import { NAMES_FROM_INPUT_WHY, namesFromInput } from './names-from-input.ts'
import { hardLinkedIn, MAX_CHECKED_CANDIDATES, namedPaths, tooManyPaths } from './named-paths.ts'
import { keptWithOtherNames } from './kept-other-names.ts'
import { GitPathNotExpanded } from './git-config-paths.ts'
import { personOnlyPathsInRoots, READ_ONLY_WALK_ENTRIES } from './read-only-walk.ts'
import {
  COMMAND_REASONS,
  commandFinding,
  readCommandLines,
  type CommandReading,
} from './shell-commands.ts'

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
  | 'person-session'
  | 'unread-command'
  | 'unwalked'
  | 'unlistable'
  | 'hard-linked'
  | 'linked-elsewhere'
  | 'too-many-paths'
  | 'reads-credentials'
  | 'links-unchecked'

export interface PersonOnly {
  /** The path as found (an argument, a word of a command, or a real path),
   *  or the words of a command that need the person. */
  path: string
  class: PersonOnlyClass
  /** In English, finishing "<path>: …". */
  reason: string
}

export { MAX_CHECKED_CANDIDATES }

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
 * Fails closed: an action with more candidates than can be checked asks,
 * and so does one judged while git gave no answer for a path its configs
 * name (git-config-paths.ts): the hooks folder or included config it
 * names is not known, and any path of the action may be in it.
 */
export function personOnlyReason(touch: ActionTouch): PersonOnly | null {
  try {
    return reasonFound(touch)
  } catch (error) {
    if (!(error instanceof GitPathNotExpanded)) throw error
    return {
      path: error.value,
      class: 'git',
      reason:
        'git gave no answer for what this path in its settings names, so the folders git runs from are not known',
    }
  }
}

function reasonFound(touch: ActionTouch): PersonOnly | null {
  const commands = commandsOf(touch)
  const readings = readCommandLines(commands.lines)
  const command = commandReason(touch, readings)
  if (command !== null) return command
  const named = namedPaths(touch, commands, readings)
  if (named === null) return tooManyPaths(touch)
  if (named.unchecked !== null) return named.unchecked
  const { candidates, resolved, seen } = named
  const unknownHome = candidates.find(namesUnknownHome)
  if (unknownHome !== undefined) {
    return { path: unknownHome, class: 'built-at-run-time', reason: UNKNOWN_HOME_WHY }
  }
  // A folder from the environment (`$XDG_CONFIG_HOME/git/config`,
  // `$NVM_DIR/nvm.sh`, which a login shell sets) is wherever the person's
  // start-up files put it, their own config among them. An external
  // agent's command runs outside Assent's sandbox, and a command is no
  // read the private-read rule holds (it holds every word of an MCP call
  // and of an agent's own tool): a place no rule can name needs the
  // person. (Assent's own command writes only its sandbox's roots.)
  const agentCommand = touch.toolName === AGENT_COMMAND_TOOL && touch.mcpServerId === undefined
  const unknownPlace = agentCommand ? candidates.find(namesUnknownPlace) : undefined
  if (unknownPlace !== undefined) {
    return { path: unknownPlace, class: 'built-at-run-time', reason: UNKNOWN_PLACE_WHY }
  }
  for (const candidate of [...candidates, ...resolved]) {
    const finding = sensitivePath(candidate)
    if (finding) return { path: candidate, class: finding.class, reason: finding.reason }
  }
  const hooks = packageHooksChanged(touch, resolved) ?? programFoundFirst(touch, resolved)
  if (hooks !== null) return hooks
  const own = assentOwnPathIn(resolved)
  if (own !== null) return { path: own, class: 'assent-own', reason: ASSENT_OWN_WHY }
  // A server started in the workspace itself (the usual case) has one
  // folder, not two: its repositories are read once. A real path found
  // twice (as written and as the sandbox resolved it) is looked at once.
  const folders = [...new Set([touch.workspace, touch.serverFolder ?? touch.workspace])]
  const linked = hardLinkedIn(resolved, folders)
  if (linked !== null) {
    return {
      path: linked,
      class: 'hard-linked',
      reason:
        'it has other names (hard links), any of which may be a file only a person may change, such as a git hook',
    }
  }
  // A command Assent's sandbox does not contain (an external agent's, as
  // Codex or an ACP agent's own tool runs it, or an MCP server's shell
  // tool) runs in the agent's own sandbox, which keeps `.git` read-only and
  // hides keys by their names too, or in none: a folder it names holding a
  // key (`grep -r x ~`), or reached through a link out of its folders, is
  // read whole, and another name of a hook or a key in its folders reaches
  // past either, unnamed; a link to one, last (`credentialsLinkedFromFolders`).
  const ownCommand = touch.toolName === 'run_command' && touch.mcpServerId === undefined
  const uncontained = agentCommand || (readings.length > 0 && !ownCommand)
  if (uncontained) {
    const held = credentialsHeldBy(resolved, touch.workspace, readings)
    if (held !== null) return held
    const walked = personOnlyPathsInRoots(folders)
    if (walked.truncated === null && walked.unlistable.length === 0) {
      const elsewhere = keptWithOtherNames(walked, folders)
      if (elsewhere !== null) return elsewhere
    }
  }
  const cwd = commands.folders[0] ?? touch.workspace
  const inside = heldInside(touch, resolved, { readings, cwd }) ?? writesUnnamed(touch, readings)
  if (inside !== null) return inside
  // Names from its input or a walk (`… | xargs cp x`, `find -exec … {}`,
  // `read d; cp x "$d"`) are known only when it runs. Assent's own command
  // needs no such look: its sandbox keeps what it finds read-only whatever
  // the name.
  const fromInput = uncontained ? namesFromInput(readings) : null
  if (fromInput !== null) {
    return { path: fromInput, class: 'built-at-run-time', reason: NAMES_FROM_INPUT_WHY }
  }
  // Assent's own write tool names the one file it writes in a field of
  // its own, never a word. (An external agent's file change is read whole,
  // words and all: its `kind` of change may be `update`.)
  const namesFiles = touch.mcpServerId === undefined && touch.toolName === 'write_file'
  return (
    inGitPlacesOf(folders, [...new Set(resolved)], seen, namesFiles) ??
    (uncontained ? credentialsLinkedFromFolders(folders, touch.workspace) : null)
  )
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

/**
 * What a command does that no path of it shows (shell-words.ts): a name
 * built only when it runs (`$(…)`, `${X:-.git}`, `eval`), which no rule
 * can read, or a change to what git runs (`git config`, `git -c`,
 * `GIT_CONFIG_*`); for Assent's own command, a workspace too large
 * for its sandbox's walk, or a hook or a key with another name it may
 * write or read (`keptWithOtherNames`). Null when there is none.
 */
function commandReason(touch: ActionTouch, readings: readonly CommandReading[]): PersonOnly | null {
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
    const linked = keptWithOtherNames(walked, touch.writableRoots ?? [touch.workspace])
    if (linked !== null) return linked
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
  return { path: finding.what, class: finding.kind, reason: COMMAND_REASONS[finding.kind] }
}

/**
 * The grant `find` gives, unless the action needs a person: the one way
 * each door honours a grant of any kind, at the moment of use, so a grant
 * made before a file became person-only (or made for a tool, a server or
 * a command that later names one) never answers for it. The grant is
 * looked up first: most actions have none, and then there is nothing to
 * judge (the rule reads the file system, the lookup one indexed query);
 * either way no grant answers for an action the rule leaves to the person.
 * Nor under a policy that honours no grant (`grantsHonoured`): each door
 * passes the policy frozen on its turn, so none can forget it.
 */
export function grantThatMayAnswer<G>(
  touch: ActionTouch,
  approvalPolicy: ApprovalPolicy,
  find: () => G | undefined,
): G | undefined {
  if (!grantsHonoured(approvalPolicy)) return undefined
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

import {
  AGENT_COMMAND_TOOL,
  AGENT_FILE_CHANGE_TOOL,
  AGENT_TOOL_CALL_TOOL,
  MAX_AGENT_FILE_CHANGES,
  type AgentFileChange,
  type AgentIdentity,
  type AgentRequestArguments,
} from '../../contracts/agent-request.ts'
import { canonicalJson } from '../../contracts/canonical-json.ts'
import { changeLineCount, MAX_SHOWN_LINES, type FileChange } from '../../contracts/file-change.ts'
import {
  englishText,
  message,
  type RuntimeMessage,
  type RuntimeMessageCode,
} from '../../contracts/runtime-message.ts'
import type { ToolEffect } from '../../contracts/policy-axes.ts'
import {
  editAsText,
  editPreview,
  lineOfOnlyOccurrence,
  newFilePreview,
  removalPreview,
  unifiedDiffPreview,
} from '../domain/file-change-preview.ts'
import { sha256Hex } from '../domain/sha256.ts'
import type { RequestedAction } from '../gate/approval-requester.ts'
import type {
  ExternalAction,
  ExternalActionRequest,
  ExternalFileChange,
} from '../external-agents/external-agent-port.ts'
import { isDestructiveCommand } from '../tools/command-patterns.ts'
import { MAX_AGENT_REQUEST_TEXT_CHARS, movesOver } from './agent-request-contents.ts'

export { currentContentsFor, MAX_AGENT_REQUEST_TEXT_CHARS } from './agent-request-contents.ts'

/** An agent's request as Assent judges and shows it. */
export interface ShownAgentRequest {
  /** The approval's action: its arguments are what the digest binds. */
  action: RequestedAction & { sandboxMode: ExternalActionRequest['sandboxMode'] }
  /** The same arguments, by kind (agent-request-where.ts adds to them
   *  where the agent acts). */
  request: AgentRequestArguments
  /** The effect the room's policy table and sandbox judge. */
  effect: ToolEffect
  destructive: boolean
  /** What the sandbox confines: a command's folder, or every file a change
   *  writes, removes or moves to. */
  paths: string[]
}

export type ShownOrRefused = { shown: ShownAgentRequest } | { refused: RuntimeMessage }

/**
 * Describes what the agent will do if allowed, as an approval's canonical
 * action: the command line and its folder; or each file with its change,
 * previewed as the protected window draws it, and the SHA-256 of exactly
 * what the agent sent; or another tool call's title and raw input. The same
 * request always gives the same action, so its digest can be rebuilt and
 * compared with the approval's when the decision comes back.
 */
export function shownAgentRequest(
  request: ExternalActionRequest,
  agent: AgentIdentity,
  workspace: string,
  currentContents: ReadonlyMap<string, string | null> = new Map(),
): ShownOrRefused {
  const sandboxMode = request.sandboxMode
  const action = request.action
  switch (action.kind) {
    case 'command': {
      const argv = action.argv === null || action.argv.length === 0 ? null : [...action.argv]
      const args = { agent, commandLine: action.commandLine, argv, cwd: action.cwd }
      return {
        shown: {
          action: {
            kind: 'run-command',
            toolName: AGENT_COMMAND_TOOL,
            arguments: args,
            workingDirectory: action.cwd,
            summary: action.commandLine,
            sandboxMode,
          },
          request: { tool: AGENT_COMMAND_TOOL, args },
          effect: 'execute',
          destructive: isDestructiveCommand(argv ?? [action.commandLine]),
          paths: [action.cwd],
        },
      }
    }
    case 'file-changes':
      return fileChanges(action.changes, agent, workspace, sandboxMode, currentContents)
    case 'tool': {
      const args = {
        agent,
        toolKind: action.toolKind,
        title: action.title,
        input: jsonValue(action.input),
        ...(action.locations.length > 0 ? { locations: action.locations } : {}),
      }
      return {
        shown: {
          action: {
            kind: 'run-command',
            toolName: AGENT_TOOL_CALL_TOOL,
            arguments: args,
            workingDirectory: workspace,
            summary: action.title === '' ? action.toolKind : action.title,
            sandboxMode,
          },
          request: { tool: AGENT_TOOL_CALL_TOOL, args },
          // A tool Assent cannot read is judged as the most it could be: a
          // fetch as network, anything else as a command.
          effect: action.toolKind === 'fetch' ? 'network' : 'execute',
          destructive: false,
          paths: [],
        },
      }
    }
  }
}

function fileChanges(
  changes: readonly ExternalFileChange[],
  agent: AgentIdentity,
  workspace: string,
  sandboxMode: ExternalActionRequest['sandboxMode'],
  currentContents: ReadonlyMap<string, string | null>,
): ShownOrRefused {
  if (changes.length === 0) return { refused: message('external.noFile') }
  if (changes.length > MAX_AGENT_FILE_CHANGES) {
    return { refused: message('external.tooManyFiles', { count: MAX_AGENT_FILE_CHANGES }) }
  }
  const size = changes.reduce(
    (sum, c) => sum + (c.diff?.length ?? 0) + (c.oldText?.length ?? 0) + (c.newText?.length ?? 0),
    0,
  )
  if (size > MAX_AGENT_REQUEST_TEXT_CHARS) {
    return { refused: message('external.tooLarge') }
  }
  // A new file over one that exists replaces it, whichever agent sends it
  // (claude-agent-acp's Write, Codex's `*** Add File`: both overwrite):
  // shown as the change from what is there, never as an added file, so
  // the person sees the lines it removes, and judged as the edit it is.
  // One whose current content cannot be read and shown is refused.
  const asSent: ExternalFileChange[] = []
  for (const change of changes) {
    if (change.change !== 'add' || !currentContents.has(change.path)) {
      asSent.push(change)
      continue
    }
    const current = currentContents.get(change.path)
    if (typeof current !== 'string') return { refused: message('external.tooLarge') }
    // Codex sends an added file's content as its `diff`.
    const newText = change.diff ?? change.newText
    asSent.push({ ...change, change: 'update', diff: null, oldText: current, newText })
  }
  const overwritten = movesOver(changes, currentContents)
  if ('refused' in overwritten) return overwritten
  asSent.push(...overwritten.replaced)
  const [first, ...rest] = asSent.map((change) =>
    shownFileChange(change, currentContents.get(change.path)),
  )
  // The request names at least one file (checked above).
  if (first === undefined) return { refused: message('external.noFile') }
  const shown = [first, ...rest]
  // Each change is drawn as its own diff, up to MAX_SHOWN_LINES: one
  // longer is not shown whole, and cannot be allowed.
  for (const change of shown) {
    const lines = change.preview === null ? 0 : changeLineCount(change.preview)
    if (lines > MAX_SHOWN_LINES) {
      return {
        refused: message('external.tooLongToShow', {
          path: change.path,
          lines,
          shown: MAX_SHOWN_LINES,
        }),
      }
    }
  }
  const args = { agent, changes: shown }
  return {
    shown: {
      action: {
        kind: 'apply-changes',
        toolName: AGENT_FILE_CHANGE_TOOL,
        arguments: args,
        workingDirectory: workspace,
        ...changesSummary(first, shown),
        sandboxMode,
      },
      request: { tool: AGENT_FILE_CHANGE_TOOL, args },
      effect: 'write',
      destructive: shown.some((c) => c.change === 'delete' || c.movePath !== null),
      paths: shown.flatMap((c) => (c.movePath === null ? [c.path] : [c.path, c.movePath])),
    },
  }
}

const CHANGE_MESSAGES: Readonly<Record<AgentFileChange['change'], RuntimeMessageCode>> = {
  add: 'external.add',
  update: 'external.update',
  delete: 'external.delete',
}

/** The summary: every file and its change (the English `summary`), and
 *  in words the first and how many more there are (the protected window
 *  lists each of them). A file a link leads elsewhere is named with where
 *  it leads. */
export function changesSummary(
  first: AgentFileChange,
  shown: readonly AgentFileChange[],
): { summary: string; summaryMessage: RuntimeMessage } {
  const words = (change: AgentFileChange) =>
    message(CHANGE_MESSAGES[change.change], {
      path:
        change.realPath === undefined
          ? change.path
          : message('external.leadsTo', { path: change.path, real: change.realPath }),
    })
  return {
    summary: shown.map((change) => englishText(words(change))).join(', '),
    summaryMessage:
      shown.length === 1
        ? words(first)
        : message('external.changesMore', { first: words(first), count: shown.length - 1 }),
  }
}

function shownFileChange(
  change: ExternalFileChange,
  current: string | null | undefined,
): AgentFileChange {
  const preview = previewOf(change, current)
  return {
    path: change.path,
    change: change.change,
    movePath: change.movePath,
    preview,
    // Shown as sent where the preview cannot show all of it.
    agentDiff: preview === null || preview.truncated ? sentText(change) : null,
    sourceSha256: sha256Hex(
      canonicalJson({ diff: change.diff, oldText: change.oldText, newText: change.newText }),
    ),
  }
}

/** The agent's own text for a change, as the window shows it when there is
 *  no preview: Codex's diff, or an ACP edit as unnumbered diff lines. */
function sentText(change: ExternalFileChange): string | null {
  if (change.diff !== null) return change.diff
  if (change.oldText !== null && change.newText !== null) {
    return editAsText(change.oldText, change.newText)
  }
  return change.newText ?? change.oldText
}

/**
 * Codex sends a new file's content, an edit's unified diff, or a deleted
 * file's content in `diff`; an ACP agent sends the old text (null for a new
 * file) and the new text. An ACP agent may send only the lines around its
 * edit as the old text (codex-acp does): the edit gets the file's own line
 * numbers when those lines occur exactly once in the file as it is now
 * (`current`), and no preview otherwise (it is then shown as sent).
 */
function previewOf(
  change: ExternalFileChange,
  current: string | null | undefined,
): FileChange | null {
  const { path } = change
  if (change.diff !== null) {
    switch (change.change) {
      case 'add':
        return newFilePreview(path, change.diff)
      case 'delete':
        return removalPreview(path, change.diff)
      case 'update':
        return unifiedDiffPreview(path, change.diff)
    }
  }
  if (change.change === 'delete') {
    return change.oldText === null ? null : removalPreview(path, change.oldText)
  }
  if (change.newText === null) return null
  if (change.oldText === null) return newFilePreview(path, change.newText)
  const firstLine =
    current === null || current === undefined ? null : lineOfOnlyOccurrence(current, change.oldText)
  return firstLine === null ? null : editPreview(path, change.oldText, change.newText, firstLine)
}

/** The agent's raw input as a JSON value the digest can cover: it arrived
 *  as JSON, so only `undefined` (no input) needs a stand-in. */
function jsonValue(input: unknown): unknown {
  return input === undefined ? null : input
}

/** The arguments a timeline tool call records for what the agent did: the
 *  command and its folder, or the files and how each changes (their
 *  content stays with the approval, if there is one). */
export function timelineArguments(action: ExternalAction | null): {
  toolName: string
  arguments: Record<string, unknown>
} {
  if (action === null) return { toolName: AGENT_TOOL_CALL_TOOL, arguments: {} }
  switch (action.kind) {
    case 'command':
      return {
        toolName: AGENT_COMMAND_TOOL,
        arguments: { commandLine: action.commandLine, cwd: action.cwd },
      }
    case 'file-changes':
      return {
        toolName: AGENT_FILE_CHANGE_TOOL,
        arguments: {
          changes: action.changes.map(({ path, change, movePath }) => ({ path, change, movePath })),
        },
      }
    case 'tool':
      return {
        toolName: AGENT_TOOL_CALL_TOOL,
        arguments: { toolKind: action.toolKind, title: action.title },
      }
  }
}

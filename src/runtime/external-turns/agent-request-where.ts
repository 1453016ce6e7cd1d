import path from 'node:path'
import {
  AGENT_COMMAND_TOOL,
  AGENT_FILE_CHANGE_TOOL,
  type AgentFileChange,
} from '../../contracts/agent-request.ts'
import { message } from '../../contracts/runtime-message.ts'
import { RAW_INPUT_FOLDER_FIELDS } from '../external-agents/acp-tool-call-reading.ts'
import { realPathAllowingMissing } from '../policy/real-paths.ts'
import {
  changesSummary,
  type ShownAgentRequest,
  type ShownOrRefused,
} from './agent-request-action.ts'

/**
 * The person sees where it acts. An external agent acts itself and follows
 * links: Codex's apply_patch and claude-agent-acp's Write write through a
 * link in the workspace, and a command runs in whatever folder its `cwd`
 * leads to. A change to `notes.txt` that leads to `.git/hooks/pre-commit`
 * shown as `notes.txt` would have the person allow a git hook they never
 * saw named.
 *
 * `realPaths` are the real paths the access check resolved and judged,
 * in the order of `shown.paths` (a command's folder; each file, and a
 * move's target after its file). Wherever one differs from the path as
 * the agent wrote it, the approval's arguments carry it beside the
 * written one (`realCwd`, `realPath`, `realMovePath`), so the window shows
 * both, the digest a consent token binds covers it, and an "Always allow"
 * remembers it; a command's working directory is its real folder, as for
 * Assent's own commands. When the real paths do not match what the
 * request names, where it acts cannot be shown, and it is refused (fails
 * closed): a person cannot allow a place they are not shown.
 */
export function shownWhereItActs(
  shown: ShownAgentRequest,
  realPaths: readonly string[],
): ShownOrRefused {
  const refused = { refused: message('external.whereNotShown') }
  if (realPaths.length !== shown.paths.length) return refused
  const { request } = shown
  switch (request.tool) {
    case AGENT_COMMAND_TOOL: {
      const [real] = realPaths
      if (real === undefined) return refused
      if (!leadsElsewhere(request.args.cwd, real)) return { shown }
      const args = { ...request.args, realCwd: real }
      return {
        shown: {
          ...shown,
          action: { ...shown.action, arguments: args, workingDirectory: real },
          request: { tool: AGENT_COMMAND_TOOL, args },
        },
      }
    }
    case AGENT_FILE_CHANGE_TOOL: {
      let next = 0
      const take = () => realPaths[next++]
      const changes: AgentFileChange[] = []
      for (const change of request.args.changes) {
        const realPath = take()
        const realMovePath = change.movePath === null ? null : take()
        if (realPath === undefined || realMovePath === undefined) return refused
        changes.push({
          ...change,
          ...(leadsElsewhere(change.path, realPath) ? { realPath } : {}),
          ...(change.movePath !== null &&
          realMovePath !== null &&
          leadsElsewhere(change.movePath, realMovePath)
            ? { realMovePath }
            : {}),
        })
      }
      const [first] = changes
      if (next !== realPaths.length || first === undefined) return refused
      const args = { ...request.args, changes }
      return {
        shown: {
          ...shown,
          action: { ...shown.action, arguments: args, ...changesSummary(first, changes) },
          request: { tool: AGENT_FILE_CHANGE_TOOL, args },
        },
      }
    }
    default: {
      // An own tool of the agent (claude-agent-acp's Edit with
      // `replace_all`, a command run in the background) names its places
      // in `locations` and its raw input, which the window shows whole.
      // Where a link makes one lead elsewhere, the real path is put beside
      // it (`leadsTo`), so the window shows it and the digest binds it; a
      // place whose real path cannot be found is refused (fails closed).
      const base = shown.action.workingDirectory
      const named = [...(request.args.locations ?? []), ...inputFolders(request.args.input)]
      const leadsTo: Array<{ path: string; realPath: string }> = []
      for (const written of new Set(named)) {
        const resolved = path.resolve(base, written)
        const real = realPathAllowingMissing(resolved)
        if (real === null) return refused
        if (real !== resolved) leadsTo.push({ path: written, realPath: real })
      }
      if (leadsTo.length === 0) return { shown }
      const args = { ...request.args, leadsTo }
      return {
        shown: {
          ...shown,
          action: { ...shown.action, arguments: args },
          request: { tool: request.tool, args },
        },
      }
    }
  }
}

/** The folders an own tool's raw input says it runs in. */
function inputFolders(input: unknown): string[] {
  if (typeof input !== 'object' || input === null) return []
  const fields = input as Record<string, unknown>
  return RAW_INPUT_FOLDER_FIELDS.flatMap((key) => {
    const value = fields[key]
    return typeof value === 'string' && value !== '' ? [value] : []
  })
}

function leadsElsewhere(written: string, real: string): boolean {
  return path.resolve(written) !== real
}

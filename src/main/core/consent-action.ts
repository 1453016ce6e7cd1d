import path from 'node:path'
import { z } from 'zod'
import type { ConsentAction } from '../../common/consent-view.ts'
import {
  AGENT_COMMAND_TOOL,
  AGENT_FILE_CHANGE_TOOL,
  readAgentRequest,
} from '../../contracts/agent-request.ts'
import type { CanonicalAction } from '../../contracts/approval.ts'
import type { FileChange } from '../../contracts/file-change.ts'

/**
 * The arguments of the built-in tools as main reads them to draw the
 * action. Strict like the runtime's own schemas: arguments of any other
 * shape are shown as they are (`other`), never guessed at, so nothing the
 * tool would receive can be left out of the picture.
 */
const RunCommandArgs = z.strictObject({
  argv: z.array(z.string()).min(1),
  cwd: z.string().min(1).optional(),
  shell: z.boolean().optional(),
  timeoutMs: z.number().int().positive().optional(),
})
const WriteFileArgs = z.strictObject({ path: z.string().min(1), content: z.string() })
const DeleteFileArgs = z.strictObject({
  path: z.string().min(1),
  recursive: z.boolean().optional(),
})
const PathArgs = z.strictObject({ path: z.string().min(1) })

/** The action as the protected window draws it. `fileChange` is the
 *  runtime's preview of a write against the file's current content, when
 *  it sent one. */
export function consentAction(action: CanonicalAction, fileChange?: FileChange): ConsentAction {
  // Where a file tool acts: the real path the runtime observed and bound
  // into the action (a link is shown as where it leads), never a path
  // worked out here from the typed one.
  const where = (target: string) =>
    action.target?.path ?? path.resolve(action.workingDirectory, target)
  if (action.permission !== undefined) {
    const { widen, duration, reason } = action.permission
    return { type: 'permission', widen: { ...widen }, duration, reason }
  }
  if (action.mcp !== undefined) {
    return {
      type: 'mcp',
      serverName: action.mcp.serverName,
      toolDescription: action.mcp.toolDescription,
      previewText: action.mcp.preview,
      serverFolder: action.mcp.serverFolder ?? null,
    }
  }
  // An external agent's request is read with its own strict schemas; its
  // other tool calls are shown whole as `other`.
  const request = readAgentRequest(action.toolName, action.arguments)
  if (request?.tool === AGENT_COMMAND_TOOL) {
    const { realCwd } = request.args
    return {
      type: 'agent-command',
      commandLine: request.args.commandLine,
      directory: request.args.cwd,
      // The real folder the runtime resolved the `cwd` to and bound, when a
      // link makes it another.
      ...(realCwd === undefined ? {} : { realDirectory: realCwd }),
    }
  }
  if (request?.tool === AGENT_FILE_CHANGE_TOOL) {
    return {
      type: 'agent-file-changes',
      changes: request.args.changes.map((change) => ({
        path: change.path,
        change: change.change,
        movePath: change.movePath,
        // Where the runtime resolved a link to and bound, when elsewhere.
        ...(change.realPath === undefined ? {} : { realPath: change.realPath }),
        ...(change.realMovePath === undefined ? {} : { realMovePath: change.realMovePath }),
        ...(change.preview === null ? {} : { fileChange: change.preview }),
        agentDiff: change.agentDiff,
      })),
    }
  }
  switch (action.toolName) {
    case 'run_command': {
      const args = RunCommandArgs.safeParse(action.arguments)
      if (!args.success) break
      return {
        type: 'command',
        argv: args.data.argv,
        shell: args.data.shell === true,
        // The real folder the runtime resolved the `cwd` to.
        directory: action.workingDirectory,
        ...(args.data.timeoutMs === undefined ? {} : { timeoutMs: args.data.timeoutMs }),
      }
    }
    case 'write_file': {
      const args = WriteFileArgs.safeParse(action.arguments)
      if (!args.success) break
      // A preview of another path than the one written would show the
      // person the wrong file: it is left out, and the content shown.
      const change = fileChange?.path === args.data.path ? fileChange : undefined
      return {
        type: 'write',
        path: args.data.path,
        absolutePath: where(args.data.path),
        content: args.data.content,
        ...(change ? { fileChange: change } : {}),
      }
    }
    case 'delete_file': {
      const args = DeleteFileArgs.safeParse(action.arguments)
      if (!args.success) break
      return {
        type: 'delete',
        path: args.data.path,
        absolutePath: where(args.data.path),
        recursive: args.data.recursive === true,
      }
    }
    case 'read_file':
    case 'list_dir': {
      const args = PathArgs.safeParse(action.arguments)
      if (!args.success) break
      return {
        type: 'read',
        path: args.data.path,
        absolutePath: where(args.data.path),
        listing: action.toolName === 'list_dir',
      }
    }
  }
  return { type: 'other' }
}

import { constants } from 'node:fs'
import { lstat, mkdir, open, realpath, rm, rmdir, unlink } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { englishText, message } from '../../contracts/runtime-message.ts'
import {
  NO_FOLLOW,
  ToolPathSchema,
  firstResolvedPath,
  fsFailure,
  saidResult,
} from './tool-types.ts'
import type { ToolDefinition, ToolResult } from './tool-types.ts'

/** 10 MiB: far more than an agent should write in one call, and a bound on
 *  what one request body can make the runtime hold. */
export const MAX_WRITE_CONTENT_CHARS = 10 * 1024 * 1024

export const WriteFileArgsSchema = z.strictObject({
  path: ToolPathSchema,
  content: z.string().max(MAX_WRITE_CONTENT_CHARS),
})
export type WriteFileArgs = z.infer<typeof WriteFileArgsSchema>

/** Creates missing parent directories and replaces the file's content. Not
 *  destructive by declaration: an overwrite is still a write, and every
 *  write already needs a decision under any policy that asks. */
export const writeFileTool: ToolDefinition<WriteFileArgs> = {
  name: 'write_file',
  effect: 'write',
  kind: 'apply-changes',
  argsSchema: WriteFileArgsSchema,
  destructive: () => false,
  targetPaths: (args) => [args.path],
  summarize: (args) => englishText(writeSummary(args)),
  summaryMessage: (args) => writeSummary(args),
  async run(args, ctx): Promise<ToolResult> {
    const target = firstResolvedPath(ctx)
    if (typeof target !== 'string') return target
    try {
      await mkdir(path.dirname(target), { recursive: true })
      // O_NOFOLLOW: the checked path was real; if its last component is a
      // symlink now, someone swapped it in after the check, so refuse.
      const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NO_FOLLOW
      const handle = await open(target, flags, 0o644)
      try {
        await handle.writeFile(args.content, 'utf8')
      } finally {
        await handle.close()
      }
      const bytes = Buffer.byteLength(args.content, 'utf8')
      return saidResult(true, message('tool.wrote', { bytes, path: target }))
    } catch (error) {
      return fsFailure('write', target, error)
    }
  },
}

export const DeleteFileArgsSchema = z.strictObject({
  path: ToolPathSchema,
  recursive: z.boolean().optional(),
})
export type DeleteFileArgs = z.infer<typeof DeleteFileArgsSchema>

/** Deletes a file, an empty directory, or with `recursive` a whole tree.
 *  The path is the resolved one, so a symlink is judged, and deleted, by
 *  what it points to. */
export const deleteFileTool: ToolDefinition<DeleteFileArgs> = {
  name: 'delete_file',
  effect: 'write',
  kind: 'apply-changes',
  argsSchema: DeleteFileArgsSchema,
  destructive: () => true,
  targetPaths: (args) => [args.path],
  summarize: (args) => englishText(deleteSummary(args)),
  summaryMessage: (args) => deleteSummary(args),
  async run(args, ctx): Promise<ToolResult> {
    const target = firstResolvedPath(ctx)
    if (typeof target !== 'string') return target
    try {
      if (await isProtectedRoot(target, ctx.workspace)) {
        // Removing the workspace or the file-system root is never what a
        // single tool call means; no policy can approve it through here.
        return saidResult(false, message('tool.refusedRoot', { path: target }), {
          code: 'refused_root',
        })
      }
      const stats = await lstat(target)
      if (stats.isDirectory()) {
        if (args.recursive === true) {
          await rm(target, { recursive: true })
          return saidResult(true, message('tool.deletedTree', { path: target }))
        }
        await rmdir(target)
        return saidResult(true, message('tool.deletedEmptyDirectory', { path: target }))
      }
      await unlink(target)
      return saidResult(true, message('tool.deleted', { path: target }))
    } catch (error) {
      return fsFailure('delete', target, error)
    }
  },
}

function writeSummary(args: WriteFileArgs) {
  return message('summary.write', {
    bytes: Buffer.byteLength(args.content, 'utf8'),
    path: args.path,
  })
}

function deleteSummary(args: DeleteFileArgs) {
  return message(args.recursive === true ? 'summary.deleteRecursive' : 'summary.delete', {
    path: args.path,
  })
}

async function isProtectedRoot(target: string, workspace: string): Promise<boolean> {
  if (path.dirname(target) === target) return true
  try {
    return (await realpath(workspace)) === target
  } catch {
    return path.resolve(workspace) === target
  }
}

import { realpath } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import {
  changeLineCount,
  contentLineCount,
  MAX_SHOWN_LINES,
  type FileChange,
} from '../../contracts/file-change.ts'
import { englishText, message } from '../../contracts/runtime-message.ts'
import { fileChangePreview } from './file-change-preview.ts'
import { observeTarget } from './file-target.ts'
import { assertReplaceable, removeEntry, replaceFile } from './safe-file-ops.ts'
import { ToolPathSchema, firstResolvedPath, fsFailure, saidResult } from './tool-types.ts'
import type { FileObservation, ToolDefinition, ToolResult } from './tool-types.ts'

/** 10 MiB: far more than an agent should write in one call, and a bound on
 *  what one request body can make the runtime hold. */
export const MAX_WRITE_CONTENT_CHARS = 10 * 1024 * 1024

export const WriteFileArgsSchema = z.strictObject({
  path: ToolPathSchema,
  content: z.string().max(MAX_WRITE_CONTENT_CHARS),
})
export type WriteFileArgs = z.infer<typeof WriteFileArgsSchema>

/** Creates missing parent directories and replaces the file's content, by
 *  writing a new file next to it and renaming it over the name
 *  (safe-file-ops.ts). Not destructive by declaration: an overwrite is still
 *  a write, and every write already needs a decision under any policy that
 *  asks. */
export const writeFileTool: ToolDefinition<WriteFileArgs> = {
  name: 'write_file',
  effect: 'write',
  kind: 'apply-changes',
  argsSchema: WriteFileArgsSchema,
  destructive: () => false,
  targetPaths: (args) => [args.path],
  summarize: (args) => englishText(writeSummary(args)),
  summaryMessage: (args) => writeSummary(args),
  async observe(args, resolvedPaths): Promise<FileObservation | ToolResult> {
    const target = resolvedPaths[0]
    if (target === undefined) return noPath()
    try {
      const observed = await observeTarget(target, { readContent: true })
      if (observed.stats !== null) assertReplaceable(observed.stats, target)
      const fileChange = fileChangePreview(
        args.path,
        observed.stats === null ? null : observed.content,
        args.content,
      )
      const tooLong = tooLongToShow(args, fileChange)
      if (tooLong !== null) return tooLong
      return { target: observed.target, fileChange }
    } catch (error) {
      return fsFailure('write', target, error)
    }
  },
  async run(args, ctx): Promise<ToolResult> {
    const target = firstResolvedPath(ctx)
    if (typeof target !== 'string') return target
    try {
      await replaceFile(target, args.content, {
        ...(ctx.boundTarget === undefined ? {} : { bound: ctx.boundTarget }),
      })
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

/** Deletes a file, an empty directory, or with `recursive` a whole tree,
 *  through directory handles (safe-file-ops.ts). The path is the resolved
 *  one, so a symlink is judged, and deleted, by what it points to. */
export const deleteFileTool: ToolDefinition<DeleteFileArgs> = {
  name: 'delete_file',
  effect: 'write',
  kind: 'apply-changes',
  argsSchema: DeleteFileArgsSchema,
  destructive: () => true,
  targetPaths: (args) => [args.path],
  summarize: (args) => englishText(deleteSummary(args)),
  summaryMessage: (args) => deleteSummary(args),
  async observe(_args, resolvedPaths): Promise<FileObservation | ToolResult> {
    const target = resolvedPaths[0]
    if (target === undefined) return noPath()
    try {
      const observed = await observeTarget(target, { readContent: false })
      if (observed.stats?.isFile() === true) assertReplaceable(observed.stats, target)
      return { target: observed.target }
    } catch (error) {
      return fsFailure('delete', target, error)
    }
  },
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
      const removed = await removeEntry(target, {
        recursive: args.recursive === true,
        ...(ctx.boundTarget === undefined ? {} : { bound: ctx.boundTarget }),
      })
      if (removed.kind === 'tree') {
        return saidResult(true, message('tool.deletedTree', { path: target }))
      }
      if (removed.kind === 'empty-directory') {
        return saidResult(true, message('tool.deletedEmptyDirectory', { path: target }))
      }
      return saidResult(true, message('tool.deleted', { path: target }))
    } catch (error) {
      return fsFailure('delete', target, error)
    }
  },
}

/** The refusal of a write the protected window cannot show whole: its
 *  change, or its content where the change is not shown in full, longer
 *  than `MAX_SHOWN_LINES`. */
function tooLongToShow(args: WriteFileArgs, fileChange: FileChange): ToolResult | null {
  const changed = changeLineCount(fileChange)
  const content = fileChange.truncated ? contentLineCount(args.content) : 0
  const lines = Math.max(changed, content)
  if (lines <= MAX_SHOWN_LINES) return null
  return saidResult(
    false,
    message('tool.tooLongToShow', { path: args.path, lines, shown: MAX_SHOWN_LINES }),
    { code: 'too_long_to_show' },
  )
}

function noPath(): ToolResult {
  return saidResult(false, message('tool.noCheckedPath'), { code: 'no_path' })
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

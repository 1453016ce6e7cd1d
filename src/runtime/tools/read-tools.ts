import { constants } from 'node:fs'
import { readdir } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { DirectoryHandle } from './anchored-directory.ts'
import { FileRefusal } from './file-refusal.ts'
import { englishText, message } from '../../contracts/runtime-message.ts'
import {
  MAX_TOOL_OUTPUT_BYTES,
  ToolPathSchema,
  capOutput,
  firstResolvedPath,
  fsFailure,
  saidResult,
} from './tool-types.ts'
import type { FileObservation, ToolDefinition, ToolResult } from './tool-types.ts'
import { observeTarget } from './file-target.ts'

export const ReadFileArgsSchema = z.strictObject({ path: ToolPathSchema })
export type ReadFileArgs = z.infer<typeof ReadFileArgsSchema>

export const readFileTool: ToolDefinition<ReadFileArgs> = {
  name: 'read_file',
  effect: 'read',
  kind: 'read',
  argsSchema: ReadFileArgsSchema,
  destructive: () => false,
  targetPaths: (args) => [args.path],
  summarize: (args) => englishText(message('summary.read', { path: args.path })),
  summaryMessage: (args) => message('summary.read', { path: args.path }),
  observe: observeRead,
  async run(_args, ctx): Promise<ToolResult> {
    const target = firstResolvedPath(ctx)
    if (typeof target !== 'string') return target
    try {
      return await readCapped(target, ctx.readReach ?? 'workspace')
    } catch (error) {
      return fsFailure('read', target, error)
    }
  },
}

/**
 * A read that needs a decision observes what it reads before anyone is
 * asked: its real path (a link in the workspace may lead anywhere, which
 * the window then shows) and its identity, bound into the approval, so
 * the read runs only on the file the person was shown.
 */
async function observeRead(
  _args: { path: string },
  resolvedPaths: readonly string[],
): Promise<FileObservation | ToolResult> {
  const target = resolvedPaths[0]
  if (target === undefined) {
    return saidResult(false, message('tool.noCheckedPath'), { code: 'no_path' })
  }
  try {
    return { target: (await observeTarget(target, { readContent: false })).target }
  } catch (error) {
    return fsFailure('read', target, error)
  }
}

/**
 * Reads at most `MAX_TOOL_OUTPUT_BYTES`, without loading the rest of a
 * large file into memory, and says when it stopped early. The file is
 * opened through its directory's handle with no link followed anywhere in
 * the path (anchored-directory.ts), so a link swapped in after the check
 * cannot lead the read outside what was checked. A read that runs unasked
 * as a workspace read refuses a file with several names: its other names
 * may be anywhere, and reading it would show what lies there.
 */
async function readCapped(target: string, reach: 'workspace' | 'any'): Promise<ToolResult> {
  const dir = await DirectoryHandle.open(path.dirname(target), { create: false })
  let handle
  try {
    handle = await dir.openFile(path.basename(target), constants.O_RDONLY)
  } finally {
    await dir.close()
  }
  try {
    const stats = await handle.stat()
    if (!stats.isFile()) {
      const reason = message('fs.notAFile')
      return saidResult(
        false,
        message('tool.cannot', { action: message('verb.read'), path: target, reason }),
        { code: 'not_a_file' },
      )
    }
    if (reach === 'workspace' && stats.nlink > 1) {
      throw new FileRefusal(
        'hard_linked_target',
        `it has ${stats.nlink} names (hard links), which may lead outside the workspace; reading it needs a decision`,
      )
    }
    const buffer = Buffer.alloc(MAX_TOOL_OUTPUT_BYTES)
    let total = 0
    while (total < buffer.length) {
      const { bytesRead } = await handle.read(buffer, total, buffer.length - total, total)
      if (bytesRead === 0) break
      total += bytesRead
    }
    const text = buffer.subarray(0, total).toString('utf8')
    if (stats.size > total) {
      return {
        ok: true,
        output: `${text}\n[output truncated: showed the first ${total} of ${stats.size} bytes]`,
      }
    }
    return { ok: true, output: text }
  } finally {
    await handle.close()
  }
}

export const ListDirArgsSchema = z.strictObject({ path: ToolPathSchema })
export type ListDirArgs = z.infer<typeof ListDirArgsSchema>

/** One entry per line, sorted by name; directories end in `/`, symbolic
 *  links in `@` (a link is listed, never followed). */
export const listDirTool: ToolDefinition<ListDirArgs> = {
  name: 'list_dir',
  effect: 'read',
  kind: 'read',
  argsSchema: ListDirArgsSchema,
  destructive: () => false,
  targetPaths: (args) => [args.path],
  summarize: (args) => englishText(message('summary.list', { path: args.path })),
  summaryMessage: (args) => message('summary.list', { path: args.path }),
  observe: observeRead,
  async run(_args, ctx): Promise<ToolResult> {
    const target = firstResolvedPath(ctx)
    if (typeof target !== 'string') return target
    try {
      // Listed through a handle opened with no link followed: a link
      // swapped in after the check cannot lead the listing elsewhere.
      const dir = await DirectoryHandle.open(target, { create: false })
      let entries
      try {
        entries = await readdir(dir.selfPath(), { withFileTypes: true })
      } finally {
        await dir.close()
      }
      const lines = entries
        .map((entry) => {
          if (entry.isSymbolicLink()) return `${entry.name}@`
          if (entry.isDirectory()) return `${entry.name}/`
          return entry.name
        })
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      if (lines.length === 0) return saidResult(true, message('tool.emptyDirectory'))
      return { ok: true, output: capOutput(lines.join('\n')) }
    } catch (error) {
      return fsFailure('list', target, error)
    }
  },
}

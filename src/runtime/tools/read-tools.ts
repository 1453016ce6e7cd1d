import { constants } from 'node:fs'
import { open, readdir } from 'node:fs/promises'
import { z } from 'zod'
import { englishText, message } from '../../contracts/runtime-message.ts'
import {
  MAX_TOOL_OUTPUT_BYTES,
  NO_FOLLOW,
  ToolPathSchema,
  capOutput,
  firstResolvedPath,
  fsFailure,
  saidResult,
} from './tool-types.ts'
import type { ToolDefinition, ToolResult } from './tool-types.ts'

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
  async run(_args, ctx): Promise<ToolResult> {
    const target = firstResolvedPath(ctx)
    if (typeof target !== 'string') return target
    try {
      return await readCapped(target)
    } catch (error) {
      return fsFailure('read', target, error)
    }
  },
}

/** Reads at most `MAX_TOOL_OUTPUT_BYTES`, without loading the rest of a
 *  large file into memory, and says when it stopped early. */
async function readCapped(target: string): Promise<ToolResult> {
  const handle = await open(target, constants.O_RDONLY | NO_FOLLOW)
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
  async run(_args, ctx): Promise<ToolResult> {
    const target = firstResolvedPath(ctx)
    if (typeof target !== 'string') return target
    try {
      const entries = await readdir(target, { withFileTypes: true })
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

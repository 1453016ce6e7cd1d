import { constants, realpathSync } from 'node:fs'
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
      return await readCapped(target, ctx.readReach ?? 'workspace', ctx.workspace)
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
 * as a workspace read must lie inside the workspace, and refuses a file
 * with several names: its other names may be anywhere, and reading it
 * would show what lies there. Only a regular file is read: what the entry
 * is is looked at before it is opened, and the open does not wait (a named
 * pipe would hold one of libuv's few threads until someone wrote to it).
 */
async function readCapped(
  target: string,
  reach: 'workspace' | 'any',
  workspace: string,
): Promise<ToolResult> {
  if (reach === 'workspace') refuseOutside(workspace, target)
  const dir = await DirectoryHandle.open(path.dirname(target), { create: false })
  let handle
  try {
    const entry = await dir.lstat(path.basename(target))
    if (entry === null) {
      throw Object.assign(new Error(`${target} does not exist`), { code: 'ENOENT' })
    }
    if (entry.isSymbolicLink()) {
      throw new FileRefusal(
        'symlink_refused',
        `${target} is a symbolic link; Assent does not follow it`,
      )
    }
    if (!entry.isFile()) return notAFile(target)
    handle = await dir.openFile(path.basename(target), constants.O_RDONLY | constants.O_NONBLOCK)
  } finally {
    await dir.close()
  }
  try {
    const stats = await handle.stat()
    // Swapped since it was looked at: not what was looked at, whatever it is.
    if (!stats.isFile()) return notAFile(target)
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

/** Refuses what is not a regular file (a directory, a named pipe, a
 *  device): there is nothing to read in it, or reading it would wait. */
function notAFile(target: string): ToolResult {
  const reason = message('fs.notAFile')
  return saidResult(
    false,
    message('tool.cannot', { action: message('verb.read'), path: target, reason }),
    { code: 'not_a_file' },
  )
}

/** Refuses `target` (a real path) unless it lies in the workspace, judged
 *  against the workspace's real path: a read that runs unasked because it
 *  was judged inside the workspace reads nothing else. A workspace that
 *  cannot be resolved holds nothing. */
function refuseOutside(workspace: string, target: string): void {
  let inside = false
  try {
    const rel = path.relative(realpathSync.native(workspace), target)
    inside = path.isAbsolute(target) && rel !== '..' && !rel.startsWith(`..${path.sep}`)
  } catch {
    // Nothing is inside a workspace that cannot be resolved.
  }
  if (!inside) {
    throw new FileRefusal(
      'target_changed',
      `it is outside the workspace ${workspace}, where it was judged to be; reading it needs a decision`,
    )
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
      if ((ctx.readReach ?? 'workspace') === 'workspace') refuseOutside(ctx.workspace, target)
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

import { realpathSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** This installation's gateway, as the runtime runs from its sources. A
 *  runtime bundled elsewhere finds no file here, and so takes no server
 *  for its gateway. */
export const GATEWAY_ENTRY = fileURLToPath(new URL('../../gateway/main.ts', import.meta.url))

/** How Codex would start one MCP server: its `command`, `args`, and
 *  whether its table says anything else that changes what runs (an `env`,
 *  a `cwd`, a URL). */
export interface ServerLaunch {
  command: string
  args: readonly string[]
  /** Keys of its table beyond the launch, turning it off, timeouts and its
   *  tools' settings. */
  otherKeys: readonly string[]
}

export interface GatewayCheck {
  /** The agent's PATH, where a bare `node` or `assent-gateway` is found. */
  searchPath: string | undefined
  /** Folders an agent or the repository it works on can write: a program
   *  found in one is not the person's. */
  writable: readonly string[]
  entry?: string
}

/**
 * Whether `launch` starts this installation's own gateway, which asks the
 * person itself, and nothing else: `node` (found on the agent's PATH, or
 * named by an absolute path outside `writable`) with the gateway's entry
 * as its first argument, or the entry itself (the `assent-gateway` bin,
 * found on PATH, links to it). Nothing else in the server's table. A
 * server named so, or naming the gateway anywhere else in its arguments,
 * is not it: Codex would start whatever its command is.
 */
export function launchesAssentGateway(launch: ServerLaunch, check: GatewayCheck): boolean {
  const own = realPath(check.entry ?? GATEWAY_ENTRY)
  if (own === null || launch.otherKeys.length > 0) return false
  const writable = (file: string) => check.writable.some((folder) => inside(folder, file))
  // A gateway the agent can edit (an Assent checkout as the workspace)
  // runs whatever it was made to.
  if (writable(own)) return false
  const program = located(launch.command, check.searchPath)
  const real = program === null ? null : realPath(program)
  if (program === null || real === null) return false
  // By its name and by where it leads: a link outside to a program inside
  // is the program inside.
  if (writable(program) || writable(real)) return false
  const name = path.basename(program)
  if (name !== 'node' && name !== 'node.exe') return real === own
  const first = launch.args[0]
  return first !== undefined && path.isAbsolute(first) && realPath(first) === own
}

/** The program `command` names: itself when absolute, looked up on
 *  `searchPath` when a bare name, and null otherwise (a relative path
 *  depends on the folder Codex starts the server in). */
function located(command: string, searchPath: string | undefined): string | null {
  if (path.isAbsolute(command)) return command
  if (command === '' || command.includes('/') || command.includes('\\')) return null
  for (const folder of (searchPath ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(folder)) continue
    const candidate = path.join(folder, command)
    if (realPath(candidate) !== null) return candidate
  }
  return null
}

function realPath(file: string): string | null {
  try {
    return realpathSync(file)
  } catch {
    return null
  }
}

/** Whether `file` is `folder` or lies beneath it (both absolute). */
function inside(folder: string, file: string): boolean {
  const relative = path.relative(folder, file)
  return relative === '' || (!path.isAbsolute(relative) && relative.split(path.sep)[0] !== '..')
}

import { join } from 'node:path'
import { AgentContainment } from './agent-containment.ts'
import { ALLOW_UNCONTAINED_ENV, CommandSandbox } from './command-sandbox.ts'

export interface CommandSandboxStart {
  dataDir: string
  /** mcp.json as the runtime reads it. */
  mcpConfigPath: string
  /** agents.json, when not the data folder's. */
  agentsConfigPath: string | undefined
  /** The runtime's environment: HOME, PATH, the uncontained setting. */
  env: NodeJS.ProcessEnv
  log: (line: string) => void
  /** Where bubblewrap is looked for before PATH (CommandSandboxOptions). */
  systemBinFolders?: readonly string[]
}

/**
 * The runtime's one command sandbox. Assent's own files are hidden from
 * every command: the data folder (the database, sealed keys, the gateway
 * connection file, which lives in it) and the config files, which may lie
 * elsewhere and may hold an MCP server's credentials.
 *
 * The uncontained setting is read here, once, and said loudly when on: it
 * lets commands that were promised containment run with every right the
 * person has wherever no sandbox can start.
 */
export function commandSandboxAtStart(start: CommandSandboxStart): CommandSandbox {
  const allowUncontained = start.env[ALLOW_UNCONTAINED_ENV] === '1'
  if (allowUncontained) {
    start.log(
      `[runtime] WARNING: ${ALLOW_UNCONTAINED_ENV}=1: where no sandbox can start, commands run NOT CONTAINED, with all the rights of this account; the protected window says so on each one.`,
    )
  }
  const sandbox = new CommandSandbox({
    env: start.env,
    assentPrivate: assentPrivateOf(start),
    allowUncontained,
    ...(start.systemBinFolders === undefined ? {} : { systemBinFolders: start.systemBinFolders }),
  })
  // Tried now, before any agent has run a command: bubblewrap is found in
  // the system's folders or on the PATH the runtime started with, before a
  // command could put a program of that name in a folder on it, and the
  // person learns at start, not at the first refusal, that commands will
  // be refused here.
  void sandbox.available().then((availability) => {
    if (availability.available) return
    start.log(
      `[runtime] no command sandbox: ${availability.missing}. Commands in rooms that are not in full access will be ${allowUncontained ? 'run NOT CONTAINED' : 'refused'}. To fix it, ${availability.fix}.`,
    )
  })
  return sandbox
}

/** Assent's own files, hidden from every command and every agent. */
function assentPrivateOf(start: CommandSandboxStart): string[] {
  return [
    start.dataDir,
    start.mcpConfigPath,
    start.agentsConfigPath ?? join(start.dataDir, 'agents.json'),
  ]
}

/** The containment external agents start in: the same files hidden as
 *  from commands (sandbox/agent-containment.ts), under the same setting. */
export function agentContainmentAtStart(start: CommandSandboxStart): AgentContainment {
  return new AgentContainment({
    env: start.env,
    assentPrivate: assentPrivateOf(start),
    allowUncontained: start.env[ALLOW_UNCONTAINED_ENV] === '1',
  })
}

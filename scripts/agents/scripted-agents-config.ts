import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import type { AcpSessionModes } from '../../src/contracts/agents-config.ts'
import { KNOWN_ACP_SESSION_MODES } from '../../src/runtime/external-agents/agent-mode-mapping.ts'
import { AGENTS_CONFIG_FILE_NAME } from '../../src/runtime/external-agents/agents-config-loader.ts'
import { onSearchPath, type InstalledAgents } from './agent-cache.ts'
import { scriptedClaudeEnvironment } from './claude-environment.ts'
import { writeScriptedCodexHome } from './codex-home.ts'

/** The agents.json ids the tests and the smoke scenario give the real
 *  agents: Codex's app-server, codex-acp, and claude-agent-acp. */
export const CODEX_AGENT_ID = 'codex'
export const ACP_AGENT_ID = 'codex-acp'
export const CLAUDE_AGENT_ID = 'claude-acp'
export const CODEX_AGENT_NAME = 'Codex CLI'
export const ACP_AGENT_NAME = 'Codex over ACP'
export const CLAUDE_AGENT_NAME = 'Claude over ACP'

/** This process's PATH, with Codex's `bwrap` after it when the system has
 *  none: codex-acp's sandbox needs one, and ships none. */
export function pathWithBwrap(agents: InstalledAgents): string {
  const path = process.env.PATH ?? ''
  return onSearchPath('bwrap', path) ? path : `${path}${delimiter}${agents.codexResources}`
}

/** A throwaway Codex home (HOME and CODEX_HOME) outside the temporary
 *  folder: Codex creates no sandbox helper under it, and without one
 *  codex-acp's read-only sandbox cannot start a command. */
export function makeAgentHome(fallbackRoot: string): string {
  return mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : fallbackRoot, 'assent-agent-home-'))
}

/** The agents.json entry for claude-agent-acp: its entry point run with the
 *  Node that runs this (an absolute path), with `environment`. */
export function claudeAgentEntry(
  agents: InstalledAgents,
  environment: Record<string, string>,
): Record<string, unknown> {
  return {
    id: CLAUDE_AGENT_ID,
    name: CLAUDE_AGENT_NAME,
    protocol: 'acp',
    command: process.execPath,
    args: [agents.claudeAcp],
    set_env: environment,
    session_modes: KNOWN_ACP_SESSION_MODES['claude-agent-acp'],
  }
}

/** The agents.json that names the real agents, each run with `environment`
 *  (the throwaway Codex home) and a PATH with a `bwrap` on it; Claude with
 *  `claudeEnvironment`, which points it at the scripted Messages API. */
export function scriptedAgentsConfig(
  agents: InstalledAgents,
  environment: Record<string, string>,
  claudeEnvironment: Record<string, string>,
  acpSessionModes: AcpSessionModes = KNOWN_ACP_SESSION_MODES['codex-acp'],
): unknown {
  const setEnv = { ...environment, PATH: pathWithBwrap(agents) }
  return {
    agents: [
      {
        id: CODEX_AGENT_ID,
        name: CODEX_AGENT_NAME,
        protocol: 'codex-app-server',
        command: agents.codex,
        args: ['app-server'],
        set_env: setEnv,
      },
      {
        id: ACP_AGENT_ID,
        name: ACP_AGENT_NAME,
        protocol: 'acp',
        command: agents.codexAcp,
        set_env: setEnv,
        session_modes: acpSessionModes,
      },
      claudeAgentEntry(agents, { ...claudeEnvironment, PATH: setEnv.PATH }),
    ],
  }
}

/**
 * Makes a throwaway home that points the Codex agents at the scripted
 * Responses model (trusting `workspace`) and Claude at the scripted
 * Messages API, and writes the agents.json that names the real agents into
 * `dataDir`, where the runtime reads it when it starts. Returns the home,
 * for the caller to remove.
 */
export function writeScriptedAgents(
  agents: InstalledAgents,
  options: {
    dataDir: string
    workspace: string
    modelBaseUrl: string
    messagesBaseUrl: string
    fallbackRoot: string
    /** codex-acp's session modes, where a test names its own (a person's
     *  agents.json may); those the docs suggest otherwise. */
    acpSessionModes?: AcpSessionModes
  },
): string {
  const home = makeAgentHome(options.fallbackRoot)
  const environment = writeScriptedCodexHome(home, options.modelBaseUrl, options.workspace)
  const claude = scriptedClaudeEnvironment(home, options.messagesBaseUrl)
  writeFileSync(
    join(options.dataDir, AGENTS_CONFIG_FILE_NAME),
    JSON.stringify(scriptedAgentsConfig(agents, environment, claude, options.acpSessionModes)),
  )
  return home
}

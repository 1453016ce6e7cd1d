import { realpathSync, rmSync } from 'node:fs'
import { findInstalledAgents, INSTALL_FIX, type InstalledAgents } from '../agents/agent-cache.ts'
import { writeScriptedAgents } from '../agents/scripted-agents-config.ts'
import {
  startScriptedModelServer,
  type ScriptedModelServer,
} from '../agents/scripted-model-server.ts'
import {
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from '../agents/scripted-messages-server.ts'

/** Where the run's state holds the agents for the cases. */
export const SMOKE_AGENTS_STATE = 'smokeAgents'

/** The real agents the scenario's external-agent cases run, or why there
 *  are none: those cases then fail with what to install. */
export type SmokeAgents =
  | {
      ready: true
      model: ScriptedModelServer
      /** The installed agents, and the run's folders, for a case that starts
       *  an agent itself (Codex as an MCP client of the gateway). */
      installed: InstalledAgents
      dirs: { root: string; dataDir: string; workspace: string }
      messages: ScriptedMessagesServer
      close(): Promise<void>
    }
  | { ready: false; missing: string; close(): Promise<void> }

/**
 * Before the host starts: the pinned Codex CLI and codex-acp as agents.json
 * entries in the throwaway data folder, talking to a scripted model on
 * loopback through a throwaway Codex home that trusts the scenario's
 * workspace. The model is for the scenario only; what the agents run
 * because of it really runs, in the workspace.
 */
export async function startSmokeAgents(dirs: {
  root: string
  dataDir: string
  workspace: string
}): Promise<SmokeAgents> {
  const found = findInstalledAgents()
  if ('missing' in found) {
    return { ready: false, missing: `${found.missing}; ${INSTALL_FIX}`, close: async () => {} }
  }
  const model = await startScriptedModelServer([])
  const messages = await startScriptedMessagesServer([])
  const home = writeScriptedAgents(found.agents, {
    dataDir: dirs.dataDir,
    workspace: realpathSync(dirs.workspace),
    modelBaseUrl: model.baseUrl,
    messagesBaseUrl: messages.baseUrl,
    fallbackRoot: dirs.root,
  })
  return {
    ready: true,
    model,
    installed: found.agents,
    dirs,
    messages,
    async close() {
      await model.close()
      await messages.close()
      rmSync(home, { recursive: true, force: true })
    },
  }
}

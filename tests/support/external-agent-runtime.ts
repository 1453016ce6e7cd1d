import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterAll, beforeAll } from 'vitest'
import { z } from 'zod'
import { ApprovalSummarySchema, type ApprovalView } from '../../src/contracts/approval.ts'
import type { AcpSessionModes } from '../../src/contracts/agents-config.ts'
import type { Timeline, Turn } from '../../src/contracts/room.ts'
import { DATABASE_FILE_NAME } from '../../src/runtime/store/database.ts'
import type { InstalledAgents } from '../../scripts/agents/agent-cache.ts'
import {
  startScriptedModelServer,
  type ScriptedModelServer,
} from '../../scripts/agents/scripted-model-server.ts'
import {
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from '../../scripts/agents/scripted-messages-server.ts'
import { writeScriptedAgents } from '../../scripts/agents/scripted-agents-config.ts'
import { createRoom, send, timeline } from './room-helpers.ts'
import { eventually, startHarness, type RuntimeHarness } from './runtime-harness.ts'
import { AGENT_WAIT_MS, realAgentsOrSkip } from './external-agent-testbed.ts'

import { ACP_AGENT_ID, CODEX_AGENT_ID } from '../../scripts/agents/scripted-agents-config.ts'

export {
  ACP_AGENT_ID,
  CLAUDE_AGENT_ID,
  CODEX_AGENT_ID,
} from '../../scripts/agents/scripted-agents-config.ts'

/** The two agents that talk to the scripted Responses model, as table
 *  rows: Codex's app-server and codex-acp. */
export const CODEX_AGENTS = [
  { agent: 'Codex (app-server)', agentId: CODEX_AGENT_ID },
  { agent: 'codex-acp', agentId: ACP_AGENT_ID },
] as const

/**
 * A real runtime process whose agents.json names the real agents (the
 * pinned Codex CLI, codex-acp and claude-agent-acp), which talk to scripted
 * models on loopback through a throwaway home. Only the model is scripted:
 * what the agent runs in the workspace really runs.
 */
export interface AgentRuntime {
  harness: RuntimeHarness
  model: ScriptedModelServer
  /** The Messages API model claude-agent-acp talks to. */
  messages: ScriptedMessagesServer
  /** The Codex home the agents run with (HOME and CODEX_HOME). */
  home: string
  close(): Promise<void>
}

export async function startAgentRuntime(
  agents: InstalledAgents,
  options: { approvalTtlMs?: number; acpSessionModes?: AcpSessionModes } = {},
): Promise<AgentRuntime> {
  // realpath: the agents report the resolved path (/tmp may be a link).
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-agent-rt-')))
  const workspace = join(root, 'workspace')
  mkdirSync(join(root, 'data'), { recursive: true })
  mkdirSync(workspace, { recursive: true })
  const model = await startScriptedModelServer([])
  const messages = await startScriptedMessagesServer([])
  const home = writeScriptedAgents(agents, {
    dataDir: join(root, 'data'),
    workspace,
    modelBaseUrl: model.baseUrl,
    messagesBaseUrl: messages.baseUrl,
    fallbackRoot: root,
    ...(options.acpSessionModes ? { acpSessionModes: options.acpSessionModes } : {}),
  })
  const harness = await startHarness({
    root,
    ...(options.approvalTtlMs === undefined ? {} : { approvalTtlMs: options.approvalTtlMs }),
  })
  return {
    harness,
    model,
    messages,
    home,
    async close() {
      await harness.close()
      await model.close()
      await messages.close()
      rmSync(home, { recursive: true, force: true })
      rmSync(root, { recursive: true, force: true })
    },
  }
}

/** One runtime for a test file, with the real agents: started before its
 *  tests and closed after them, and nothing at all when the agents are not
 *  installed (`agents` is then undefined, and the tests skip). */
export interface SharedAgentRuntime {
  readonly agents: InstalledAgents | undefined
  /** Set once the file's tests start. */
  runtime: AgentRuntime
  /** A path in the runtime's workspace. */
  inWorkspace(file: string): string
}

export function useAgentRuntime(
  options: { approvalTtlMs?: number; acpSessionModes?: AcpSessionModes } = {},
): SharedAgentRuntime {
  const shared = {
    agents: realAgentsOrSkip(),
    inWorkspace: (file: string) => join(shared.runtime.harness.workspace, file),
  } as SharedAgentRuntime
  beforeAll(async () => {
    if (shared.agents) shared.runtime = await startAgentRuntime(shared.agents, options)
  }, AGENT_WAIT_MS)
  afterAll(async () => {
    // Unset when the agents are missing and nothing was started.
    const started = shared.runtime as AgentRuntime | undefined
    await started?.close()
  }, AGENT_WAIT_MS)
  return shared
}

export { processRunning } from '../../src/runtime/test-support/processes.ts'

/** A direct room with `agentId` in the runtime's workspace. */
export async function agentRoom(runtime: AgentRuntime, agentId: string): Promise<string> {
  return (await createRoom(runtime.harness, { agentId })).id
}

/** Sends a message and waits for the approval its turn asks for. */
export async function askedApproval(
  runtime: AgentRuntime,
  roomId: string,
  text = 'please do the scripted thing',
): Promise<{ turnId: string; view: ApprovalView }> {
  const turnId = await send(runtime.harness, roomId, text)
  return { turnId, view: await nextApproval(runtime, roomId, turnId) }
}

/** The turn's next pending approval. */
export async function nextApproval(
  runtime: AgentRuntime,
  roomId: string,
  turnId: string,
): Promise<ApprovalView> {
  const summary = await eventually(async () => {
    const { approvals } = await runtime.harness.client.request(
      z.object({ approvals: z.array(ApprovalSummarySchema) }),
      'GET',
      `/v1/rooms/${roomId}/approvals`,
    )
    return approvals.find((approval) => approval.turnId === turnId && approval.status === 'pending')
  }, `a pending approval in turn ${turnId}`)
  return runtime.harness.client.getApproval(summary.id)
}

/** Waits until the turn has ended, and returns the room's timeline then. */
export async function turnEnded(
  runtime: AgentRuntime,
  roomId: string,
  turnId: string,
): Promise<{ turn: Turn; timeline: Timeline }> {
  return eventually(async () => {
    const current = await timeline(runtime.harness, roomId)
    const turn = current.turns.find((candidate) => candidate.id === turnId)
    if (!turn || turn.status === 'running' || turn.status === 'waiting') return undefined
    return { turn, timeline: current }
  }, `turn ${turnId} to end`)
}

/** The texts of the turn's messages from `role`. */
export function messagesOf(
  current: Timeline,
  turnId: string,
  role: 'agent' | 'system' | 'user',
): string[] {
  return current.messages
    .filter((message) => message.turnId === turnId && message.role === role)
    .map((message) => message.text)
}

/**
 * Rewrites an open approval's stored arguments on disk, as someone with
 * write access to the data folder could: the runtime then shows (and a token
 * is minted for) something other than what the agent asked.
 */
export function rewriteApprovalArguments(
  runtime: AgentRuntime,
  approvalId: string,
  edit: (args: Record<string, unknown>) => Record<string, unknown>,
): void {
  const db = new DatabaseSync(join(runtime.harness.dataDir, DATABASE_FILE_NAME))
  try {
    db.exec('PRAGMA busy_timeout = 10000')
    const row = db.prepare('SELECT arguments_json FROM approvals WHERE id = ?').get(approvalId)
    if (!row) throw new Error(`no approval ${approvalId} on disk`)
    const args = JSON.parse(String(row.arguments_json)) as Record<string, unknown>
    db.prepare('UPDATE approvals SET arguments_json = ? WHERE id = ?').run(
      JSON.stringify(edit(args)),
      approvalId,
    )
  } finally {
    db.close()
  }
}

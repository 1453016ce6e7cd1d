import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { afterEach, expect } from 'vitest'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  ExternalAgentConfigSchema,
  type AcpAgentConfig,
  type AcpSessionModes,
  type CodexAgentConfig,
} from '../../src/contracts/agents-config.ts'
import { KNOWN_ACP_SESSION_MODES } from '../../src/runtime/external-agents/agent-mode-mapping.ts'
import type { PermissionMode } from '../../src/contracts/policy-axes.ts'
import type {
  ExternalActionRequest,
  ExternalAgentEvent,
  ExternalAgentSession,
  ExternalApprovalAsker,
  ExternalDecision,
  ExternalTurnOutcome,
} from '../../src/runtime/external-agents/external-agent-port.ts'
import {
  findInstalledAgents,
  INSTALL_FIX,
  type InstalledAgents,
} from '../../scripts/agents/agent-cache.ts'
import { writeScriptedCodexHome } from '../../scripts/agents/codex-home.ts'
import { scaledMs } from '../../scripts/test-timing.ts'
import { makeAgentHome, pathWithBwrap } from '../../scripts/agents/scripted-agents-config.ts'
import {
  startScriptedModelServer,
  type ScriptedModelServer,
  type ScriptedModelStep,
} from '../../scripts/agents/scripted-model-server.ts'
import {
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from '../../scripts/agents/scripted-messages-server.ts'
import { scriptedClaudeEnvironment } from '../../scripts/agents/claude-environment.ts'
import { claudeAgentEntry } from '../../scripts/agents/scripted-agents-config.ts'
import { requireOrSkip } from './require-or-skip.ts'

/** Ceiling for anything the real agents do: start, ask, finish a turn. They
 *  take well under ten seconds on a busy two-core machine. Scaled like every
 *  ceiling (scripts/test-timing.ts). */
export const AGENT_WAIT_MS = scaledMs(60_000)

/** The installed real agents, or undefined after printing why the tests that
 *  need them skip (with ASSENT_REQUIRE_ALL=1, throws instead). */
export function realAgentsOrSkip(): InstalledAgents | undefined {
  const found = findInstalledAgents()
  const missing = 'missing' in found ? found.missing : undefined
  if (
    !requireOrSkip(
      'the pinned real agents (Codex CLI, codex-acp, claude-agent-acp)',
      missing,
      INSTALL_FIX,
    )
  ) {
    return undefined
  }
  return 'agents' in found ? found.agents : undefined
}

/** One asked request, and the signal the adapter gave with it. */
export interface AskedRequest {
  request: ExternalActionRequest
  signal: AbortSignal
}

/** An asker that answers from a test's script and records what it was asked. */
export class ScriptedAsker implements ExternalApprovalAsker {
  readonly asked: AskedRequest[] = []
  private readonly answer: (request: ExternalActionRequest) => Promise<ExternalDecision>

  constructor(
    answer: ExternalDecision | ((request: ExternalActionRequest) => Promise<ExternalDecision>),
  ) {
    this.answer = typeof answer === 'string' ? async () => answer : answer
  }

  ask(request: ExternalActionRequest, signal: AbortSignal): Promise<ExternalDecision> {
    this.asked.push({ request, signal })
    return this.answer(request)
  }
}

/**
 * A throwaway world for one real agent: a workspace, a home (HOME and
 * CODEX_HOME) whose Codex configuration points at a scripted model on
 * loopback, a scripted Messages API for Claude, the events the adapter
 * emitted, and helpers to wait for them.
 */
export class ExternalAgentTestbed {
  readonly root: string
  readonly workspace: string
  readonly home: string
  readonly events: ExternalAgentEvent[] = []
  private readonly waiters = new Set<() => void>()
  private readonly agents: InstalledAgents
  private readonly environment: Record<string, string>
  readonly model: ScriptedModelServer
  /** The model behind claude-agent-acp; script it before the turn. */
  readonly messages: ScriptedMessagesServer
  /** Where Assent looks for the machine's Codex and Claude settings in
   *  these tests (in place of `/etc/codex` and `/etc/claude-code`), so a
   *  test can put some there; the agents still read the real ones. */
  readonly machineSettings: { codex: string; claude: string }

  private constructor(
    agents: InstalledAgents,
    model: ScriptedModelServer,
    messages: ScriptedMessagesServer,
  ) {
    this.agents = agents
    this.model = model
    this.messages = messages
    // realpath: the agents report the resolved path (/tmp may be a link).
    this.root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-agent-')))
    this.workspace = join(this.root, 'workspace')
    mkdirSync(this.workspace)
    this.machineSettings = {
      codex: join(this.root, 'etc', 'codex'),
      claude: join(this.root, 'etc', 'claude-code'),
    }
    this.home = makeAgentHome(this.root)
    this.environment = writeScriptedCodexHome(this.home, model.baseUrl, this.workspace)
  }

  static async create(
    agents: InstalledAgents,
    steps: readonly ScriptedModelStep[],
  ): Promise<ExternalAgentTestbed> {
    return new ExternalAgentTestbed(
      agents,
      await startScriptedModelServer(steps),
      await startScriptedMessagesServer(),
    )
  }

  readonly onEvent = (event: ExternalAgentEvent): void => {
    this.events.push(event)
    for (const wake of [...this.waiters]) wake()
  }

  /** The agents.json entry for Codex's app-server, through the real schema. */
  codexConfig(): CodexAgentConfig {
    const config = ExternalAgentConfigSchema.parse({
      id: 'codex',
      protocol: 'codex-app-server',
      command: this.agents.codex,
      args: ['app-server'],
      set_env: this.agentEnvironment(),
    })
    if (config.protocol !== 'codex-app-server') throw new Error('not a Codex entry')
    return config
  }

  /** The agents.json entry for codex-acp, with the suggested session modes. */
  acpConfig(sessionModes: AcpSessionModes = KNOWN_ACP_SESSION_MODES['codex-acp']): AcpAgentConfig {
    const config = ExternalAgentConfigSchema.parse({
      id: 'codex-acp',
      protocol: 'acp',
      command: this.agents.codexAcp,
      set_env: this.agentEnvironment(),
      session_modes: sessionModes,
    })
    if (config.protocol !== 'acp') throw new Error('not an ACP entry')
    return config
  }

  /** The agents.json entry for claude-agent-acp, with the suggested session
   *  modes, pointed at this testbed's scripted Messages API. */
  claudeConfig(): AcpAgentConfig {
    const environment = {
      ...scriptedClaudeEnvironment(this.home, this.messages.baseUrl),
      PATH: pathWithBwrap(this.agents),
    }
    const config = ExternalAgentConfigSchema.parse(claudeAgentEntry(this.agents, environment))
    if (config.protocol !== 'acp') throw new Error('not an ACP entry')
    return config
  }

  /** The throwaway home, and a PATH with a `bwrap` on it. */
  private agentEnvironment(): Record<string, string> {
    return { ...this.environment, PATH: pathWithBwrap(this.agents) }
  }

  /** Waits for the first event `match` accepts, emitted so far or later. */
  waitForEvent<T extends ExternalAgentEvent>(
    match: (event: ExternalAgentEvent) => event is T,
    what: string,
  ): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const found = this.events.find(match)
        if (!found) return
        clearTimeout(timer)
        this.waiters.delete(check)
        resolve(found)
      }
      const timer = setTimeout(() => {
        this.waiters.delete(check)
        reject(new Error(`no ${what} within ${AGENT_WAIT_MS} ms`))
      }, AGENT_WAIT_MS)
      this.waiters.add(check)
      check()
    })
  }

  waitForApprovalRequest(): Promise<Extract<ExternalAgentEvent, { type: 'approval-requested' }>> {
    return this.waitForEvent(
      (e): e is Extract<ExternalAgentEvent, { type: 'approval-requested' }> =>
        e.type === 'approval-requested',
      'approval request',
    )
  }

  eventsOf<K extends ExternalAgentEvent['type']>(
    type: K,
  ): Extract<ExternalAgentEvent, { type: K }>[] {
    return this.events.filter(
      (event): event is Extract<ExternalAgentEvent, { type: K }> => event.type === type,
    )
  }

  async dispose(): Promise<void> {
    await this.model.close()
    await this.messages.close()
    rmSync(this.root, { recursive: true, force: true })
    rmSync(this.home, { recursive: true, force: true })
  }
}

/** Each answer the adapter sent, as `decision->answer in the agent's terms`. */
export function answered(bed: ExternalAgentTestbed): string[] {
  return bed.eventsOf('approval-answered').map((event) => `${event.decision}->${event.answer}`)
}

export interface AgentSessions<C extends ExternalAgentSession> {
  /** A fresh testbed scripted with `steps`, and a started session on it. */
  start(
    steps: ScriptedModelStep[],
    asker: ScriptedAsker,
    mode?: PermissionMode,
  ): Promise<{ bed: ExternalAgentTestbed; session: C }>
  /** The same, then one turn. */
  run(
    steps: ScriptedModelStep[],
    asker: ScriptedAsker,
    mode?: PermissionMode,
  ): Promise<{ bed: ExternalAgentTestbed; session: C; outcome: ExternalTurnOutcome }>
}

/**
 * Sessions of one adapter on the real agents, each on its own testbed, all
 * closed (the agent process stopped, the folders removed) after each test.
 */
export function useAgentSessions<C extends ExternalAgentSession>(
  agents: InstalledAgents | undefined,
  open: (bed: ExternalAgentTestbed, asker: ScriptedAsker) => C,
): AgentSessions<C> {
  const opened: Array<{ bed: ExternalAgentTestbed; session: C }> = []
  afterEach(async () => {
    for (const { bed, session } of opened.splice(0)) {
      await session.close()
      await bed.dispose()
    }
  })
  const start: AgentSessions<C>['start'] = async (steps, asker, mode = 'ask-for-approval') => {
    if (!agents) throw new Error('the real agents are not installed')
    const bed = await ExternalAgentTestbed.create(agents, steps)
    const session = open(bed, asker)
    opened.push({ bed, session })
    await session.start(mode)
    return { bed, session }
  }
  return {
    start,
    async run(steps, asker, mode) {
      const { bed, session } = await start(steps, asker, mode)
      const outcome = await session.runTurn('please do the scripted thing')
      return { bed, session, outcome }
    },
  }
}

/** The file writeCodexNotify's command touches: beside the workspace,
 *  where no sandbox Codex gives a thread lets a command write. */
export const codexNotifyMarker = (bed: ExternalAgentTestbed) => join(bed.root, 'notified')

/** A `notify` command at the top of the Codex config in the testbed's home,
 *  which Codex runs itself after every turn: it touches codexNotifyMarker. */
export function writeCodexNotify(bed: ExternalAgentTestbed): void {
  const marker = codexNotifyMarker(bed)
  const config = join(bed.home, 'config.toml')
  // A top-level key: before the config's first table, or it would be that
  // table's.
  const notify = `notify = ["sh", "-c", ${JSON.stringify(`touch ${marker}`)}, "sh"]\n`
  writeFileSync(config, notify + readFileSync(config, 'utf8'))
}

/**
 * Sessions prepared with writeCodexNotify: none starts in an asking room,
 * each refusal naming the notify command, and nobody is asked; in full
 * access (which asks nothing anyway) one starts, and after its turn the
 * agent has run the command itself, where no sandbox lets a command write.
 */
export async function expectNotifyRefusedUnlessFullAccess(
  sessions: AgentSessions<ExternalAgentSession>,
): Promise<void> {
  const asker = new ScriptedAsker('allow-once')
  for (const mode of ['ask-for-approval', 'plan'] as const) {
    await expect(sessions.start([], asker, mode)).rejects.toThrow(
      /^Codex's own settings would let it act without asking Assent: .*config\.toml \(its notify command\)\./,
    )
  }
  const { bed, session } = await sessions.start(
    [{ type: 'reply', text: 'ok' }],
    asker,
    'full-access',
  )
  expect(await session.runTurn('go')).toEqual({ status: 'completed', detail: null })
  await expect.poll(() => existsSync(codexNotifyMarker(bed)), { timeout: AGENT_WAIT_MS }).toBe(true)
  expect(asker.asked).toHaveLength(0)
}

/** A Codex rules file in `folder`'s `rules/` that allows `touch` and any
 *  `bash -lc` script, as Codex writes when someone picks "don't ask again"
 *  for them; its path. */
export function writeCodexAllowRules(folder: string): string {
  mkdirSync(join(folder, 'rules'), { recursive: true })
  const file = join(folder, 'rules', 'default.rules')
  writeFileSync(
    file,
    [
      'prefix_rule(pattern=["touch"], decision="allow")',
      'prefix_rule(pattern=["/bin/bash", "-lc"], decision="allow")',
      'prefix_rule(pattern=["bash", "-lc"], decision="allow")',
      '',
    ].join('\n'),
  )
  return file
}

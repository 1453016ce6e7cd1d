import { randomBytes, randomUUID } from 'node:crypto'
import type { Server } from 'node:http'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { AgentRunner } from './agent/agent-runner.ts'
import { grantForDecision } from './agent/grant-issuer.ts'
import type { AgentModel } from './agent/agent-model.ts'
import { ApproverWebhooks } from './approver/approver-webhooks.ts'
import { ConsentTokenVerifier } from '../consent/consent-token.ts'
import { DEFAULT_APPROVAL_TTL_MS } from '../contracts/approval.ts'
import { Refusal } from './domain/refusal.ts'
import { EventBus } from './events/event-bus.ts'
import { AgentBackends } from './external-turns/agent-backends.ts'
import { ApprovalGate } from './gate/approval-gate.ts'
import { ApprovalRequester } from './gate/approval-requester.ts'
import { QUESTION_PHASE_MS } from '../contracts/input-request.ts'
import { InputRequestService } from './input/input-request-service.ts'
import { GatewayCallService } from './mcp/gateway-call-service.ts'
import { GatewayModeService } from './mcp/gateway-mode-service.ts'
import { GatewayElicitations } from './mcp/gateway-elicitations.ts'
import { auditedMcpConfigReports, loadMcpConfigAtStart } from './mcp/mcp-config-at-start.ts'
import { loadMcpConfig, mcpConfigFile } from './mcp/mcp-config-loader.ts'
import { McpConfigReloader } from './mcp/mcp-config-reloader.ts'
import { McpElicitationRouter } from './mcp/mcp-elicitation.ts'
import { McpRoomCalls } from './mcp/mcp-room-calls.ts'
import { McpServerRegistry, runtimeMcpTimeoutMs } from './mcp/mcp-server-registry.ts'
import { RuleBasedReviewer, type ActionReviewer } from './policy/reviewer.ts'
import { keepAsAssentOwn } from './policy/assent-own-paths.ts'
import { keepCredentialPlacesOf } from './policy/environment-credentials.ts'
import type { RollbackAnchor } from './ports/rollback-anchor.ts'
import { recoverFromCrash } from './recovery/crash-recovery.ts'
import { storedRoomNow } from './rooms/stored-room-now.ts'
import { RoomService } from './rooms/room-service.ts'
import { TurnService } from './rooms/turn-service.ts'
import { startAgents } from './runtime-agents.ts'
import type { AgentContainmentPort } from './domain/agent-containment-port.ts'
import {
  agentContainmentAtStart,
  commandSandboxAtStart,
} from './sandbox/command-sandbox-at-start.ts'
import type { CommandSandbox } from './sandbox/command-sandbox.ts'
import { runtimeRouter, serveRuntime } from './runtime-http.ts'
import { openRuntimeStorage } from './runtime-storage.ts'

/*
 * One runtime instance, wired: its store (runtime-storage.ts), the gate and
 * the services over it, its agents (runtime-agents.ts) and its HTTP edge
 * (runtime-http.ts), started in the order crash and rollback recovery need,
 * and closed in the reverse.
 */

export const EXPIRY_SWEEP_MS = 250

export interface RuntimeOptions {
  bearerToken: string
  consentKey: Buffer
  /** 32 bytes from the OS keychain, read by main: seals the audit log, room
   *  permissions and grants on disk. */
  integrityKey: Buffer
  dataDir: string
  /** The data folder's rollback anchor as main read it before this start (null:
   *  none stored yet), and main's side of it, which advances it
   *  (docs/integrity.md#rollback). */
  rollback: { stored: number | null; anchor: RollbackAnchor }
  approvalTtlMs?: number
  /** Each phase of an ordinary question's wait; `QUESTION_PHASE_MS` unless
   *  a test or the smoke scenario shortens it. */
  questionPhaseMs?: number
  /** mcp.json; `<dataDir>/mcp.json` when absent. */
  mcpConfigPath?: string
  /** agents.json; `<dataDir>/agents.json` when absent. */
  agentsConfigPath?: string
  scopedRoots?: readonly string[]
  /** What decides the agent's steps; the offline model by default. */
  model?: AgentModel
  /** What every command an agent runs is started through; by default one
   *  that hides the data folder and config files, with the person's HOME and
   *  the uncontained setting read from this process's environment. */
  commandSandbox?: CommandSandbox
  /** Where external agents start; by default with what the command
   *  sandbox hides hidden from them too (sandbox/agent-containment.ts). */
  agentContainment?: AgentContainmentPort
  /** The approve-for-me reviewer; the rule-based one by default. */
  reviewer?: ActionReviewer
  /** How long the reviewer may take before it counts as a denial;
   *  `REVIEWER_TIMEOUT_MS` by default. */
  reviewerTimeoutMs?: number
  /** How long a room's approver webhook may take before its silence counts
   *  as a denial; `WEBHOOK_TIMEOUT_MS` by default. */
  approverWebhookTimeoutMs?: number
  now?: () => number
  onError?: (error: unknown) => void
  /** The store can no longer make writes durable. Default: exit, so that
   *  main restarts the runtime instead of it answering about lost writes. */
  onFatal?: (error: Error) => void
}

export interface RuntimeHandle {
  port: number
  instanceId: string
  server: Server
  runner: AgentRunner
  /** Questions and forms; `inputs.requestForm` is the MCP elicitation entry. */
  inputs: InputRequestService
  close(): Promise<void>
}

/** Wires the store, gate, agent and HTTP server of one runtime instance. */
export async function startRuntime(options: RuntimeOptions): Promise<RuntimeHandle> {
  const now = options.now ?? Date.now
  const onError = options.onError ?? ((error) => console.error('[runtime]', error))
  const instanceId = randomUUID()
  const events = new EventBus()
  const storage = await openRuntimeStorage({
    integrityKey: options.integrityKey,
    dataDir: options.dataDir,
    rollback: options.rollback,
    ...(options.onFatal === undefined ? {} : { onFatal: options.onFatal }),
    events,
    now,
    onError,
  })
  const { db, durability, audit, rooms, conversations, grants, rollback, approvals } = storage
  const durable = () => durability.durable()
  // What every door reads of the room right before a call acts: a running
  // turn is judged under the narrower of its frozen policy and this.
  const room = storedRoomNow({ rooms, grants, webhooks: storage.webhooks })
  const approverWebhooks = new ApproverWebhooks({
    store: storage.webhooks,
    requireRoom: (roomId) => {
      if (!rooms.get(roomId)) throw new Refusal('unknown_room', 'unknown room')
    },
    now,
    randomBytes,
    beforeWidening: () => rollback.beforeWidening(),
    events,
    ...(options.approverWebhookTimeoutMs === undefined
      ? {}
      : { timeoutMs: options.approverWebhookTimeoutMs }),
  })

  const gate = new ApprovalGate({
    approvals,
    events,
    now,
    // An allow-always grant commits with the user's decision or not at all,
    // and only while the rollback anchor is not behind.
    grantFor: (approval) => grantForDecision(approval, { now }),
    beforeGrant: () => rollback.beforeWidening(),
  })
  const inputs = new InputRequestService({
    requests: storage.inputRequests,
    events,
    now,
    roomExists: (roomId) => rooms.get(roomId) !== undefined,
    questionPhaseMs: options.questionPhaseMs ?? QUESTION_PHASE_MS,
    onError,
  })
  const approvalTtlMs = () => options.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS
  const requester = new ApprovalRequester({
    gate,
    approvals,
    conversations,
    events,
    reviewer: options.reviewer ?? new RuleBasedReviewer(),
    ...(options.reviewerTimeoutMs === undefined
      ? {}
      : { reviewerTimeoutMs: options.reviewerTimeoutMs }),
    now,
    approvalTtlMs,
    // Where the room's policy would ask the person, its approver webhook (if
    // it names one) decides in their place.
    delegateFor: (roomId) => approverWebhooks.approverFor(roomId),
    room,
  })
  // A server asking the person for input during a call becomes a form in
  // that call's room.
  const elicitation = new McpElicitationRouter(
    ({ roomId, turnId }, form, ended) => inputs.requestForm(roomId, form, { turnId, ended }),
    onError,
  )
  const mcpReports = auditedMcpConfigReports(audit, now, onError)
  const mcpConfig = loadMcpConfigAtStart(options.dataDir, options.mcpConfigPath, mcpReports)
  const mcpServers = new McpServerRegistry(mcpConfig, {
    requestTimeoutMs: runtimeMcpTimeoutMs(approvalTtlMs()),
    onElicitation: elicitation.handle,
  })
  // mcp.json edits apply to calls that start after them, without a restart.
  const mcpReloader = new McpConfigReloader({
    file: mcpConfigFile(options.dataDir, options.mcpConfigPath),
    load: () => loadMcpConfig(options.dataDir, options.mcpConfigPath),
    initial: mcpConfig,
    apply: (config) => mcpServers.apply(config),
    reports: mcpReports,
    onError,
  })
  mcpReloader.start()
  const mcp = new McpRoomCalls({
    conversations,
    grants,
    requester,
    events,
    servers: mcpServers,
    elicitation,
    now,
    durable,
    room,
  })
  // Every door leaves a change to Assent's own files to the person
  // (policy/assent-own-paths.ts), as the sandbox hides them.
  keepAsAssentOwn([
    options.dataDir,
    mcpConfigFile(options.dataDir, options.mcpConfigPath),
    options.agentsConfigPath ?? join(options.dataDir, 'agents.json'),
  ])
  // And a credential place the environment moved (`$GNUPGHOME`) as the
  // home folder's own, as the sandbox hides it.
  keepCredentialPlacesOf(process.env, homedir())
  const commands =
    options.commandSandbox ??
    commandSandboxAtStart({
      dataDir: options.dataDir,
      mcpConfigPath: mcpConfigFile(options.dataDir, options.mcpConfigPath),
      agentsConfigPath: options.agentsConfigPath,
      env: process.env,
      log: (line) => console.warn(line),
    })
  const containment =
    options.agentContainment ??
    agentContainmentAtStart({
      dataDir: options.dataDir,
      mcpConfigPath: mcpConfigFile(options.dataDir, options.mcpConfigPath),
      agentsConfigPath: options.agentsConfigPath,
      env: process.env,
      log: (line) => console.warn(line),
    })
  const agents = startAgents({
    commands,
    containment,
    dataDir: options.dataDir,
    agentsConfigPath: options.agentsConfigPath,
    scopedRoots: options.scopedRoots,
    model: options.model,
    audit,
    onError,
    conversations,
    grants,
    requester,
    inputs,
    events,
    now,
    durable,
    mcp,
    room,
  })
  const { runner, externalTurns } = agents
  const roomService = new RoomService({
    rooms,
    conversations,
    approvals,
    grants,
    events,
    agents: agents.agents,
    rollback,
    now,
  })
  const turnService = new TurnService({
    rooms: roomService,
    conversations,
    events,
    runner: new AgentBackends(runner, externalTurns),
    now,
  })

  recoverFromCrash({
    interrupted: conversations,
    expireOrphanedApprovals: (reason) => gate.expireOrphans(reason),
    staleOrphanedInputs: () => inputs.staleOrphans(),
    rooms,
    grants,
    now,
  })

  const gatewayCalls = new GatewayCallService({
    rooms: roomService,
    conversations,
    approvals,
    grants,
    requester,
    gate,
    events,
    room,
    now,
  })

  const gatewayElicitations = new GatewayElicitations({
    openForm: (roomId, form, formOptions) => inputs.openForm(roomId, form, formOptions),
    withdraw: (requestId) => inputs.withdrawForm(requestId),
    runningCall: (callId) => gatewayCalls.runningCall(callId),
  })

  const router = runtimeRouter({
    instanceId,
    storage,
    events,
    agents,
    gate,
    rooms: roomService,
    turns: turnService,
    inputs,
    webhooks: approverWebhooks,
    gatewayCalls,
    gatewayElicitations,
    gatewayMode: new GatewayModeService({ rooms: roomService, events }),
    verifier: new ConsentTokenVerifier({ key: options.consentKey, now }),
  })
  const http = await serveRuntime(router, {
    bearerToken: options.bearerToken,
    dataDir: options.dataDir,
    instanceId,
    onError,
    durable,
  })
  const sweeper = setInterval(() => {
    try {
      gate.expireDue()
    } catch (error) {
      onError(error)
    }
  }, EXPIRY_SWEEP_MS)
  sweeper.unref()

  return {
    port: http.port,
    instanceId,
    server: http.server,
    runner,
    inputs,
    async close() {
      clearInterval(sweeper)
      mcpReloader.close()
      // Turns waiting on a question would never settle otherwise.
      inputs.abandonAll()
      await http.close()
      await mcpServers.close()
      // Ends every external agent: its pending requests are answered
      // cancelled and its turn ends interrupted while the store still runs.
      await externalTurns.close()
      await runner.settled()
      // Nothing changes any more: count the shutdown and anchor it.
      await rollback.shutdown(instanceId).catch(onError)
      await durability.close()
      db.close()
    },
  }
}

import { randomBytes, randomUUID } from 'node:crypto'
import { homedir } from 'node:os'
import type { Server } from 'node:http'
import { AgentRunner } from './agent/agent-runner.ts'
import { grantForDecision } from './agent/grant-issuer.ts'
import { grantScopeFor, serverGrantScopeFor } from './agent/grant-scope.ts'
import { builtInAgents, GATEWAY_AGENT_ID, type AgentPreset } from './domain/agent-preset.ts'
import type { AgentSummary, ExternalAgentConfig } from '../contracts/agents-config.ts'
import { AgentProcessLedger } from './external-agents/agent-process-ledger.ts'
import { openExternalSession } from './external-agents/external-session-factory.ts'
import { AgentBackends } from './external-turns/agent-backends.ts'
import { loadAgentsConfigAtStart } from './external-turns/agents-config-at-start.ts'
import { ExternalAgentBackend } from './external-turns/external-agent-backend.ts'
import type { AgentModel } from './agent/agent-model.ts'
import { OfflineModel } from './agent/offline-model.ts'
import { ConsentTokenVerifier } from '../consent/consent-token.ts'
import { DEFAULT_APPROVAL_TTL_MS } from './domain/approval.ts'
import { EventBus } from './events/event-bus.ts'
import { Refusal } from './domain/refusal.ts'
import { ApprovalGate } from './gate/approval-gate.ts'
import { ApprovalRequester } from './gate/approval-requester.ts'
import { recoverFromCrash } from './recovery/crash-recovery.ts'
import { RuleBasedReviewer, type ActionReviewer } from './policy/reviewer.ts'
import { narrowestRoomPolicy } from './policy/room-policy.ts'
import { InputRequestService, QUESTION_PHASE_MS } from './input/input-request-service.ts'
import { IntegrityReporter } from './rooms/integrity-reporter.ts'
import { RoomService } from './rooms/room-service.ts'
import { TurnService } from './rooms/turn-service.ts'
import { GatewayCallService } from './mcp/gateway-call-service.ts'
import { GatewayElicitations } from './mcp/gateway-elicitations.ts'
import { auditedMcpConfigReports, loadMcpConfigAtStart } from './mcp/mcp-config-at-start.ts'
import { loadMcpConfig, mcpConfigFile } from './mcp/mcp-config-loader.ts'
import { McpConfigReloader } from './mcp/mcp-config-reloader.ts'
import { McpRoomCalls } from './mcp/mcp-room-calls.ts'
import { McpElicitationRouter } from './mcp/mcp-elicitation.ts'
import { McpServerRegistry, runtimeMcpTimeoutMs } from './mcp/mcp-server-registry.ts'
import {
  newGatewayCredential,
  removeGatewayConnectionFile,
  writeGatewayConnectionFile,
} from './mcp/gateway-connection-file.ts'
import { agentRoutes } from './server/routes/agent-routes.ts'
import { approvalRoutes } from './server/routes/approval-routes.ts'
import { inputRequestRoutes } from './server/routes/input-request-routes.ts'
import { gatewayRoutes } from './server/routes/gateway-routes.ts'
import { roomRoutes } from './server/routes/room-routes.ts'
import { systemRoutes } from './server/routes/system-routes.ts'
import { assertRoutesMatchTable } from './server/route-table.ts'
import { Router } from './server/router.ts'
import { startRuntimeServer } from './server/runtime-server.ts'
import { SqliteApprovalRepository } from './store/approval-repository.ts'
import { SqliteAuditLog } from './store/audit-log.ts'
import { SqliteConversationRepository } from './store/conversation-repository.ts'
import { openDatabase } from './store/database.ts'
import { durabilityOf } from './store/durability.ts'
import { SqliteGrantRepository } from './store/grant-repository.ts'
import { SqliteInputRequestRepository } from './store/input-request-repository.ts'
import { IntegrityMac } from './store/integrity-mac.ts'
import { SqliteRollbackRepository } from './store/rollback-repository.ts'
import type { RollbackAnchor } from './ports/rollback-anchor.ts'
import { RollbackGuard } from './rollback/rollback-guard.ts'
import { SqliteRoomRepository } from './store/room-repository.ts'
import { SqliteSettingsRepository } from './store/settings-repository.ts'
import { SqliteApproverWebhookRepository } from './store/approver-webhook-repository.ts'
import { SecretSealer } from './store/secret-sealer.ts'
import { ApproverWebhooks } from './approver/approver-webhooks.ts'
import { approverWebhookRoutes } from './server/routes/approver-webhook-routes.ts'

export const EXPIRY_SWEEP_MS = 250

export interface RuntimeOptions {
  bearerToken: string
  consentKey: Buffer
  /** 32 bytes from the OS keychain, read by main: seals the audit log, room
   *  permissions and grants on disk. */
  integrityKey: Buffer
  dataDir: string
  /** The data dir's rollback anchor as main read it before this start (null:
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

function defaultOnFatal(error: Error): void {
  console.error(`[runtime] stopping: ${error.message}`)
  process.exit(70)
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
  const mac = new IntegrityMac(options.integrityKey)
  const db = openDatabase(options.dataDir, {
    onDurabilityFailure: options.onFatal ?? defaultOnFatal,
  })
  const durability = durabilityOf(db)
  const audit = new SqliteAuditLog(db, { mac })
  const events = new EventBus()
  const integrity = new IntegrityReporter({ audit, events, now, onError })
  const rooms = new SqliteRoomRepository(db, {
    mac,
    audit,
    onTampered: integrity.report,
    narrowestPolicy: narrowestRoomPolicy,
  })
  const conversations = new SqliteConversationRepository(db, { audit })
  const grants = new SqliteGrantRepository(db, {
    mac,
    audit,
    roomIntact: (roomId) => rooms.get(roomId)?.integrity === 'ok',
    onTampered: integrity.report,
  })
  const webhookStore = new SqliteApproverWebhookRepository(db, {
    mac,
    sealer: new SecretSealer(options.integrityKey),
    audit,
    roomIntact: (roomId) => rooms.get(roomId)?.integrity === 'ok',
    onTampered: integrity.report,
  })
  const rollback = new RollbackGuard({
    store: new SqliteRollbackRepository(db, { mac, audit, rooms, grants, webhooks: webhookStore }),
    anchor: options.rollback.anchor,
    durable: () => durability.durable(),
    events,
    now,
    onError,
  })
  // Before anything reads a room: a database older than its anchor has its
  // rooms marked and its grants revoked first.
  await rollback.start(options.rollback.stored)
  const approvals = new SqliteApprovalRepository(db, { audit, grants })
  const approverWebhooks = new ApproverWebhooks({
    store: webhookStore,
    requireRoom: (roomId) => {
      if (!rooms.get(roomId)) throw new Refusal('unknown_room', 'unknown room')
    },
    now,
    randomBytes,
    beforeWidening: () => rollback.beforeWidening(),
    ...(options.approverWebhookTimeoutMs === undefined
      ? {}
      : { timeoutMs: options.approverWebhookTimeoutMs }),
  })
  const settings = new SqliteSettingsRepository(db)
  settings.seedDefaults()

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
    requests: new SqliteInputRequestRepository(db, { audit }),
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
  })
  // A server asking the person for input during a call becomes a form in
  // that call's room.
  const elicitation = new McpElicitationRouter(
    ({ roomId, turnId }, form) => inputs.requestForm(roomId, form, { turnId }),
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
    durable: () => durability.durable(),
  })
  const externalAgents = loadAgentsConfigAtStart(
    options.dataDir,
    options.agentsConfigPath,
    audit,
    now,
    onError,
  ).agents
  const agents = [
    ...builtInAgents({ scopedRoots: [...(options.scopedRoots ?? [homedir()])] }),
    ...externalAgents.map(externalAgentPreset),
  ]
  // Agents an earlier runtime left running (it crashed) are ended before
  // anything starts: their turns are over, and nobody answers for them.
  const agentProcesses = new AgentProcessLedger(options.dataDir)
  agentProcesses.reapLeftovers()
  const externalTurns = new ExternalAgentBackend({
    agents: externalAgents,
    openSession: (sessionOptions) =>
      openExternalSession({
        ...sessionOptions,
        onProcessStarted: (process) => agentProcesses.track(process, sessionOptions.agent.id),
      }),
    requester,
    grants,
    conversations,
    events,
    now,
    durable: () => durability.durable(),
    newId: randomUUID,
  })
  const runner = new AgentRunner({
    conversations,
    grants,
    requester,
    inputs,
    events,
    model: options.model ?? new OfflineModel(),
    agentFor: (agentId) => agents.find((agent) => agent.id === agentId),
    now,
    durable: () => durability.durable(),
    mcp,
  })
  const roomService = new RoomService({
    rooms,
    conversations,
    approvals,
    grants,
    events,
    agents,
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
    now,
  })

  const gatewayElicitations = new GatewayElicitations({
    openForm: (roomId, form, formOptions) => inputs.openForm(roomId, form, formOptions),
    runningCall: (callId) => gatewayCalls.runningCall(callId),
  })

  const verifier = new ConsentTokenVerifier({ key: options.consentKey, now })
  const router = new Router()
  router.add(
    ...systemRoutes({ instanceId, events, audit, settings }),
    ...agentRoutes({ agents: () => agentSummaries(agents, externalAgents) }),
    ...approvalRoutes({
      approvals,
      gate,
      verifier,
      instanceId,
      alwaysAllowBlocker: (approval) => {
        const scope = grantScopeFor(approval)
        return scope.ok ? null : scope.reason
      },
      serverAlwaysAllowBlocker: (approval) => {
        const scope = serverGrantScopeFor(approval)
        return scope.ok ? null : scope.reason
      },
    }),
    ...roomRoutes({ rooms: roomService, turns: turnService, approvals, verifier, instanceId }),
    ...inputRequestRoutes({ inputs, rooms: roomService }),
    ...approverWebhookRoutes({ webhooks: approverWebhooks, verifier, instanceId }),
    ...gatewayRoutes({ calls: gatewayCalls, elicitations: gatewayElicitations }),
  )
  assertRoutesMatchTable(router.patterns)
  const gatewayCredential = newGatewayCredential()
  const { server, port } = await startRuntimeServer(
    router,
    { bearerToken: options.bearerToken, gatewayCredential },
    onError,
    () => durability.durable(),
  )
  writeGatewayConnectionFile(options.dataDir, {
    version: 1,
    port,
    instanceId,
    gatewayCredential,
    pid: process.pid,
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
    port,
    instanceId,
    server,
    runner,
    inputs,
    async close() {
      clearInterval(sweeper)
      mcpReloader.close()
      // Turns waiting on a question would never settle otherwise.
      inputs.abandonAll()
      removeGatewayConnectionFile(options.dataDir, instanceId)
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
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

/** An external agent as a room sees it: no ceilings of its own (the room's
 *  sandbox and policy confine what it asks for) and none of the built-in
 *  tools, which only the offline agent calls. */
function externalAgentPreset(agent: ExternalAgentConfig): AgentPreset {
  return { id: agent.id, name: agent.name, toolPolicy: { readOnly: false }, allowedTools: [] }
}

/** The agents a person may create a room with: the built-in ones (not the
 *  MCP gateway's, whose rooms the gateway makes) and agents.json's. */
function agentSummaries(
  agents: readonly AgentPreset[],
  external: readonly ExternalAgentConfig[],
): AgentSummary[] {
  return agents
    .filter((agent) => agent.id !== GATEWAY_AGENT_ID)
    .map((agent) => {
      const config = external.find((candidate) => candidate.id === agent.id)
      return {
        id: agent.id,
        name: agent.name,
        kind: config ? 'external' : 'built-in',
        protocol: config?.protocol ?? null,
      }
    })
}

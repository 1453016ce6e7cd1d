import type { Server } from 'node:http'
import type { ConsentTokenVerifier } from '../consent/consent-token.ts'
import type { ApprovalRecord } from '../contracts/approval.ts'
import { folderGrantBlocker, grantScopeFor, serverGrantScopeFor } from './agent/grant-scope.ts'
import type { ApproverWebhooks } from './approver/approver-webhooks.ts'
import type { EventBus } from './events/event-bus.ts'
import type { ApprovalGate } from './gate/approval-gate.ts'
import type { InputRequestService } from './input/input-request-service.ts'
import {
  newGatewayCredential,
  removeGatewayConnectionFile,
  writeGatewayConnectionFile,
} from './mcp/gateway-connection-file.ts'
import type { GatewayCallService } from './mcp/gateway-call-service.ts'
import type { GatewayElicitations } from './mcp/gateway-elicitations.ts'
import type { GatewayModeService } from './mcp/gateway-mode-service.ts'
import { inOneMoment } from './policy/judgment-moment.ts'
import type { RoomService } from './rooms/room-service.ts'
import type { TurnService } from './rooms/turn-service.ts'
import { agentSummaries, type RuntimeAgents } from './runtime-agents.ts'
import type { RuntimeStorage } from './runtime-storage.ts'
import { assertRoutesMatchTable } from './server/route-table.ts'
import { Router } from './server/router.ts'
import { agentRoutes } from './server/routes/agent-routes.ts'
import { approvalRoutes } from './server/routes/approval-routes.ts'
import { approverWebhookRoutes } from './server/routes/approver-webhook-routes.ts'
import { gatewayRoutes } from './server/routes/gateway-routes.ts'
import { inputRequestRoutes } from './server/routes/input-request-routes.ts'
import { roomRoutes } from './server/routes/room-routes.ts'
import { systemRoutes } from './server/routes/system-routes.ts'
import { startRuntimeServer } from './server/runtime-server.ts'

/** What the HTTP edge serves: the services of one runtime instance. */
export interface RuntimeServices {
  instanceId: string
  storage: Pick<RuntimeStorage, 'audit' | 'settings' | 'approvals' | 'conversations' | 'rooms'>
  events: EventBus
  agents: Pick<RuntimeAgents, 'agents' | 'external'>
  gate: ApprovalGate
  rooms: RoomService
  turns: TurnService
  inputs: InputRequestService
  webhooks: ApproverWebhooks
  gatewayCalls: GatewayCallService
  gatewayElicitations: GatewayElicitations
  gatewayMode: GatewayModeService
  verifier: ConsentTokenVerifier
}

/** Every route of the runtime, checked against the route table (which
 *  classifies each for the renderer) before the server takes a request. */
export function runtimeRouter(services: RuntimeServices): Router {
  const { instanceId, events, verifier } = services
  const { audit, settings, approvals, conversations, rooms } = services.storage
  const folderBlocker = (approval: ApprovalRecord) =>
    folderGrantBlocker(conversations.getTurn(approval.turnId), rooms.get(approval.roomId))
  const router = new Router()
  router.add(
    ...systemRoutes({ instanceId, events, audit, settings }),
    ...agentRoutes({
      agents: () => agentSummaries(services.agents.agents, services.agents.external),
    }),
    ...approvalRoutes({
      approvals,
      gate: services.gate,
      verifier,
      instanceId,
      // Each judged as one moment (judgment-moment.ts): its rules resolve
      // the same paths, and share what they look up.
      alwaysAllowBlocker: (approval) =>
        inOneMoment(() => {
          const scope = grantScopeFor(approval)
          return scope.ok ? folderBlocker(approval) : scope.reason
        }),
      serverAlwaysAllowBlocker: (approval) =>
        inOneMoment(() => {
          const scope = serverGrantScopeFor(approval)
          return scope.ok ? folderBlocker(approval) : scope.reason
        }),
    }),
    ...roomRoutes({
      rooms: services.rooms,
      turns: services.turns,
      approvals,
      verifier,
      instanceId,
    }),
    ...inputRequestRoutes({ inputs: services.inputs, rooms: services.rooms }),
    ...approverWebhookRoutes({ webhooks: services.webhooks, verifier, instanceId }),
    ...gatewayRoutes({
      calls: services.gatewayCalls,
      elicitations: services.gatewayElicitations,
      mode: services.gatewayMode,
    }),
  )
  assertRoutesMatchTable(router.patterns)
  return router
}

export interface ServeOptions {
  bearerToken: string
  dataDir: string
  instanceId: string
  onError: (error: unknown) => void
  /** Resolves once every write committed so far is on disk: no answer
   *  leaves before the writes it reports. */
  durable: () => Promise<void>
}

/** The runtime's HTTP server on loopback, and the connection file that
 *  tells the MCP gateway where it is and which credential it takes. */
export interface RuntimeHttp {
  server: Server
  port: number
  /** Removes the connection file, then drops every connection and stops
   *  listening. */
  close(): Promise<void>
}

export async function serveRuntime(router: Router, options: ServeOptions): Promise<RuntimeHttp> {
  const { dataDir, instanceId } = options
  const gatewayCredential = newGatewayCredential()
  const { server, port } = await startRuntimeServer(
    router,
    { bearerToken: options.bearerToken, gatewayCredential },
    options.onError,
    options.durable,
  )
  writeGatewayConnectionFile(dataDir, {
    version: 1,
    port,
    instanceId,
    gatewayCredential,
    pid: process.pid,
  })
  return {
    server,
    port,
    async close() {
      removeGatewayConnectionFile(dataDir, instanceId)
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

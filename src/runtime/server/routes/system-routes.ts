import type { ServerResponse } from 'node:http'
import type { EventBus, RuntimeEvent } from '../../events/event-bus.ts'
import type { AuditTrail } from '../../ports/audit-trail.ts'
import type { SettingsStore } from '../../ports/settings-store.ts'
import { headerValues } from '../request-guards.ts'
import { Refusal } from '../../domain/refusal.ts'
import { sendJson, whenDurable } from '../http-kit.ts'
import type { Route } from '../router.ts'

export const SSE_HEARTBEAT_MS = 15_000

export interface SystemRouteDeps {
  instanceId: string
  events: EventBus
  audit: Pick<AuditTrail, 'list'>
  settings: SettingsStore
}

export function systemRoutes(deps: SystemRouteDeps): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/v1/health',
      handle: async ({ res }) => sendJson(res, 200, { ok: true, instanceId: deps.instanceId }),
    },
    {
      method: 'GET',
      pattern: '/v1/settings/global',
      handle: async ({ res }) => sendJson(res, 200, { settings: deps.settings.all() }),
    },
    {
      // Main only (never on the renderer allowlist): the full audit trail.
      method: 'GET',
      pattern: '/v1/audit/export',
      handle: async ({ res }) =>
        sendJson(res, 200, { instanceId: deps.instanceId, events: deps.audit.list() }),
    },
    {
      method: 'GET',
      pattern: '/v1/events',
      handle: async ({ req, res }) =>
        streamEvents(deps.events, headerValues(req, 'last-event-id'), res),
    },
  ]
}

function streamEvents(
  events: EventBus,
  lastEventIds: string[],
  res: ServerResponse,
): Promise<void> {
  let resumeFrom = events.lastId
  if (lastEventIds.length > 0) {
    const raw = lastEventIds[0] ?? ''
    if (lastEventIds.length > 1 || !/^(0|[1-9][0-9]{0,15})$/.test(raw)) {
      throw new Refusal('invalid_last_event_id', 'Last-Event-ID must be one event id')
    }
    resumeFrom = Number(raw)
  }
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  })
  // An event tells of a committed write: it leaves once that write is durable.
  const write = (event: RuntimeEvent) =>
    whenDurable(res, () => {
      if (!res.writableEnded)
        res.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`)
    })
  const missed = lastEventIds.length > 0 ? events.since(resumeFrom) : []
  // Events the buffer no longer holds cannot be replayed: say so, so the
  // client reloads its state instead of silently missing a decision.
  if (missed === undefined) res.write(`event: reset\ndata: {}\n\n`)
  else missed.forEach(write)
  whenDurable(res, () => res.write(`: connected\n\n`))
  const unsubscribe = events.subscribe(write)
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), SSE_HEARTBEAT_MS)
  heartbeat.unref()
  return new Promise((resolve) => {
    res.on('close', () => {
      unsubscribe()
      clearInterval(heartbeat)
      resolve()
    })
  })
}

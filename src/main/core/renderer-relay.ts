import { z } from 'zod'
import type { RuntimeEventType } from '../../contracts/events.ts'
import { MAX_RENDERER_PATH_LENGTH, isAllowedForRenderer } from './renderer-allowlist.ts'
import type { RawResponse, RuntimeClient } from './runtime-client.ts'
import { WorkbenchRefusal } from './workbench-refusal.ts'

/**
 * One call from the workbench. Strict: an extra key (a header, a consent
 * token, a "source") is refused rather than ignored. Method and path are
 * checked against the allowlist after parsing, so a wrong-case method gets
 * the same "not allowed" answer as any other route the workbench may not use.
 */
export const RelayRequestSchema = z.strictObject({
  method: z.string().min(1).max(16),
  path: z.string().min(1).max(MAX_RENDERER_PATH_LENGTH),
  body: z.unknown().optional(),
})
export type RelayRequest = z.infer<typeof RelayRequestSchema>

/** The runtime's answer, passed back as is: status and parsed JSON body. */
export type RelayResponse = RawResponse

/** The only part of the runtime client the relay uses. */
export type RelayClient = Pick<RuntimeClient, 'raw'>

/**
 * Main's door for the workbench renderer. It holds no secret itself: it
 * forwards allowlisted calls through main's runtime client, which adds the
 * bearer token. It never passes headers through, so the renderer cannot
 * present a consent token or an action digest.
 */
export class RendererRelay {
  private readonly client: RelayClient

  constructor(options: { client: RelayClient }) {
    this.client = options.client
  }

  async call(request: unknown): Promise<RelayResponse> {
    const parsed = RelayRequestSchema.safeParse(request)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const field = issue?.path.join('.') || 'request'
      throw new WorkbenchRefusal(
        'relay_refused',
        `malformed workbench call: ${field}: ${issue?.message ?? 'invalid'} (expected { method, path, body? })`,
      )
    }
    const { method, path, body } = parsed.data
    if (!isAllowedForRenderer(method, path)) {
      throw new WorkbenchRefusal(
        'relay_refused',
        `not allowed from the workbench: ${method} ${path}`,
      )
    }
    if ((method === 'GET' || method === 'DELETE') && body !== undefined) {
      throw new WorkbenchRefusal(
        'relay_refused',
        `malformed workbench call: a ${method} request carries no body`,
      )
    }
    return this.client.raw(method, path, body)
  }
}

/** Runtime event types the workbench may receive. `runtime.integrity`
 *  (a room or grant row edited on disk) carries only table, row id, room id
 *  and problem, so the workbench can show a banner; it decides nothing. */
export const RENDERER_EVENT_TYPES = [
  'approval.requested',
  'approval.resolved',
  'room.created',
  'room.updated',
  'timeline.updated',
  'grant.changed',
  'runtime.integrity',
  'input.requested',
  'input.resolved',
] as const satisfies readonly RuntimeEventType[]
export type RendererEventType = (typeof RENDERER_EVENT_TYPES)[number]

const RendererEventSchema = z.object({
  type: z.enum(RENDERER_EVENT_TYPES),
  data: z.record(z.string(), z.unknown()),
})

export interface RendererEvent {
  type: RendererEventType
  data: Record<string, unknown>
}

/**
 * What main forwards to the workbench for one runtime event: type and data
 * only (the stream id stays in main), or `undefined` for an event type the
 * workbench does not receive or a malformed event.
 */
export function filterEventForRenderer(event: unknown): RendererEvent | undefined {
  const parsed = RendererEventSchema.safeParse(event)
  if (!parsed.success) return undefined
  return { type: parsed.data.type, data: parsed.data.data }
}

/** Every event type the runtime emits on `GET /v1/events`. */
export const RUNTIME_EVENT_TYPES = [
  'approval.requested',
  'approval.resolved',
  'room.created',
  'room.updated',
  'timeline.updated',
  'grant.changed',
  'runtime.integrity',
  'input.requested',
  'input.resolved',
] as const
export type RuntimeEventType = (typeof RUNTIME_EVENT_TYPES)[number]

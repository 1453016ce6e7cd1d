import type {
  AssentGui,
  RelayResponse,
  WorkbenchEvent,
  WorkbenchPreferences,
} from '../../../common/assent-gui.ts'
import {
  encodeWorkbenchError,
  workbenchError,
  type WorkbenchErrorCode,
} from '../../../common/workbench-error.ts'
import type { AgentSummary } from '../../../contracts/agents-config.ts'
import type { ApprovalSummary } from '../../../contracts/approval.ts'
import type { ApproverWebhook } from '../../../contracts/approver-webhook.ts'
import { BUILT_IN_AGENT_SUMMARIES } from '../components/create-room-form.tsx'
import type { InputRequestRecord } from '../../../contracts/input-request.ts'
import { NO_SUCH_TURN, timelinePageOf } from './fake-timeline-pages.ts'
import type {
  Grant,
  Room,
  RoomPermissions,
  Timeline,
  TimelinePageRequest,
  ToolCallRecord,
} from '../../../contracts/room.ts'

/** A call main rejected, as the page receives it from Electron: main's typed
 *  error inside the message, behind Electron's wrapper. */
export function mainRejection(code: WorkbenchErrorCode, detail: string): Error {
  return new Error(
    `Error invoking remote method 'assent:workbench:review': Error: ${encodeWorkbenchError(workbenchError(code, detail))}`,
  )
}

/**
 * A stand-in for `window.assentGui` in component tests (happy-dom has no
 * preload and no main). It answers from plain fields, records every call,
 * and lets a test emit events as main would. The real bridge is exercised
 * in Chromium by tests/workbench-ui.test.ts.
 */
export class FakeGui implements AssentGui {
  agents: AgentSummary[] = [...BUILT_IN_AGENT_SUMMARIES]
  rooms: Room[] = []
  timelines = new Map<string, Timeline>()
  permissionsOf = new Map<string, RoomPermissions>()
  grantsOf = new Map<string, Grant[]>()
  webhookOf = new Map<string, ApproverWebhook>()
  /** What `requestApproverWebhook` resolves with; a test may change it. */
  webhookChange: (roomId: string, url: string | null) => Promise<unknown> = async () => ({
    status: 'cancelled',
  })
  calls: Array<{ method: string; args: unknown[] }> = []
  preferences: WorkbenchPreferences[] = []
  /** What `reviewApproval` resolves with; a test may hold it open. */
  review: (approvalId: string) => Promise<unknown> = async () => ({ status: 'cancelled' })
  modeChange: (roomId: string, mode: string) => Promise<unknown> = async () => ({
    status: 'cancelled',
  })
  sendAnswer: RelayResponse = { status: 202, body: { turn: {} } }
  inputRequestsOf = new Map<string, InputRequestRecord[]>()
  /** What `respondToInput` answers; a test may refuse or hold it. */
  respond: (requestId: string, response: unknown) => Promise<RelayResponse> = async () => ({
    status: 200,
    body: { request: {} },
  })
  /** What `keepWaiting` answers; a test may move the deadline or refuse. */
  /** What the runtime answers a stop of a turn. */
  stop: (turnId: string) => Promise<RelayResponse> = async () => ({
    status: 202,
    body: { turn: {} },
  })
  keep: (requestId: string) => Promise<RelayResponse> = async () => ({
    status: 200,
    body: { request: {} },
  })
  reject: (approvalId: string) => Promise<unknown> = async () => ({ status: 'not-pending' })
  /** Turns in one page of a timeline, as the runtime's TIMELINE_PAGE_TURNS. */
  pageTurns = 60
  /** Timeline answers wait for this; a test may hold them back. */
  timelineGate: Promise<void> = Promise.resolve()
  private readonly listeners = new Set<(event: WorkbenchEvent) => void>()

  emit(type: string, data: unknown): void {
    for (const listener of [...this.listeners]) listener({ type, data })
  }

  callsOf(method: string): unknown[][] {
    return this.calls.filter((call) => call.method === method).map((call) => call.args)
  }

  private record(method: string, args: unknown[]) {
    this.calls.push({ method, args })
  }

  async listAgents(): Promise<RelayResponse> {
    this.record('listAgents', [])
    return { status: 200, body: { agents: this.agents } }
  }
  async listRooms(): Promise<RelayResponse> {
    this.record('listRooms', [])
    return { status: 200, body: { rooms: this.rooms } }
  }
  async createRoom(input: unknown): Promise<RelayResponse> {
    this.record('createRoom', [input])
    const room = {
      ...roomFixture(),
      ...(input as Partial<Room>),
      id: `room-${this.rooms.length + 1}`,
    }
    this.rooms.push(room)
    return { status: 201, body: { room } }
  }
  async getRoom(roomId: string): Promise<RelayResponse> {
    this.record('getRoom', [roomId])
    return { status: 200, body: { room: this.rooms.find((room) => room.id === roomId) } }
  }
  async sendMessage(roomId: string, input: unknown): Promise<RelayResponse> {
    this.record('sendMessage', [roomId, input])
    return this.sendAnswer
  }
  async timelinePage(roomId: string, page: TimelinePageRequest): Promise<RelayResponse> {
    this.record('timeline', [roomId, page])
    await this.timelineGate
    const answer = timelinePageOf(
      this.timelines.get(roomId) ?? emptyTimeline(roomId),
      page,
      this.pageTurns,
    )
    return answer ? { status: 200, body: answer } : { status: 404, body: NO_SUCH_TURN }
  }
  async approvals(roomId: string): Promise<RelayResponse> {
    this.record('approvals', [roomId])
    return { status: 200, body: { approvals: this.timelines.get(roomId)?.approvals ?? [] } }
  }
  async permissions(roomId: string): Promise<RelayResponse> {
    this.record('permissions', [roomId])
    const permissions = this.permissionsOf.get(roomId)
    return permissions
      ? { status: 200, body: permissions }
      : {
          status: 409,
          body: { error: 'private conversation required', code: 'private_conversation_required' },
        }
  }
  async grants(roomId: string): Promise<RelayResponse> {
    this.record('grants', [roomId])
    return { status: 200, body: { grants: this.grantsOf.get(roomId) ?? [] } }
  }
  async approverWebhook(roomId: string): Promise<RelayResponse> {
    this.record('approverWebhook', [roomId])
    return { status: 200, body: { roomId, webhook: this.webhookOf.get(roomId) ?? null } }
  }
  async revokeGrant(roomId: string, grantId: string): Promise<RelayResponse> {
    this.record('revokeGrant', [roomId, grantId])
    return { status: 200, body: { revoked: grantId } }
  }
  async revokeServerGrants(roomId: string, serverId: string): Promise<RelayResponse> {
    this.record('revokeServerGrants', [roomId, serverId])
    return { status: 200, body: { revoked: [] } }
  }
  async retryTurn(turnId: string): Promise<RelayResponse> {
    this.record('retryTurn', [turnId])
    return { status: 202, body: { turn: {} } }
  }
  async stopTurn(turnId: string): Promise<RelayResponse> {
    this.record('stopTurn', [turnId])
    return this.stop(turnId)
  }
  async globalSettings(): Promise<RelayResponse> {
    this.record('globalSettings', [])
    return { status: 200, body: { settings: {} } }
  }
  async inputRequests(roomId: string): Promise<RelayResponse> {
    this.record('inputRequests', [roomId])
    return { status: 200, body: { requests: this.inputRequestsOf.get(roomId) ?? [] } }
  }
  async respondToInput(requestId: string, response: unknown): Promise<RelayResponse> {
    this.record('respondToInput', [requestId, response])
    return this.respond(requestId, response)
  }
  async keepWaiting(requestId: string): Promise<RelayResponse> {
    this.record('keepWaiting', [requestId])
    return this.keep(requestId)
  }
  openSensitiveForm(requestId: string, ...rest: unknown[]) {
    this.record('openSensitiveForm', [requestId, ...rest])
    return Promise.resolve({ status: 'cancelled' })
  }
  rejectApprovalForMessage(approvalId: string, ...rest: unknown[]) {
    this.record('rejectApprovalForMessage', [approvalId, ...rest])
    return this.reject(approvalId)
  }
  reviewApproval(approvalId: string, ...rest: unknown[]) {
    this.record('reviewApproval', [approvalId, ...rest])
    return this.review(approvalId)
  }
  requestModeChange(roomId: string, mode: string, ...rest: unknown[]) {
    this.record('requestModeChange', [roomId, mode, ...rest])
    return this.modeChange(roomId, mode)
  }
  requestApproverWebhook(roomId: string, url: string | null, ...rest: unknown[]) {
    this.record('requestApproverWebhook', [roomId, url, ...rest])
    return this.webhookChange(roomId, url)
  }
  async setPreferences(preferences: WorkbenchPreferences) {
    this.record('setPreferences', [preferences])
    this.preferences.push(preferences)
    return null
  }
  onEvent(listener: (event: WorkbenchEvent) => void) {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }
}

export function roomFixture(overrides: Partial<Room> = {}): Room {
  return {
    id: 'room-1',
    kind: 'direct',
    agentId: 'assistant',
    workspace: '/home/ada/project',
    title: 'Design notes',
    mode: 'ask-for-approval',
    revision: 0,
    createdAt: 1_000,
    ...overrides,
  }
}

export function emptyTimeline(roomId: string): Timeline {
  return { roomId, turns: [], messages: [], toolCalls: [], approvals: [] }
}

export function approvalFixture(overrides: Partial<ApprovalSummary> = {}): ApprovalSummary {
  return {
    id: 'ap-1',
    roomId: 'room-1',
    turnId: 'turn-1',
    kind: 'apply-changes',
    toolName: 'write_file',
    summary: 'Write 5 bytes to notes.txt',
    workingDirectory: '/home/ada/project',
    status: 'pending',
    createdAt: 2_000,
    expiresAt: 122_000,
    ...overrides,
  }
}

export function questionRequestFixture(
  overrides: Partial<InputRequestRecord> = {},
): InputRequestRecord {
  return {
    id: 'in-1',
    roomId: 'room-1',
    turnId: 'turn-1',
    kind: 'questions',
    questions: [
      {
        id: 'q1',
        title: 'Environment',
        text: 'Where should I deploy?',
        options: [{ label: 'staging', explanation: 'safe to break' }, { label: 'production' }],
        secret: false,
      },
    ],
    form: null,
    blocking: false,
    timing: { silentMs: 60_000, countdownMs: 60_000 },
    autoResolveAt: 123_000,
    sensitive: false,
    status: 'pending',
    answers: null,
    content: null,
    createdAt: 3_000,
    resolvedAt: null,
    ...overrides,
  }
}

export function toolCallFixture(overrides: Partial<ToolCallRecord> = {}): ToolCallRecord {
  return {
    id: 'call-1',
    roomId: 'room-1',
    turnId: 'turn-1',
    seq: 0,
    toolName: 'write_file',
    arguments: { path: 'notes.txt', content: 'hello' },
    status: 'awaiting-approval',
    result: null,
    approvalId: 'ap-1',
    createdAt: 2_000,
    updatedAt: 2_000,
    ...overrides,
  }
}

export function permissionsFixture(overrides: Partial<RoomPermissions> = {}): RoomPermissions {
  return {
    roomId: 'room-1',
    revision: 0,
    policy: {
      approvalPolicy: 'on-request',
      sandboxMode: 'workspace-write',
      approvalReviewer: 'user',
    },
    mode: 'ask-for-approval',
    fullAccessUnavailable: null,
    integrity: 'ok',
    ...overrides,
  }
}

/**
 * A room of `turns` finished turns, `t0` the oldest, each the person's
 * message and one write whose approval was denied; the turns numbered in
 * `pending` still wait on theirs.
 */
export function longTimeline(
  turns: number,
  pending: readonly number[] = [],
  roomId = 'room-1',
): Timeline {
  const timeline: Timeline = emptyTimeline(roomId)
  for (let index = 0; index < turns; index += 1) {
    const id = `t${index}`
    const at = 1_000 * (index + 1)
    const waiting = pending.includes(index)
    timeline.turns.push({
      id,
      roomId,
      clientRequestId: `c${index}`,
      text: `write f${index}.txt x`,
      attempt: 1,
      retryOf: null,
      workspace: '/home/ada/project',
      policy: permissionsFixture().policy,
      status: waiting ? 'waiting' : 'done',
      createdAt: at,
    })
    timeline.messages.push({
      id: `m${index}`,
      roomId,
      turnId: id,
      role: 'user',
      text: `write f${index}.txt x`,
      createdAt: at,
    })
    timeline.toolCalls.push(
      toolCallFixture({
        id: `call${index}`,
        roomId,
        turnId: id,
        arguments: { path: `f${index}.txt`, content: 'x' },
        status: waiting ? 'awaiting-approval' : 'denied',
        approvalId: `ap${index}`,
        createdAt: at + 1,
        updatedAt: at + 1,
      }),
    )
    timeline.approvals.push(
      approvalFixture({
        id: `ap${index}`,
        roomId,
        turnId: id,
        summary: `Write 1 byte to f${index}.txt`,
        createdAt: at + 2,
        ...(waiting
          ? {}
          : { status: 'denied', decision: 'deny', decidedBy: 'user', decidedAt: at + 3 }),
      }),
    )
  }
  return timeline
}

/** A promise the test resolves when it chooses. */
export function deferred<T>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((done) => {
    resolve = done
  })
  return { promise, resolve }
}

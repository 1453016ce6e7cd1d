import type { z } from 'zod'
import type { ApprovalView } from '../../src/contracts/approval.ts'
import type {
  ApproverWebhookChangeAnswer,
  ApproverWebhookChangeRequest,
  ApproverWebhookView,
} from '../../src/contracts/approver-webhook.ts'
import type { ApprovalDecision } from '../../src/contracts/consent.ts'
import type { InputRequestRecord } from '../../src/contracts/input-request.ts'
import type { PermissionMode } from '../../src/contracts/policy-axes.ts'
import type { PermissionChangeRequest, Room, RoomPermissions } from '../../src/contracts/room.ts'
import {
  actionDigest,
  canonicalAction,
  createApproval,
  resolveApproval,
} from '../../src/runtime/domain/approval.ts'
import { MODE_PRESETS } from '../../src/runtime/policy/permission-modes.ts'
import {
  RuntimeRequestError,
  type RawResponse,
  type RuntimeClient,
} from '../../src/main/core/runtime-client.ts'

/** A decision as main sent it to the runtime. */
export interface SentDecision {
  approvalId: string
  decision: ApprovalDecision
  token: string
  actionDigest: string
}

/** A permission change as main sent it (token null: plan mode). */
export interface SentPermissionChange {
  roomId: string
  change: PermissionChangeRequest
  token: string | null
}

export interface SentWebhookChange {
  roomId: string
  change: ApproverWebhookChangeRequest
  token: string
}

export interface SentRaw {
  method: string
  path: string
  body: unknown
}

/**
 * Stands in for main's RuntimeClient where the consent controller's own
 * rules are under test: canned answers from what the test stored, and a
 * record of every request main sent, with its token, so a test can check
 * exactly what would have reached the runtime.
 */
export class FakeRuntimeClient {
  readonly approvals = new Map<string, ApprovalView>()
  readonly permissions = new Map<string, RoomPermissions>()
  readonly webhooks = new Map<string, ApproverWebhookView>()
  readonly forms = new Map<string, InputRequestRecord>()
  readonly decisions: SentDecision[] = []
  readonly permissionChanges: SentPermissionChange[] = []
  readonly webhookChanges: SentWebhookChange[] = []
  readonly raws: SentRaw[] = []
  /** The runtime's answer to a decision; by default it takes it. */
  answerDecision: (sent: SentDecision) => Promise<RawResponse> = async (sent) => {
    const view = this.approvals.get(sent.approvalId)
    if (!view) return { status: 404, body: { error: 'no such approval', code: 'not_found' } }
    const decided = resolveApproval(view.approval, {
      decision: sent.decision,
      decidedBy: 'user',
      now: view.approval.createdAt + 1,
    })
    if (!decided.ok) throw new Error(decided.error)
    return { status: 200, body: { approval: decided.approval } }
  }
  /** The runtime's answer to a raw request (a form's answer). */
  answerRaw: (sent: SentRaw) => Promise<RawResponse> = async (sent) => {
    const id = /^\/v1\/input-requests\/([^/]+)\//.exec(sent.path)?.[1] ?? ''
    const form = this.forms.get(decodeURIComponent(id))
    if (!form) return { status: 404, body: { error: 'no such request', code: 'not_found' } }
    const status = { accept: 'accepted', decline: 'declined', cancel: 'cancelled' } as const
    const action = (sent.body as { action: keyof typeof status }).action
    return { status: 200, body: { request: { ...form, status: status[action], resolvedAt: 2 } } }
  }
  /** The runtime's answer to a webhook change; by default a set one with
   *  its new secret, or none for a removal. */
  answerWebhook: (sent: SentWebhookChange) => Promise<ApproverWebhookChangeAnswer> = async (
    sent,
  ) =>
    sent.change.url === null
      ? { roomId: sent.roomId, webhook: null, secret: null }
      : {
          roomId: sent.roomId,
          webhook: { webhookId: 'w'.repeat(22), url: sent.change.url, createdAt: 1 },
          secret: 's'.repeat(43),
        }

  /** Typed as the controller takes it: only the methods it calls exist. */
  get client(): RuntimeClient {
    return this as unknown as RuntimeClient
  }

  async getApproval(approvalId: string): Promise<ApprovalView> {
    const view = this.approvals.get(approvalId)
    if (!view) throw new RuntimeRequestError(404, `no approval ${approvalId}`, 'not_found')
    return view
  }

  async getRoom(roomId: string): Promise<Room> {
    return {
      id: roomId,
      kind: 'direct',
      agentId: 'assistant',
      workspace: `/home/ada/${roomId}`,
      title: `Room ${roomId}`,
      mode: this.permissions.get(roomId)?.mode ?? 'ask-for-approval',
      revision: 0,
      createdAt: 1,
    }
  }

  async getPermissions(roomId: string): Promise<RoomPermissions> {
    return this.permissions.get(roomId) ?? permissionsOf(roomId, 'ask-for-approval')
  }

  async changePermissions(
    roomId: string,
    change: PermissionChangeRequest,
    token: string | null,
  ): Promise<RoomPermissions> {
    this.permissionChanges.push({ roomId, change, token })
    return permissionsOf(roomId, change.mode, change.expectedRevision + 1)
  }

  async decideApproval(
    approvalId: string,
    decision: ApprovalDecision,
    token: string,
    digest: string,
  ): Promise<RawResponse> {
    const sent = { approvalId, decision, token, actionDigest: digest }
    this.decisions.push(sent)
    return this.answerDecision(sent)
  }

  async getApproverWebhook(roomId: string): Promise<ApproverWebhookView> {
    return this.webhooks.get(roomId) ?? { roomId, webhook: null }
  }

  async changeApproverWebhook(
    roomId: string,
    change: ApproverWebhookChangeRequest,
    token: string,
  ): Promise<ApproverWebhookChangeAnswer> {
    const sent = { roomId, change, token }
    this.webhookChanges.push(sent)
    return this.answerWebhook(sent)
  }

  async request<S extends z.ZodType>(schema: S, method: string, path: string): Promise<z.infer<S>> {
    const id = decodeURIComponent(path.replace('/v1/input-requests/', ''))
    const form = this.forms.get(id)
    if (method !== 'GET' || !form) throw new RuntimeRequestError(404, `no request at ${path}`)
    return schema.parse({ request: form })
  }

  async raw(method: string, path: string, body?: unknown): Promise<RawResponse> {
    const sent = { method, path, body }
    this.raws.push(sent)
    return this.answerRaw(sent)
  }
}

export function permissionsOf(roomId: string, mode: PermissionMode, revision = 3): RoomPermissions {
  return {
    roomId,
    revision,
    policy: { ...MODE_PRESETS[mode] },
    mode,
    fullAccessUnavailable: null,
    integrity: 'ok',
  }
}

/** A pending approval to run `make`, created at `now` for `ttlMs`. */
export function pendingApproval(id: string, now: number, ttlMs = 120_000): ApprovalView {
  const approval = createApproval({
    id,
    roomId: 'room-1',
    turnId: 'turn-1',
    toolCallId: `call-${id}`,
    kind: 'run-command',
    toolName: 'run_command',
    arguments: { argv: ['make', id] },
    workingDirectory: '/home/ada/project',
    sandboxMode: 'workspace-write',
    summary: `Run make ${id}`,
    now,
    ttlMs,
  })
  const action = canonicalAction(approval)
  return { approval, action, actionDigest: actionDigest(action) }
}

/** A pending sensitive form asking for a user name and a password. */
export function sensitiveForm(id: string): InputRequestRecord {
  return {
    id,
    roomId: 'room-1',
    turnId: 'turn-1',
    kind: 'form',
    questions: [],
    form: {
      message: 'Log in',
      requestedSchema: {
        type: 'object',
        properties: {
          user: { type: 'string', title: 'User' },
          password: { type: 'string', format: 'password', title: 'Password' },
        },
        required: ['user', 'password'],
      },
    },
    blocking: true,
    timing: null,
    autoResolveAt: null,
    sensitive: true,
    status: 'pending',
    answers: null,
    content: null,
    createdAt: 1,
    resolvedAt: null,
  }
}

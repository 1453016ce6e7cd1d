import {
  ApproverWebhookChangeAnswerSchema,
  ApproverWebhookViewSchema,
  type ApproverWebhookChangeAnswer,
  type ApproverWebhookChangeRequest,
  type ApproverWebhookView,
} from '../../contracts/approver-webhook.ts'
import { ACTION_DIGEST_HEADER, CONSENT_HEADER } from '../../contracts/http-headers.ts'
import { z } from 'zod'
import {
  ApprovalRecordSchema,
  ApprovalViewSchema,
  type ApprovalRecord,
  type ApprovalView,
} from '../../contracts/approval.ts'
import type { ApprovalDecision } from '../../contracts/consent.ts'
import { RuntimeErrorCodeSchema, type RuntimeErrorCode } from '../../contracts/error-codes.ts'
import {
  RoomPermissionsSchema,
  RoomSchema,
  type PermissionChangeRequest,
  type Room,
  type RoomPermissions,
} from '../../contracts/room.ts'
import { LoopbackClient } from '../../loopback/loopback-client.ts'
import type { RuntimeConnection } from './runtime-supervisor.ts'

/** A non-2xx answer from the runtime, with its status and message. */
export class RuntimeRequestError extends Error {
  readonly status: number
  readonly code: RuntimeErrorCode | undefined

  constructor(status: number, message: string, code?: RuntimeErrorCode) {
    super(message)
    this.status = status
    this.code = code
  }
}

/** A 2xx answer whose body does not match the contract of its route. Main
 *  acts on nothing it cannot read: the caller treats this as a failure. */
export class RuntimeAnswerError extends Error {}

export interface RawResponse {
  status: number
  body: unknown
}

/** The runtime's error body (http-kit.ts): a message and a code. */
const RuntimeErrorBodySchema = z.object({ error: z.string(), code: z.string().optional() })
const DecidedApprovalSchema = z.strictObject({ approval: ApprovalRecordSchema })
const RoomAnswerSchema = z.strictObject({ room: RoomSchema })

/** The runtime's answer to a decision on an approval, parsed. */
export type ApprovalDecisionAnswer =
  | { status: 'decided'; approval: ApprovalRecord }
  /** Refused (a non-2xx status), with the runtime's code when it sent one:
   *  `approval_decided`, `approval_expired`, `consent_required`, … */
  | {
      status: 'refused'
      httpStatus: number
      code: RuntimeErrorCode | undefined
      error: string
    }

/** The message of a refusal, from the runtime's error body when it has one. */
export function refusalMessage(response: RawResponse): string {
  const detail = RuntimeErrorBodySchema.safeParse(response.body)
  return detail.success ? detail.data.error : `the runtime answered ${response.status}`
}

/** The code of a refusal, when the runtime's error body names one it knows. */
export function refusalCode(response: RawResponse): RuntimeErrorCode | undefined {
  const detail = RuntimeErrorBodySchema.safeParse(response.body)
  const code = RuntimeErrorCodeSchema.safeParse(detail.success ? detail.data.code : undefined)
  return code.success ? code.data : undefined
}

/**
 * Reads `decideApproval`'s answer. Throws RuntimeAnswerError on a 200 whose
 * body is not `{ approval }`: the decision may or may not have been applied,
 * and main must not report an outcome it cannot show.
 */
export function parseApprovalDecisionAnswer(response: RawResponse): ApprovalDecisionAnswer {
  if (response.status !== 200) {
    return {
      status: 'refused',
      httpStatus: response.status,
      code: refusalCode(response),
      error: refusalMessage(response),
    }
  }
  const parsed = DecidedApprovalSchema.safeParse(response.body)
  if (!parsed.success) {
    throw new RuntimeAnswerError(
      `the runtime's answer to a decision did not match its contract (${describeIssue(parsed.error)})`,
    )
  }
  return { status: 'decided', approval: parsed.data.approval }
}

function describeIssue(error: z.ZodError): string {
  const [issue] = error.issues
  if (!issue) return 'no detail'
  return `${issue.path.length ? issue.path.join('.') : 'body'}: ${issue.message}`
}

/** Main's typed client for the runtime. Holds the bearer token; never handed
 *  to a renderer. */
export class RuntimeClient {
  private readonly connection: () => RuntimeConnection | undefined
  private readonly loopback = new LoopbackClient()

  constructor(connection: () => RuntimeConnection | undefined) {
    this.connection = connection
  }

  async raw(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<RawResponse> {
    const connection = this.connection()
    if (!connection) throw new RuntimeRequestError(503, 'the runtime is not running')
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const { status, text } = await this.loopback.request(connection.port, {
      method,
      path,
      headers: {
        authorization: `Bearer ${connection.bearerToken}`,
        ...(payload === undefined
          ? {}
          : {
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(payload)),
            }),
        ...headers,
      },
      ...(payload === undefined ? {} : { body: payload }),
    })
    return { status, body: text === '' ? null : (JSON.parse(text) as unknown) }
  }

  async request<S extends z.ZodType>(
    schema: S,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<z.infer<S>> {
    const response = await this.raw(method, path, body, headers)
    if (response.status < 200 || response.status > 299) {
      throw new RuntimeRequestError(
        response.status,
        refusalMessage(response),
        refusalCode(response),
      )
    }
    const parsed = schema.safeParse(response.body)
    if (!parsed.success) {
      throw new RuntimeAnswerError(
        `the runtime's answer to ${method} ${path} did not match its contract (${describeIssue(parsed.error)})`,
      )
    }
    return parsed.data
  }

  getApproval(approvalId: string): Promise<ApprovalView> {
    return this.request(
      ApprovalViewSchema,
      'GET',
      `/v1/approvals/${encodeURIComponent(approvalId)}`,
    )
  }

  async getRoom(roomId: string): Promise<Room> {
    const { room } = await this.request(
      RoomAnswerSchema,
      'GET',
      `/v1/rooms/${encodeURIComponent(roomId)}`,
    )
    return room
  }

  /** The raw answer, for callers that check refusals themselves; main's
   *  consent paths read it with parseApprovalDecisionAnswer. */
  async decideApproval(
    approvalId: string,
    decision: ApprovalDecision,
    consentToken: string,
    actionDigest: string,
  ): Promise<RawResponse> {
    return this.raw(
      'POST',
      `/v1/approvals/${encodeURIComponent(approvalId)}`,
      { decision },
      {
        [CONSENT_HEADER]: consentToken,
        [ACTION_DIGEST_HEADER]: actionDigest,
      },
    )
  }

  getPermissions(roomId: string): Promise<RoomPermissions> {
    return this.request(
      RoomPermissionsSchema,
      'GET',
      `/v1/rooms/${encodeURIComponent(roomId)}/direct/permissions`,
    )
  }

  /** `consentToken` null: entering plan mode, which narrows and is sent
   *  without one (the runtime refuses anything else without a token). */
  changePermissions(
    roomId: string,
    change: PermissionChangeRequest,
    consentToken: string | null,
  ): Promise<RoomPermissions> {
    return this.request(
      RoomPermissionsSchema,
      'PUT',
      `/v1/rooms/${encodeURIComponent(roomId)}/direct/permissions`,
      change,
      consentToken === null ? {} : { [CONSENT_HEADER]: consentToken },
    )
  }

  getApproverWebhook(roomId: string): Promise<ApproverWebhookView> {
    return this.request(
      ApproverWebhookViewSchema,
      'GET',
      `/v1/rooms/${encodeURIComponent(roomId)}/approver-webhook`,
    )
  }

  /** Sets or removes a room's approver webhook. The answer carries the new
   *  secret, which main shows in the protected window and keeps nowhere. */
  changeApproverWebhook(
    roomId: string,
    change: ApproverWebhookChangeRequest,
    consentToken: string,
  ): Promise<ApproverWebhookChangeAnswer> {
    return this.request(
      ApproverWebhookChangeAnswerSchema,
      'PUT',
      `/v1/rooms/${encodeURIComponent(roomId)}/approver-webhook`,
      change,
      { [CONSENT_HEADER]: consentToken },
    )
  }
}

import { ACTION_DIGEST_HEADER, CONSENT_HEADER } from '../../common/http-headers.ts'
import type { z } from 'zod'
import { ApprovalViewSchema, type ApprovalView } from '../../runtime/contracts/approval.ts'
import type { ApprovalDecision } from '../../runtime/contracts/consent.ts'
import {
  RoomPermissionsSchema,
  type PermissionChangeRequest,
  type RoomPermissions,
} from '../../runtime/contracts/room.ts'
import type { RuntimeConnection } from './runtime-supervisor.ts'

/** A non-2xx answer from the runtime, with its status and message. */
export class RuntimeRequestError extends Error {
  readonly status: number
  readonly code: string | undefined

  constructor(status: number, message: string, code?: string) {
    super(message)
    this.status = status
    this.code = code
  }
}

export interface RawResponse {
  status: number
  body: unknown
}

/** Main's typed client for the runtime. Holds the bearer token; never handed
 *  to a renderer. */
export class RuntimeClient {
  private readonly connection: () => RuntimeConnection | undefined

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
    const response = await fetch(`http://127.0.0.1:${connection.port}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${connection.bearerToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await response.text()
    return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) }
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
      const detail = response.body as { error?: string; code?: string } | null
      throw new RuntimeRequestError(
        response.status,
        detail?.error ?? `the runtime answered ${response.status}`,
        detail?.code,
      )
    }
    return schema.parse(response.body)
  }

  getApproval(approvalId: string): Promise<ApprovalView> {
    return this.request(
      ApprovalViewSchema,
      'GET',
      `/v1/approvals/${encodeURIComponent(approvalId)}`,
    )
  }

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

  changePermissions(
    roomId: string,
    change: PermissionChangeRequest,
    consentToken: string,
  ): Promise<RoomPermissions> {
    return this.request(
      RoomPermissionsSchema,
      'PUT',
      `/v1/rooms/${encodeURIComponent(roomId)}/direct/permissions`,
      change,
      { [CONSENT_HEADER]: consentToken },
    )
  }
}

import { randomUUID } from 'node:crypto'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { CONSENT_HEADER } from '../../src/contracts/http-headers.ts'
import type { RawResponse } from '../../src/main/core/runtime-client.ts'
import {
  ApprovalSummarySchema,
  type ApprovalSummary,
  type ApprovalView,
} from '../../src/contracts/approval.ts'
import type { ApprovalDecision } from '../../src/contracts/consent.ts'
import type { PermissionMode } from '../../src/contracts/policy-axes.ts'
import {
  GrantSchema,
  RoomPermissionsSchema,
  type Grant,
  type RoomPermissions,
  type ToolCallRecord,
} from '../../src/contracts/room.ts'
import { send, timeline, turnSettled } from './room-helpers.ts'
import { eventually, type RuntimeHarness } from './runtime-harness.ts'

export interface AuditEventView {
  type: string
  subjectId: string
  payload: Record<string, unknown>
}

export interface ModeChange {
  mode: PermissionMode
  expectedRevision: number
  clientRequestId?: string
  /** What the protected window said confirming also does. */
  acceptsReplacedWorkspace?: true
  resealsRoom?: true
}

export function permissionsPath(roomId: string): string {
  return `/v1/rooms/${roomId}/direct/permissions`
}

export function readPermissions(harness: RuntimeHarness, roomId: string): Promise<RawResponse> {
  return harness.client.raw('GET', permissionsPath(roomId))
}

/**
 * PUTs a mode change. `token` defaults to a valid token minted for exactly
 * this request; pass a string to present another one, or null to send none.
 */
export function putMode(
  harness: RuntimeHarness,
  roomId: string,
  change: ModeChange,
  token?: string | null,
): Promise<RawResponse> {
  const body = {
    ...change,
    clientRequestId: change.clientRequestId ?? randomUUID(),
  }
  const presented = token === undefined ? harness.mintPermission({ roomId, ...body }) : token
  return harness.client.raw(
    'PUT',
    permissionsPath(roomId),
    body,
    presented === null ? {} : { [CONSENT_HEADER]: presented },
  )
}

/** Switches a direct room to `mode` the way the protected window does. */
export async function setMode(
  harness: RuntimeHarness,
  roomId: string,
  mode: PermissionMode,
): Promise<RoomPermissions> {
  const { revision, ...shown } = await harness.client.getPermissions(roomId)
  const response = await putMode(harness, roomId, {
    mode,
    expectedRevision: revision,
    ...(shown.workspaceMoved === true ? { acceptsReplacedWorkspace: true } : {}),
    ...(shown.integrity === 'ok' ? {} : { resealsRoom: true }),
  })
  if (response.status !== 200) {
    throw new Error(`switching to ${mode} answered ${response.status}: ${JSON.stringify(response)}`)
  }
  return RoomPermissionsSchema.parse(response.body)
}

export async function auditEvents(harness: RuntimeHarness): Promise<AuditEventView[]> {
  const { body } = await harness.client.raw('GET', '/v1/audit/export')
  return (body as { events: AuditEventView[] }).events
}

export async function roomApprovals(
  harness: RuntimeHarness,
  roomId: string,
): Promise<ApprovalSummary[]> {
  const { approvals } = await harness.client.request(
    z.object({ approvals: z.array(ApprovalSummarySchema) }),
    'GET',
    `/v1/rooms/${roomId}/approvals`,
  )
  return approvals
}

export async function roomGrants(harness: RuntimeHarness, roomId: string): Promise<Grant[]> {
  const { grants } = await harness.client.request(
    z.object({ grants: z.array(GrantSchema) }),
    'GET',
    `/v1/rooms/${roomId}/grants`,
  )
  return grants
}

/** Waits for the pending approval of a turn that was already sent. */
export async function waitForPendingApproval(
  harness: RuntimeHarness,
  roomId: string,
  turnId: string,
): Promise<ApprovalView> {
  const summary = await eventually(async () => {
    const approvals = await roomApprovals(harness, roomId)
    return approvals.find((approval) => approval.turnId === turnId && approval.status === 'pending')
  }, `a pending approval in turn ${turnId}`)
  return harness.client.getApproval(summary.id)
}

/** Decides an approval in the name of the person, with a token minted for it. */
export function decide(
  harness: RuntimeHarness,
  view: ApprovalView,
  decision: ApprovalDecision,
): Promise<RawResponse> {
  return harness.client.decideApproval(
    view.approval.id,
    decision,
    harness.mintApproval(view.approval.id, decision, view.actionDigest),
    view.actionDigest,
  )
}

export async function toolCallsOf(
  harness: RuntimeHarness,
  roomId: string,
  turnId: string,
): Promise<ToolCallRecord[]> {
  const current = await timeline(harness, roomId)
  return current.toolCalls
    .filter((call) => call.turnId === turnId)
    .sort((left, right) => left.seq - right.seq)
}

/** A fresh directory beside the workspace (inside the harness root, so it
 *  is removed with it), for writes that must land outside the workspace. */
export async function outsideDir(harness: RuntimeHarness): Promise<string> {
  const dir = join(harness.root, `outside-${randomUUID()}`)
  await mkdir(dir, { recursive: true })
  return dir
}

/** Runs one call in the room as a turn of its own and answers whether it
 *  ran without asking the person; an ask is denied, so the turn ends. */
export async function ranUnasked(
  harness: RuntimeHarness,
  roomId: string,
  text: string,
): Promise<boolean> {
  const turnId = await send(harness, roomId, text)
  const asked = await Promise.race([
    turnSettled(harness, roomId, turnId).then((): false => false),
    pendingAskOf(harness, roomId, turnId),
  ])
  if (asked !== false) {
    if ((await decide(harness, asked, 'deny')).status !== 200) {
      throw new Error(`the ask for "${text}" could not be denied`)
    }
    await turnSettled(harness, roomId, turnId)
    return false
  }
  const call = (await turnSettled(harness, roomId, turnId)).toolCalls.find(
    (each) => each.turnId === turnId,
  )
  return call?.status === 'succeeded' && call.approvalId === null
}

/** The approval turn `turnId` waits on, or false once it settled unasked. */
async function pendingAskOf(
  harness: RuntimeHarness,
  roomId: string,
  turnId: string,
): Promise<ApprovalView | false> {
  for (;;) {
    const pending = (await roomApprovals(harness, roomId)).find(
      (approval) => approval.turnId === turnId && approval.status === 'pending',
    )
    if (pending) return harness.client.getApproval(pending.id)
    const turn = (await timeline(harness, roomId)).turns.find((each) => each.id === turnId)
    if (turn && (turn.status === 'done' || turn.status === 'failed')) return false
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { z } from 'zod'
import type { RuntimeClient } from '../../src/main/core/runtime-client.ts'
import type { RuntimeConnection } from '../../src/main/core/runtime-supervisor.ts'
import { mintConsentToken } from '../../src/consent/consent-token.ts'
import { ApprovalSummarySchema, type ApprovalSummary } from '../../src/contracts/approval.ts'
import type { ApprovalDecision } from '../../src/contracts/consent.ts'
import { RoomSchema } from '../../src/contracts/room.ts'

/** A runtime as main sees it: the typed client and the live connection
 *  (for the consent key and instance id). Both the test harness and the
 *  CDP host offer one. */
export interface RuntimeAccess {
  client: RuntimeClient
  connection: () => RuntimeConnection
}

/** A pending approval with the digest a consent token for it must name. */
export interface PendingApproval {
  id: string
  roomId: string
  actionDigest: string
}

/** Runs `work` over `items` with at most `limit` in flight; keeps order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) {
      results[index] = await work(items[index]!, index)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

export async function createRoom(
  runtime: RuntimeAccess,
  workspace: string,
  title: string,
): Promise<string> {
  const { room } = await runtime.client.request(
    z.object({ room: RoomSchema }),
    'POST',
    '/v1/rooms',
    { kind: 'direct', agentId: 'assistant', workspace, title },
  )
  return room.id
}

export async function sendMessage(
  runtime: RuntimeAccess,
  roomId: string,
  text: string,
): Promise<void> {
  await runtime.client.request(
    z.object({ turn: z.object({ id: z.string() }) }),
    'POST',
    `/v1/rooms/${roomId}/messages`,
    { clientRequestId: randomUUID(), text },
  )
}

export async function roomApprovals(
  runtime: RuntimeAccess,
  roomId: string,
): Promise<ApprovalSummary[]> {
  const { approvals } = await runtime.client.request(
    z.object({ approvals: z.array(ApprovalSummarySchema) }),
    'GET',
    `/v1/rooms/${roomId}/approvals`,
  )
  return approvals
}

/**
 * Asks for `count` file writes spread over `roomIds` (`write <prefix><n>.txt
 * x`, one message each, so each waits for its own approval), then waits
 * until all of them are pending and reads each one's action digest.
 */
export async function createPendingApprovals(
  runtime: RuntimeAccess,
  roomIds: readonly string[],
  count: number,
  prefix: string,
  options: { concurrency?: number; timeoutMs?: number } = {},
): Promise<PendingApproval[]> {
  const concurrency = options.concurrency ?? 16
  const indices = Array.from({ length: count }, (_, index) => index)
  await mapLimit(indices, concurrency, (index) =>
    sendMessage(runtime, roomIds[index % roomIds.length]!, `write ${prefix}${index}.txt x`),
  )
  const deadline = Date.now() + (options.timeoutMs ?? 120_000 + count * 20)
  const pending = await waitForPending(runtime, roomIds, count, deadline)
  return mapLimit(pending, concurrency, async (approval) => ({
    id: approval.id,
    roomId: approval.roomId,
    actionDigest: (await runtime.client.getApproval(approval.id)).actionDigest,
  }))
}

async function waitForPending(
  runtime: RuntimeAccess,
  roomIds: readonly string[],
  count: number,
  deadline: number,
): Promise<ApprovalSummary[]> {
  for (;;) {
    const lists = await mapLimit(roomIds, 4, (roomId) => roomApprovals(runtime, roomId))
    const pending = lists.flat().filter((approval) => approval.status === 'pending')
    if (pending.length >= count) return pending
    if (Date.now() > deadline) {
      throw new Error(`only ${pending.length} of ${count} approvals became pending`)
    }
    await sleep(50)
  }
}

/** Mints a token as main does after a trusted click, and presents it. */
export async function decide(
  runtime: RuntimeAccess,
  approval: PendingApproval,
  decision: ApprovalDecision,
): Promise<void> {
  const connection = runtime.connection()
  const token = mintConsentToken({
    key: connection.consentKey,
    now: Date.now(),
    binding: {
      kind: 'approval',
      subject: {
        approvalId: approval.id,
        decision,
        actionDigest: approval.actionDigest,
        instanceId: connection.instanceId,
      },
    },
  })
  const response = await runtime.client.decideApproval(
    approval.id,
    decision,
    token,
    approval.actionDigest,
  )
  if (response.status !== 200) {
    throw new Error(`deciding ${approval.id} answered ${response.status}`)
  }
}

/** Resident memory of a process, from /proc (Linux only). */
export function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)
  if (!match) throw new Error(`no VmRSS for process ${pid}`)
  return Number(match[1]) * 1024
}

/** A few readings of a process's resident memory, `gapMs` apart. */
export async function residentSamples(pid: number, count = 5, gapMs = 100): Promise<number[]> {
  const samples: number[] = []
  for (let index = 0; index < count; index += 1) {
    if (index > 0) await sleep(gapMs)
    samples.push(residentBytes(pid))
  }
  return samples
}

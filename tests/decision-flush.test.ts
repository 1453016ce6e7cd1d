import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { SqliteApprovalRepository } from '../src/runtime/store/approval-repository.ts'
import { SqliteConversationRepository } from '../src/runtime/store/conversation-repository.ts'
import { WalDurability } from '../src/runtime/store/durability.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { decide, waitForPendingApproval } from './support/policy-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

// The click → tool path pays for one WAL flush, not two: the runner re-checks
// an approved write's target and marks its call running in the same turn of
// the event loop as the decision commits, before the group commit starts its
// fsync (store/durability.ts), so that one fsync makes both durable. The
// tool still waits for it (tool-call-runner.ts). The runtime runs in this
// process so the store's own methods can be watched in the order they run.

let harness: RuntimeHarness

beforeAll(async () => {
  harness = await startInProcessRuntime({})
})
afterAll(async () => {
  await harness?.close()
})
afterEach(() => {
  vi.restoreAllMocks()
})

type Method = (...args: unknown[]) => unknown

/** Pushes `step` each time `method` of `prototype` has run, then returns
 *  what it returned. */
function recordAfter(prototype: object, method: string, step: string, steps: string[]): void {
  const methods = prototype as Record<string, Method>
  const original = methods[method]!
  vi.spyOn(methods, method).mockImplementation(function (this: unknown, ...args: unknown[]) {
    const result = original.apply(this, args)
    steps.push(step)
    return result
  })
}

/** Records, in order, each decision committed, each call marked running and
 *  each fsync the group commit starts (`startFsync` is private, and the one
 *  place an fsync starts; it is recorded as it starts, before it runs). */
function watchStore(): string[] {
  const steps: string[] = []
  recordAfter(SqliteApprovalRepository.prototype, 'resolve', 'decided', steps)
  recordAfter(SqliteConversationRepository.prototype, 'markRunning', 'running', steps)
  const durability = WalDurability.prototype as unknown as Record<string, Method>
  const startFsync = durability.startFsync!
  vi.spyOn(durability, 'startFsync').mockImplementation(function (this: unknown) {
    steps.push('fsync')
    return startFsync.call(this)
  })
  return steps
}

/** The steps from the decision to the call marked running, both included. */
function decisionToRunning(steps: readonly string[]): string[] {
  const from = steps.indexOf('decided')
  const to = steps.indexOf('running', from)
  return from === -1 || to === -1 ? [...steps] : steps.slice(from, to + 1)
}

describe('an allowed write', () => {
  it('is marked running before any flush starts after its decision, so one fsync covers both', async () => {
    const room = await createRoom(harness)
    const turnId = await send(harness, room.id, 'write one-flush.txt hello')
    const view = await waitForPendingApproval(harness, room.id, turnId)
    const steps = watchStore()
    expect((await decide(harness, view, 'allow-once')).status).toBe(200)
    await turnSettled(harness, room.id, turnId)
    expect(decisionToRunning(steps)).toEqual(['decided', 'running'])
    // That flush came after both, and the tool ran.
    expect(steps.indexOf('fsync', steps.indexOf('running'))).toBeGreaterThan(0)
    expect(await readFile(join(harness.workspace, 'one-flush.txt'), 'utf8')).toBe('hello')
  })
})

import { fork } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { EventBus } from '../src/runtime/events/event-bus.ts'
import { ApprovalGate } from '../src/runtime/gate/approval-gate.ts'
import { SqliteApprovalRepository } from '../src/runtime/store/approval-repository.ts'
import { verifyAuditChain } from '../src/runtime/store/audit-chain.ts'
import { SqliteAuditLog, readAuditHead } from '../src/runtime/store/audit-log.ts'
import { openDatabase } from '../src/runtime/store/database.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { seedRoomAndTurn } from '../src/runtime/gate/test-support/approval-gate-fixture.ts'

/** The fixed key tests/fixtures/gate-crash-child.ts seals with. */
const TEST_MAC = new IntegrityMac(Buffer.alloc(32, 7))
const CHILD = fileURLToPath(new URL('./fixtures/gate-crash-child.ts', import.meta.url))
const dirs: string[] = []

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function seed(): string {
  const dir = mkdtempSync(join(tmpdir(), 'assent-crash-'))
  dirs.push(dir)
  mkdirSync(workspaceOf(dir))
  const db = openDatabase(dir)
  seedRoomAndTurn(db)
  new ApprovalGate({
    approvals: new SqliteApprovalRepository(db, {
      audit: new SqliteAuditLog(db, { mac: TEST_MAC }),
    }),
    events: new EventBus(),
    now: Date.now,
  }).open({
    id: 'approval-1',
    roomId: 'room-1',
    turnId: 'turn-1',
    toolCallId: 'call-1',
    kind: 'apply-changes',
    toolName: 'write_file',
    arguments: { path: 'a', content: 'b' },
    workingDirectory: workspaceOf(dir),
    sandboxMode: 'workspace-write',
    summary: 'Write a',
    ttlMs: 60_000,
  })
  db.close()
  return dir
}

/** The approval's workspace, where the approved write_file writes `a`. */
const workspaceOf = (dir: string) => join(dir, 'workspace')

/** Runs the child to its end, nothing killed. */
function runToEnd(dir: string): Promise<number | null> {
  return new Promise((resolve) => {
    const child = fork(CHILD, [dir, 'none'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    child.on('exit', (code) => resolve(code))
  })
}

function killAt(dir: string, stage: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD, [dir, stage], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    child.on('message', (message: { reached?: string }) => {
      if (message.reached === stage) child.kill('SIGKILL')
    })
    child.on('exit', (_code, signal) =>
      signal === 'SIGKILL'
        ? resolve()
        : reject(new Error(`child exited without being killed (${signal})`)),
    )
  })
}

function inspect(dir: string) {
  const db = openDatabase(dir)
  try {
    const events = new SqliteAuditLog(db, { mac: TEST_MAC }).list()
    return {
      status: new SqliteApprovalRepository(db, {
        audit: new SqliteAuditLog(db, { mac: TEST_MAC }),
      }).get('approval-1')?.status,
      types: events.map((event) => event.type),
      // MACs and the sealed head too: the head moves in the decision's
      // transaction, so a kill at any point leaves it naming the last event.
      chain: verifyAuditChain(events, { mac: TEST_MAC, head: readAuditHead(db) }).ok,
      // What the product's write_file tool leaves when it ran.
      toolRan: existsSync(join(workspaceOf(dir), 'a')),
    }
  } finally {
    db.close()
  }
}

describe('a decision killed mid-way (SIGKILL)', () => {
  it('runs the approved tool when nothing kills it: the write it was shown lands', async () => {
    const dir = seed()
    expect(await runToEnd(dir)).toBe(0)
    expect(inspect(dir)).toEqual({
      status: 'allowed',
      types: ['approval_requested', 'approval_resolved'],
      chain: true,
      toolRan: true,
    })
    expect(readFileSync(join(workspaceOf(dir), 'a'), 'utf8')).toBe('b')
  })

  it('between reserve and commit leaves the approval pending, unaudited and the tool unrun', async () => {
    const dir = seed()
    await killAt(dir, 'after-reserve')
    expect(inspect(dir)).toEqual({
      status: 'pending',
      types: ['approval_requested'],
      chain: true,
      toolRan: false,
    })
  })

  it('inside the open transaction (audit written, not committed) rolls back completely', async () => {
    const dir = seed()
    await killAt(dir, 'inside-transaction')
    expect(inspect(dir)).toEqual({
      status: 'pending',
      types: ['approval_requested'],
      chain: true,
      toolRan: false,
    })
  })

  it('after commit keeps the decision and its audit event, and the tool had not run yet', async () => {
    const dir = seed()
    await killAt(dir, 'after-commit')
    expect(inspect(dir)).toEqual({
      status: 'allowed',
      types: ['approval_requested', 'approval_resolved'],
      chain: true,
      toolRan: false,
    })
  })
})

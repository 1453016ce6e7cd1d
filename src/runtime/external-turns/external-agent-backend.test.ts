import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DatabaseSync } from 'node:sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ExternalAgentConfig } from '../../contracts/agents-config.ts'
import type { PermissionMode } from '../../contracts/policy-axes.ts'
import { EventBus } from '../events/event-bus.ts'
import type { ExternalAgentSession } from '../external-agents/external-agent-port.ts'
import type { RoomNow } from '../policy/allower-stands.ts'
import { policyForMode } from '../policy/permission-modes.ts'
import { pinWorkspace, type WorkspaceIdentity } from '../policy/workspace-identity.ts'
import { SqliteAuditLog } from '../store/audit-log.ts'
import { IntegrityMac } from '../store/integrity-mac.ts'
import {
  openTempDatabase,
  ROOM_ID,
  sqliteStores,
  startTurn,
  turnFixture,
  type SqliteStores,
  roomAsFrozen,
} from '../test-support/sqlite-stores.ts'
import { ExternalAgentBackend } from './external-agent-backend.ts'

// The agent process is the one part that stands in here: the pinned real
// agents are not installed on every machine (the runtime tests with them
// skip without them). What is judged is whether the backend starts or hands
// a turn to a process at all.

const MAC = new IntegrityMac(Buffer.alloc(32, 9))
const AGENT: ExternalAgentConfig = {
  id: 'codex',
  name: 'Codex CLI',
  protocol: 'codex-app-server',
  command: 'codex',
  args: ['app-server'],
  pass_env: [],
  set_env: {},
}

let db: DatabaseSync
let close: () => void
let root: string
let workspace: string
let stores: SqliteStores
let sessionsOpened: number
let turnsRun: number
let sessionsClosed: number

beforeEach(() => {
  ;({ db, close } = openTempDatabase('assent-external-backend-'))
  root = realpathSync(mkdtempSync(join(tmpdir(), 'assent-external-backend-ws-')))
  workspace = join(root, 'A')
  mkdirSync(workspace)
  stores = sqliteStores(db, { mac: MAC, audit: new SqliteAuditLog(db, { mac: MAC }) })
  sessionsOpened = 0
  turnsRun = 0
  sessionsClosed = 0
})

afterEach(() => {
  close()
  rmSync(root, { recursive: true, force: true })
})

function backend(
  options: { agent?: ExternalAgentConfig; events?: EventBus; room?: RoomNow } = {},
): ExternalAgentBackend {
  let ids = 0
  return new ExternalAgentBackend({
    agents: [options.agent ?? AGENT],
    openSession: (): ExternalAgentSession => {
      sessionsOpened += 1
      return {
        start: async () => undefined,
        runTurn: async () => {
          turnsRun += 1
          return { status: 'completed', detail: null }
        },
        interrupt: async () => undefined,
        close: async () => {
          sessionsClosed += 1
        },
      }
    },
    requester: {
      open: () => {
        throw new Error('nothing is asked here')
      },
    },
    grants: stores.grants,
    room: options.room ?? roomAsFrozen(stores),
    conversations: stores.conversations,
    events: options.events ?? new EventBus(),
    now: () => 1_000,
    durable: async () => undefined,
    newId: () => `id-${(ids += 1)}`,
  })
}

/** Agent sessions opened and closed, and turns handed to one, so far. */
function counts() {
  return { opened: sessionsOpened, run: turnsRun, closed: sessionsClosed }
}

/** The room, its workspace pinned as it is now. */
async function codexRoom(): Promise<WorkspaceIdentity> {
  const workspaceIdentity = await pinWorkspace(workspace)
  stores.rooms.create({
    id: ROOM_ID,
    kind: 'direct',
    agentId: AGENT.id,
    workspace,
    workspaceIdentity,
    title: 'Codex room',
    policy: policyForMode('ask-for-approval'),
    revision: 0,
    createdAt: 1,
  })
  return workspaceIdentity
}

/** Starts the turn `id`, pinned to `workspaceIdentity`, and waits until it ended. */
async function playTurn(
  runner: ExternalAgentBackend,
  id: string,
  workspaceIdentity: WorkspaceIdentity,
): Promise<void> {
  const turn = turnFixture({ id, workspace, workspaceIdentity })
  startTurn(stores, turn)
  runner.start(turn, AGENT.id)
  await runner.settled()
}

describe('ExternalAgentBackend and the room’s workspace', () => {
  it('hands no turn to its agent, and stops the one running there, once the folder was swapped for a link', async () => {
    const workspaceIdentity = await codexRoom()
    const runner = backend()
    await playTurn(runner, 'turn-1', workspaceIdentity)
    expect(counts()).toEqual({ opened: 1, run: 1, closed: 0 })
    expect(stores.conversations.getTurn('turn-1')?.status).toBe('done')

    const elsewhere = realpathSync(mkdtempSync(join(root, 'B-')))
    renameSync(workspace, `${workspace}.old`)
    symlinkSync(elsewhere, workspace)
    await playTurn(runner, 'turn-2', workspaceIdentity)
    expect(counts()).toEqual({ opened: 1, run: 1, closed: 1 })
    expect(stores.conversations.getTurn('turn-2')?.status).toBe('failed')
    const said = stores.conversations.listMessages(ROOM_ID).at(-1)
    expect(said).toMatchObject({ role: 'system', text: expect.stringContaining(elsewhere) })
    await runner.close()
  })

  it('starts a new agent in the folder the person accepted in place of the old one, and stops the one still working in the old', async () => {
    const workspaceIdentity = await codexRoom()
    const runner = backend()
    await playTurn(runner, 'turn-1', workspaceIdentity)
    expect(counts()).toEqual({ opened: 1, run: 1, closed: 0 })

    // Another folder at the same path, accepted: the room's turns are
    // pinned to it now, while the first agent works in the one renamed away.
    renameSync(workspace, `${workspace}.old`)
    mkdirSync(workspace)
    const accepted = await pinWorkspace(workspace)
    await playTurn(runner, 'turn-2', accepted)
    expect(counts()).toEqual({ opened: 2, run: 2, closed: 1 })
    expect(stores.conversations.getTurn('turn-2')?.status).toBe('done')
    await runner.close()
  })
})

/** An ACP agent told `default` in every mode but plan, as claude-agent-acp. */
const ALIKE_ACP: ExternalAgentConfig = {
  id: 'codex',
  name: 'An ACP agent',
  protocol: 'acp',
  command: 'agent',
  args: [],
  pass_env: [],
  set_env: {},
  session_modes: {
    plan: 'plan',
    'ask-for-approval': 'default',
    'approve-for-me': 'default',
    'full-access': 'default',
  },
}

describe('ExternalAgentBackend and a room narrowed under its agent', () => {
  it.each([
    { agent: AGENT, from: 'full-access', to: 'plan', stopped: true },
    { agent: AGENT, from: 'full-access', to: 'ask-for-approval', stopped: true },
    { agent: AGENT, from: 'ask-for-approval', to: 'plan', stopped: true },
    { agent: AGENT, from: 'approve-for-me', to: 'ask-for-approval', stopped: false },
    { agent: AGENT, from: 'ask-for-approval', to: 'full-access', stopped: false },
    // Told alike, but started outside the sandbox that hides the person's
    // keys (sandbox/agent-containment.ts), which only full access skips.
    { agent: ALIKE_ACP, from: 'full-access', to: 'ask-for-approval', stopped: true },
    { agent: ALIKE_ACP, from: 'approve-for-me', to: 'ask-for-approval', stopped: false },
    { agent: ALIKE_ACP, from: 'full-access', to: 'plan', stopped: true },
  ] as const)(
    '$agent.protocol started under $from, room now $to: stopped $stopped',
    async ({ agent, from, to, stopped }) => {
      const workspaceIdentity = await codexRoom()
      const events = new EventBus()
      let now: PermissionMode = from
      const runner = backend({
        agent,
        events,
        room: { ...roomAsFrozen(stores), policyOf: () => policyForMode(now) },
      })
      const turn = turnFixture({ workspace, workspaceIdentity, policy: policyForMode(from) })
      startTurn(stores, turn)
      runner.start(turn, agent.id)
      await runner.settled()
      expect(counts()).toEqual({ opened: 1, run: 1, closed: 0 })

      now = to
      events.emit('room.updated', { roomId: ROOM_ID })
      await new Promise((resolve) => setImmediate(resolve))
      expect(counts().closed).toBe(stopped ? 1 : 0)
      await runner.close()
    },
  )
})

describe('ExternalAgentBackend and a room narrowed while its agent starts', () => {
  it('hands the turn to no agent, and says why', async () => {
    const workspaceIdentity = await codexRoom()
    const events = new EventBus()
    let now: PermissionMode = 'full-access'
    let started = (): void => undefined
    let ids = 0
    const runner = new ExternalAgentBackend({
      agents: [AGENT],
      openSession: (): ExternalAgentSession => {
        sessionsOpened += 1
        return {
          // Narrowed while the agent starts, before it is handed the turn.
          start: () =>
            new Promise<void>((resolve) => {
              started = resolve
              now = 'plan'
              events.emit('room.updated', { roomId: ROOM_ID })
            }),
          runTurn: async () => {
            turnsRun += 1
            return { status: 'completed', detail: null }
          },
          interrupt: async () => undefined,
          close: async () => {
            sessionsClosed += 1
            started()
          },
        }
      },
      requester: {
        open: () => {
          throw new Error('nothing is asked here')
        },
      },
      grants: stores.grants,
      room: { ...roomAsFrozen(stores), policyOf: () => policyForMode(now) },
      conversations: stores.conversations,
      events,
      now: () => 1_000,
      durable: async () => undefined,
      newId: () => `id-${(ids += 1)}`,
    })
    const turn = turnFixture({ workspace, workspaceIdentity, policy: policyForMode('full-access') })
    startTurn(stores, turn)
    runner.start(turn, AGENT.id)
    await runner.settled()
    expect(counts()).toEqual({ opened: 1, run: 0, closed: 1 })
    expect(stores.conversations.getTurn(turn.id)?.status).toBe('interrupted')
    await runner.close()
  })
})

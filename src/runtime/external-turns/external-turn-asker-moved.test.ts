import { mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AgentIdentity } from '../../contracts/agent-request.ts'
import type { Turn } from '../../contracts/room.ts'
import {
  undoMove,
  WORKSPACE_MOVES,
  type WorkspaceMove,
} from '../../../tests/support/workspace-moves.ts'
import { grantForDecision } from '../agent/grant-issuer.ts'
import { policyForMode } from '../policy/permission-modes.ts'
import { pinWorkspace } from '../policy/workspace-identity.ts'
import { IntegrityMac } from '../store/integrity-mac.ts'
import { codexRequest, ExternalAskerWorld } from '../test-support/external-asker.ts'
import { ROOM_ID } from '../test-support/sqlite-stores.ts'

/**
 * The door of tests/workspace-moved-doors.test.ts for external agents: the
 * same moves, where Codex's and ACP agents' requests are answered. The
 * folder is checked before a call is marked running and again once that
 * is on disk; the agent is told nothing until both held.
 */

const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }

let workspace: string
let world: ExternalAskerWorld

beforeEach(() => {
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'assent-external-moved-ws-')))
  world = new ExternalAskerWorld({
    prefix: 'assent-external-moved-',
    mac: new IntegrityMac(Buffer.alloc(32, 9)),
    agent: AGENT,
    workspace,
    now: () => 1_000,
    grantFor: (approval) => grantForDecision(approval, { now: () => 1_000 }),
  })
})

afterEach(() => {
  world.close()
  rmSync(workspace, { recursive: true, force: true })
})

const command = (commandLine: string) =>
  codexRequest({ kind: 'command', commandLine, argv: null, cwd: workspace })
/** An edit of one file: what an agent's "always" may remember. */
const edit = (file: string) =>
  codexRequest({
    kind: 'file-changes',
    changes: [
      {
        path: join(workspace, file),
        change: 'add',
        movePath: null,
        diff: 'new\n',
        oldText: null,
        newText: null,
      },
    ],
  })
const live = () => new AbortController().signal
const approvals = () => world.stores.approvals.listByRoom(ROOM_ID)

/** Runs `body` with a folder elsewhere for the move to lead to; nothing
 *  may land there. The workspace is put back after. */
async function withElsewhere(body: (elsewhere: string) => Promise<void>): Promise<void> {
  const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'assent-external-elsewhere-')))
  try {
    await body(elsewhere)
    expect(readdirSync(elsewhere)).toEqual([])
  } finally {
    undoMove(workspace)
    rmSync(elsewhere, { recursive: true, force: true })
  }
}

/** The turn's last call was refused for the move, in its words. */
function refusedFor(turn: Turn, move: WorkspaceMove): void {
  expect(world.stores.conversations.listToolCallsOfTurn(turn.id).at(-1)).toMatchObject({
    status: 'refused',
    result: { ok: false, code: 'workspace_moved', message: { code: move.words } },
  })
}

describe('ExternalTurnAsker: an allow that lands after the workspace moved', () => {
  it.each(WORKSPACE_MOVES)(
    'answers the agent deny, and records why, when the folder was $name while the person decided',
    (move) =>
      withElsewhere(async (elsewhere) => {
        const workspaceIdentity = await pinWorkspace(workspace)
        const { asker, turn } = world.askerUnder(policyForMode('ask-for-approval'), {
          turn: { workspaceIdentity },
        })
        const answer = asker.ask(edit('a.txt'), live())
        await expect.poll(() => approvals().length).toBe(1)
        move.apply(workspace, elsewhere)
        await world.gate.decide({
          approvalId: approvals()[0]!.id,
          decision: 'allow-always',
          decidedBy: 'user',
        })
        await expect(answer).resolves.toBe('deny')
        refusedFor(turn, move)
        // The person's "always" stays theirs; nothing is allowed under it
        // while the folder is not the turn's.
        await expect(asker.ask(edit('a.txt'), live())).resolves.toBe('deny')
        expect(approvals()).toHaveLength(1)
      }),
  )

  it.each(WORKSPACE_MOVES)(
    'answers the agent deny when the folder was $name during the wait for the disk',
    (move) =>
      withElsewhere(async (elsewhere) => {
        const workspaceIdentity = await pinWorkspace(workspace)
        let moved = false
        const durable = async () => {
          move.apply(workspace, elsewhere)
          moved = true
        }
        const { asker, turn } = world.askerUnder(policyForMode('full-access'), {
          turn: { workspaceIdentity },
          durable,
        })
        await expect(asker.ask(command('touch a'), live())).resolves.toBe('deny')
        expect(moved).toBe(true)
        refusedFor(turn, move)
      }),
  )
})

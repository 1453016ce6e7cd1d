import { readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { AgentIdentity } from '../src/contracts/agent-request.ts'
import type { ApprovalRecord } from '../src/contracts/approval.ts'
import { grantForDecision } from '../src/runtime/agent/grant-issuer.ts'
import { CodexAppServerClient } from '../src/runtime/external-agents/codex-app-server-client.ts'
import { policyForMode } from '../src/runtime/policy/permission-modes.ts'
import { IntegrityMac } from '../src/runtime/store/integrity-mac.ts'
import { ExternalAskerWorld } from '../src/runtime/test-support/external-asker.ts'
import { ROOM_ID } from '../src/runtime/test-support/sqlite-stores.ts'
import { addFilePatch } from '../scripts/agents/scripted-model-server.ts'
import {
  AGENT_WAIT_MS,
  realAgentsOrSkip,
  ScriptedAsker,
  useAgentSessions,
} from './support/external-agent-testbed.ts'

/**
 * What the person is shown of the real Codex CLI's file changes (the
 * pinned `codex app-server`), behind the real asker over a real SQLite
 * store: the person decides in the store, as the protected window would.
 * Only the model is scripted; Codex really writes, or does not.
 *
 * - Codex's `*** Add File` over a file that is there replaces it. It is
 *   shown as the edit from what is there, its current lines removed, as
 *   an ACP agent's Write over a file is, never as a new file of one line.
 * - Codex's edit of a link follows the link. It is shown with the file it
 *   leads to beside the name the patch wrote.
 * - Codex's `*** Move to:` onto a file that is there replaces that file.
 *   It is shown beside the move as deleted, with its current lines.
 */
const agents = realAgentsOrSkip()
const MAC = new IntegrityMac(Buffer.alloc(32, 4))
const AGENT: AgentIdentity = { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' }
const PRECIOUS = 'precious line one\nprecious line two\n'

let world: ExternalAskerWorld | undefined
afterEach(() => {
  world?.close()
  world = undefined
})

const sessions = useAgentSessions(agents, (bed) => {
  let clock = 1_000
  world = new ExternalAskerWorld({
    prefix: 'assent-codex-shown-file-db-',
    mac: MAC,
    agent: AGENT,
    workspace: bed.workspace,
    now: () => (clock += 1),
    grantFor: (approval) => grantForDecision(approval, { now: () => clock }),
  })
  const { asker } = world.askerUnder(policyForMode('ask-for-approval'))
  return new CodexAppServerClient({
    agent: bed.codexConfig(),
    workspace: bed.workspace,
    asker,
    onEvent: bed.onEvent,
    machineSettings: bed.machineSettings,
  })
})

const pending = (): ApprovalRecord | undefined =>
  world!.stores.approvals.listByRoom(ROOM_ID).find((a) => a.status === 'pending')

/** Runs `patch` as the model's one step; `before` prepares the workspace.
 *  Returns the approval the person is asked, once decided `allow-once`. */
async function askedFor(patch: string, before: (workspace: string) => void) {
  const { bed, session } = await sessions.start(
    [
      { type: 'patch', patch },
      { type: 'reply', text: 'ok' },
    ],
    new ScriptedAsker('deny'),
  )
  before(bed.workspace)
  const turn = session.runTurn('please do the scripted thing')
  await expect.poll(pending, { timeout: AGENT_WAIT_MS }).toBeDefined()
  const asked = pending()!
  await world!.gate.decide({ approvalId: asked.id, decision: 'allow-once', decidedBy: 'user' })
  expect((await turn).status).toBe('completed')
  return { workspace: bed.workspace, asked }
}

describe.skipIf(!agents)("Codex's file changes as the person is shown them (real binary)", () => {
  it(
    'shows an add over a file that is there as the edit that replaces its lines',
    { timeout: AGENT_WAIT_MS * 2 },
    async () => {
      const { workspace, asked } = await askedFor(addFilePatch('keep.txt', 'replaced\n'), (ws) =>
        writeFileSync(join(ws, 'keep.txt'), PRECIOUS),
      )
      // The control: Codex's add over the file did replace it.
      expect(readFileSync(join(workspace, 'keep.txt'), 'utf8')).toBe('replaced\n')
      const [change] = (asked.arguments as { changes: Array<Record<string, unknown>> }).changes
      expect(change).toMatchObject({ path: join(workspace, 'keep.txt'), change: 'update' })
      const lines = JSON.stringify(change?.preview)
      expect(lines).toContain('{"op":"remove","text":"precious line one"}')
      expect(lines).toContain('{"op":"remove","text":"precious line two"}')
      expect(asked.summary).toBe(`Edit ${join(workspace, 'keep.txt')}`)
    },
  )

  it(
    'shows an edit of a link with the file it leads to',
    { timeout: AGENT_WAIT_MS * 2 },
    async () => {
      const patch = [
        '*** Begin Patch',
        '*** Update File: notes.txt',
        '@@',
        '-precious line two',
        '+changed line two',
        '*** End Patch',
        '',
      ].join('\n')
      const { workspace, asked } = await askedFor(patch, (ws) => {
        writeFileSync(join(ws, 'real.txt'), PRECIOUS)
        symlinkSync(join(ws, 'real.txt'), join(ws, 'notes.txt'))
      })
      // The control: Codex followed the link.
      expect(readFileSync(join(workspace, 'real.txt'), 'utf8')).toBe(
        'precious line one\nchanged line two\n',
      )
      const [change] = (asked.arguments as { changes: Array<Record<string, unknown>> }).changes
      expect(change).toMatchObject({
        path: join(workspace, 'notes.txt'),
        realPath: join(workspace, 'real.txt'),
      })
      expect(asked.summary).toBe(
        `Edit ${join(workspace, 'notes.txt')}, which leads to ${join(workspace, 'real.txt')}`,
      )
    },
  )

  it(
    'shows a move onto a file that is there with the lines it replaces',
    { timeout: AGENT_WAIT_MS * 2 },
    async () => {
      const patch = [
        '*** Begin Patch',
        '*** Update File: draft.txt',
        '*** Move to: keep.txt',
        '@@',
        '-draft line',
        '+final line',
        '*** End Patch',
        '',
      ].join('\n')
      const { workspace, asked } = await askedFor(patch, (ws) => {
        writeFileSync(join(ws, 'draft.txt'), 'draft line\n')
        writeFileSync(join(ws, 'keep.txt'), PRECIOUS)
      })
      // The control: Codex's move did replace the file that was there.
      expect(readFileSync(join(workspace, 'keep.txt'), 'utf8')).toBe('final line\n')
      const changes = (asked.arguments as { changes: Array<Record<string, unknown>> }).changes
      expect(changes).toMatchObject([
        { path: join(workspace, 'draft.txt'), movePath: join(workspace, 'keep.txt') },
        { path: join(workspace, 'keep.txt'), change: 'delete' },
      ])
      const lines = JSON.stringify(changes[1]?.preview)
      expect(lines).toContain('{"op":"remove","text":"precious line one"}')
      expect(lines).toContain('{"op":"remove","text":"precious line two"}')
    },
  )
})

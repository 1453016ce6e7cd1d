import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { AGENT_COMMAND_TOOL, AGENT_FILE_CHANGE_TOOL } from '../src/contracts/agent-request.ts'
import { addFilePatch } from '../scripts/agents/scripted-model-server.ts'
import { AGENT_WAIT_MS } from './support/external-agent-testbed.ts'
import {
  ACP_AGENT_ID,
  agentRoom,
  useAgentRuntime,
  askedApproval,
  messagesOf,
  nextApproval,
  rewriteApprovalArguments,
  turnEnded,
} from './support/external-agent-runtime.ts'
import { decide, roomApprovals, roomGrants, setMode } from './support/policy-helpers.ts'
import { send } from './support/room-helpers.ts'

/**
 * A real ACP agent (the pinned codex-acp) as a room's agent in a real
 * runtime process, driven over HTTP as main drives it. Only the model is
 * scripted; what the agent writes really lands in the workspace, or not.
 */
const bed = useAgentRuntime()
const { agents, inWorkspace } = bed

const updatePatch = (file: string, from: string, to: string) =>
  `*** Begin Patch\n*** Update File: ${file}\n@@\n-${from}\n+${to}\n*** End Patch\n`

describe.skipIf(!agents)('an ACP agent as a room’s agent, over HTTP (real codex-acp)', () => {
  it(
    'asks with the file and its diff, and writes exactly that once allowed',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const roomId = await agentRoom(bed.runtime, ACP_AGENT_ID)
      bed.runtime.model.script([
        { type: 'patch', patch: addFilePatch('acp-new.txt', 'hello over ACP\n') },
        { type: 'reply', text: 'written' },
      ])
      const { turnId, view } = await askedApproval(bed.runtime, roomId)
      const path = inWorkspace('acp-new.txt')
      expect(view.action).toMatchObject({
        kind: 'apply-changes',
        toolName: AGENT_FILE_CHANGE_TOOL,
        sandboxMode: 'danger-full-access',
        arguments: {
          agent: { id: ACP_AGENT_ID, name: 'Codex over ACP', protocol: 'acp' },
          changes: [
            {
              path,
              change: 'add',
              preview: {
                kind: 'create',
                hunks: [{ lines: [{ op: 'add', text: 'hello over ACP' }] }],
              },
            },
          ],
        },
      })
      expect(existsSync(path)).toBe(false)
      expect((await decide(bed.runtime.harness, view, 'allow-once')).status).toBe(200)
      const { turn, timeline } = await turnEnded(bed.runtime, roomId, turnId)
      expect(turn.status).toBe('done')
      expect(readFileSync(path, 'utf8')).toBe('hello over ACP\n')
      expect(messagesOf(timeline, turnId, 'agent').join('\n')).toContain('written')
      expect(timeline.toolCalls.find((c) => c.approvalId === view.approval.id)).toMatchObject({
        toolName: AGENT_FILE_CHANGE_TOOL,
        status: 'succeeded',
      })
    },
  )

  it("shows an edit with the file's own line numbers", { timeout: AGENT_WAIT_MS }, async () => {
    const roomId = await agentRoom(bed.runtime, ACP_AGENT_ID)
    writeFileSync(inWorkspace('acp-edit.txt'), 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n')
    bed.runtime.model.script([
      { type: 'patch', patch: updatePatch('acp-edit.txt', 'six', 'SIX') },
      { type: 'reply', text: 'edited' },
    ])
    const { turnId, view } = await askedApproval(bed.runtime, roomId)
    const [change] = (view.action.arguments as { changes: Array<Record<string, unknown>> }).changes
    // codex-acp sends only the lines around the edit: Assent places them.
    expect(change).toMatchObject({
      change: 'update',
      agentDiff: null,
      preview: {
        kind: 'modify',
        hunks: [
          {
            // "five" is line 5 of the file, whatever the agent sent.
            oldStart: 5,
            newStart: 5,
            lines: [
              { op: 'context', text: 'five' },
              { op: 'remove', text: 'six' },
              { op: 'add', text: 'SIX' },
              { op: 'context', text: 'seven' },
            ],
          },
        ],
      },
    })
    expect((await decide(bed.runtime.harness, view, 'allow-once')).status).toBe(200)
    expect((await turnEnded(bed.runtime, roomId, turnId)).turn.status).toBe('done')
    expect(readFileSync(inWorkspace('acp-edit.txt'), 'utf8')).toBe(
      'one\ntwo\nthree\nfour\nfive\nSIX\nseven\n',
    )
  })

  it(
    'writes nothing on deny, and the agent is told no (it ends its turn and learns why next time)',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const roomId = await agentRoom(bed.runtime, ACP_AGENT_ID)
      bed.runtime.model.script([
        { type: 'patch', patch: addFilePatch('acp-denied.txt', 'no\n') },
        { type: 'reply', text: 'about that' },
      ])
      const { turnId, view } = await askedApproval(bed.runtime, roomId)
      const before = bed.runtime.model.requests.length
      expect((await decide(bed.runtime.harness, view, 'deny')).status).toBe(200)
      const { turn, timeline } = await turnEnded(bed.runtime, roomId, turnId)
      expect(turn.status).toBe('interrupted')
      expect(existsSync(inWorkspace('acp-denied.txt'))).toBe(false)
      expect(timeline.toolCalls.find((c) => c.approvalId === view.approval.id)).toMatchObject({
        status: 'denied',
        result: { code: 'approval_denied' },
      })
      // codex-acp tells its model with the next prompt of the session.
      const next = await send(bed.runtime.harness, roomId, 'what happened?')
      expect((await turnEnded(bed.runtime, roomId, next)).turn.status).toBe('done')
      const told = bed.runtime.model.requests.slice(before).map((r) => JSON.stringify(r.body))
      expect(told.some((body) => body.includes('aborted by user'))).toBe(true)
    },
  )

  it(
    'answers a later edit of the same file from an allow-always grant, and asks again once it is revoked',
    { timeout: AGENT_WAIT_MS * 2 },
    async () => {
      const roomId = await agentRoom(bed.runtime, ACP_AGENT_ID)
      const file = 'acp-always.txt'
      bed.runtime.model.script([
        { type: 'patch', patch: addFilePatch(file, 'one\n') },
        { type: 'reply', text: 'created' },
      ])
      const { turnId, view } = await askedApproval(bed.runtime, roomId)
      expect((await decide(bed.runtime.harness, view, 'allow-always')).status).toBe(200)
      expect((await turnEnded(bed.runtime, roomId, turnId)).turn.status).toBe('done')
      const [grant] = await roomGrants(bed.runtime.harness, roomId)
      expect(grant).toMatchObject({
        toolName: AGENT_FILE_CHANGE_TOOL,
        scope: 'path',
        path: inWorkspace(file),
      })

      bed.runtime.model.script([
        { type: 'patch', patch: updatePatch(file, 'one', 'two') },
        { type: 'reply', text: 'edited' },
      ])
      const covered = await send(bed.runtime.harness, roomId, 'edit it')
      expect((await turnEnded(bed.runtime, roomId, covered)).turn.status).toBe('done')
      expect(readFileSync(inWorkspace(file), 'utf8')).toBe('two\n')
      expect(await roomApprovals(bed.runtime.harness, roomId)).toHaveLength(1)

      const revoked = await bed.runtime.harness.client.raw(
        'DELETE',
        `/v1/rooms/${roomId}/grants/${grant?.id}`,
      )
      expect(revoked.status).toBe(200)
      bed.runtime.model.script([
        { type: 'patch', patch: updatePatch(file, 'two', 'three') },
        { type: 'reply', text: 'asked' },
      ])
      const after = await send(bed.runtime.harness, roomId, 'edit it again')
      const asked = await nextApproval(bed.runtime, roomId, after)
      expect((await decide(bed.runtime.harness, asked, 'deny')).status).toBe(200)
      await turnEnded(bed.runtime, roomId, after)
      expect(readFileSync(inWorkspace(file), 'utf8')).toBe('two\n')
    },
  )

  it(
    'refuses to write a change other than the one the decided approval shows',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const roomId = await agentRoom(bed.runtime, ACP_AGENT_ID)
      bed.runtime.model.script([
        { type: 'patch', patch: addFilePatch('acp-swapped.txt', 'payload\n') },
        { type: 'reply', text: 'ok' },
      ])
      const { turnId, view } = await askedApproval(bed.runtime, roomId)
      // The stored approval is edited to show a harmless diff: the window
      // (here, the test) reads it and a token is minted for what it shows.
      rewriteApprovalArguments(bed.runtime, view.approval.id, (args) => {
        const [change] = args.changes as Array<Record<string, unknown>>
        return {
          ...args,
          changes: [
            {
              ...change,
              preview: { kind: 'create', hunks: [{ lines: [{ op: 'add', text: 'harmless' }] }] },
            },
          ],
        }
      })
      const shown = await bed.runtime.harness.client.getApproval(view.approval.id)
      expect(shown.action.arguments).toMatchObject({
        changes: [{ preview: { hunks: [{ lines: [{ text: 'harmless' }] }] } }],
      })
      expect(shown.actionDigest).not.toBe(view.actionDigest)
      // The gate refuses a decision on a row that is not the action it
      // opened, and withdraws the approval: the agent hears no allow.
      expect(await decide(bed.runtime.harness, shown, 'allow-once')).toMatchObject({
        status: 409,
        body: { code: 'approval_tampered' },
      })

      const { timeline } = await turnEnded(bed.runtime, roomId, turnId)
      expect(existsSync(inWorkspace('acp-swapped.txt'))).toBe(false)
      expect(timeline.toolCalls.find((c) => c.approvalId === view.approval.id)).toMatchObject({
        status: 'expired',
        result: { ok: false, code: 'approval_expired' },
      })
    },
  )

  it(
    'asks nothing in full access: the agent is started in its full-access mode and writes',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const roomId = await agentRoom(bed.runtime, ACP_AGENT_ID)
      await setMode(bed.runtime.harness, roomId, 'full-access')
      bed.runtime.model.script([
        { type: 'exec', command: 'echo free >> acp-full.txt' },
        { type: 'reply', text: 'done' },
      ])
      const turnId = await send(bed.runtime.harness, roomId, 'go')
      const { turn, timeline } = await turnEnded(bed.runtime, roomId, turnId)
      expect(turn.status).toBe('done')
      expect(readFileSync(inWorkspace('acp-full.txt'), 'utf8')).toBe('free\n')
      expect(await roomApprovals(bed.runtime.harness, roomId)).toEqual([])
      expect(timeline.toolCalls.filter((c) => c.turnId === turnId)).toMatchObject([
        { toolName: AGENT_COMMAND_TOOL, status: 'succeeded' },
      ])
    },
  )
})

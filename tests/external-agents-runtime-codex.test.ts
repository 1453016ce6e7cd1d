import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { AGENT_COMMAND_TOOL, AGENT_FILE_CHANGE_TOOL } from '../src/contracts/agent-request.ts'
import { addFilePatch } from '../scripts/agents/scripted-model-server.ts'
import { AGENT_WAIT_MS } from './support/external-agent-testbed.ts'
import {
  agentRoom,
  useAgentRuntime,
  askedApproval,
  CODEX_AGENT_ID,
  messagesOf,
  nextApproval,
  rewriteApprovalArguments,
  turnEnded,
} from './support/external-agent-runtime.ts'
import {
  auditEvents,
  decide,
  roomApprovals,
  roomGrants,
  setMode,
} from './support/policy-helpers.ts'
import { send } from './support/room-helpers.ts'

/**
 * The real Codex CLI (`codex app-server`, pinned) as a room's agent in a
 * real runtime process, driven over HTTP as main drives it. Only the model
 * is scripted; the commands and file changes Codex makes really run, or do
 * not, in the runtime's workspace.
 */
const bed = useAgentRuntime()
const { agents, inWorkspace } = bed

const touch = (file: string) => `touch ${file} && echo touched`

describe.skipIf(!agents)('Codex as a room’s agent, over HTTP (real binary)', () => {
  it(
    'asks with the command line and its folder, runs it once allowed, and the timeline shows it',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const roomId = await agentRoom(bed.runtime, CODEX_AGENT_ID)
      bed.runtime.model.script([
        { type: 'exec', command: touch('allowed.txt') },
        { type: 'reply', text: 'done touching' },
      ])
      const { turnId, view } = await askedApproval(bed.runtime, roomId)
      expect(view.action).toMatchObject({
        kind: 'run-command',
        toolName: AGENT_COMMAND_TOOL,
        workingDirectory: bed.runtime.harness.workspace,
        // Codex may run an allowed command outside its sandbox: the worst
        // case is what the person is shown.
        sandboxMode: 'danger-full-access',
        arguments: {
          agent: { id: CODEX_AGENT_ID, name: 'Codex CLI', protocol: 'codex-app-server' },
          commandLine: `/bin/bash -lc '${touch('allowed.txt')}'`,
          argv: null,
          cwd: bed.runtime.harness.workspace,
        },
      })
      expect(existsSync(inWorkspace('allowed.txt'))).toBe(false)
      expect((await decide(bed.runtime.harness, view, 'allow-once')).status).toBe(200)

      const { turn, timeline } = await turnEnded(bed.runtime, roomId, turnId)
      expect(turn.status).toBe('done')
      expect(existsSync(inWorkspace('allowed.txt'))).toBe(true)
      expect(messagesOf(timeline, turnId, 'agent')).toEqual(['done touching'])
      const call = timeline.toolCalls.find((c) => c.approvalId === view.approval.id)
      expect(call).toMatchObject({
        toolName: AGENT_COMMAND_TOOL,
        status: 'succeeded',
        result: { ok: true, output: 'touched\n', exitCode: 0 },
      })
      const events = (await auditEvents(bed.runtime.harness)).filter(
        (event) => event.subjectId === view.approval.id,
      )
      expect(events.map((event) => event.type)).toEqual(['approval_requested', 'approval_resolved'])
      expect(events.map((event) => event.payload.actionDigest)).toEqual([
        view.actionDigest,
        view.actionDigest,
      ])
    },
  )

  it(
    'leaves the disk untouched on deny, and Codex is told the person rejected it',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const roomId = await agentRoom(bed.runtime, CODEX_AGENT_ID)
      bed.runtime.model.script([
        { type: 'exec', command: touch('denied.txt') },
        { type: 'reply', text: 'understood' },
      ])
      const before = bed.runtime.model.requests.length
      const { turnId, view } = await askedApproval(bed.runtime, roomId)
      expect((await decide(bed.runtime.harness, view, 'deny')).status).toBe(200)
      const { turn, timeline } = await turnEnded(bed.runtime, roomId, turnId)
      expect(turn.status).toBe('done')
      expect(existsSync(inWorkspace('denied.txt'))).toBe(false)
      const told = bed.runtime.model.requests.slice(before).map((r) => JSON.stringify(r.body))
      expect(told.some((body) => body.includes('rejected by user'))).toBe(true)
      expect(timeline.toolCalls.find((c) => c.approvalId === view.approval.id)).toMatchObject({
        status: 'denied',
        result: { ok: false, code: 'approval_denied' },
      })
      expect(messagesOf(timeline, turnId, 'agent')).toEqual(['understood'])
    },
  )

  it(
    'shows a file change with its diff, and writes exactly that once allowed',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const roomId = await agentRoom(bed.runtime, CODEX_AGENT_ID)
      bed.runtime.model.script([
        { type: 'patch', patch: addFilePatch('notes/new.txt', 'first line\nsecond line\n') },
        { type: 'reply', text: 'written' },
      ])
      const { turnId, view } = await askedApproval(bed.runtime, roomId)
      const path = inWorkspace('notes/new.txt')
      expect(view.action).toMatchObject({
        kind: 'apply-changes',
        toolName: AGENT_FILE_CHANGE_TOOL,
        summary: `Add ${path}`,
        arguments: {
          changes: [
            {
              path,
              change: 'add',
              movePath: null,
              agentDiff: null,
              preview: {
                path,
                kind: 'create',
                truncated: false,
                hunks: [
                  {
                    oldStart: 0,
                    oldLines: 0,
                    newStart: 1,
                    newLines: 2,
                    lines: [
                      { op: 'add', text: 'first line' },
                      { op: 'add', text: 'second line' },
                    ],
                  },
                ],
              },
            },
          ],
        },
      })
      expect((await decide(bed.runtime.harness, view, 'allow-once')).status).toBe(200)
      const { turn } = await turnEnded(bed.runtime, roomId, turnId)
      expect(turn.status).toBe('done')
      expect(readFileSync(path, 'utf8')).toBe('first line\nsecond line\n')
    },
  )

  it(
    'refuses a change outside the workspace without asking, and nothing is written there',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const roomId = await agentRoom(bed.runtime, CODEX_AGENT_ID)
      const outside = join(bed.runtime.harness.root, 'outside-by-codex.txt')
      bed.runtime.model.script([
        { type: 'patch', patch: addFilePatch(outside, 'escaped\n') },
        { type: 'reply', text: 'ok' },
      ])
      const turnId = await send(bed.runtime.harness, roomId, 'write outside')
      const { turn, timeline } = await turnEnded(bed.runtime, roomId, turnId)
      expect(turn.status).toBe('done')
      expect(existsSync(outside)).toBe(false)
      expect(await roomApprovals(bed.runtime.harness, roomId)).toEqual([])
      expect(timeline.toolCalls.filter((c) => c.turnId === turnId)).toMatchObject([
        {
          toolName: AGENT_FILE_CHANGE_TOOL,
          status: 'refused',
          result: { code: 'outside_workspace' },
        },
      ])
    },
  )

  it(
    "leaves every run of a command to the person: Codex runs it outside Assent's sandbox, so no Always allow is kept",
    { timeout: AGENT_WAIT_MS * 2 },
    async () => {
      const roomId = await agentRoom(bed.runtime, CODEX_AGENT_ID)
      const command = 'echo again >> always.txt'
      bed.runtime.model.script([
        { type: 'exec', command },
        { type: 'exec', command },
        { type: 'reply', text: 'twice' },
      ])
      const { turnId, view } = await askedApproval(bed.runtime, roomId)
      // The window is told not to offer it, and the runtime refuses it.
      expect(view.alwaysAllowAvailable).toBe(false)
      expect(await decide(bed.runtime.harness, view, 'allow-always')).toMatchObject({
        status: 409,
        body: { code: 'always_allow_unavailable' },
      })
      expect((await decide(bed.runtime.harness, view, 'allow-once')).status).toBe(200)
      // Codex asks again for the same line, and the person is asked again.
      const second = await nextApproval(bed.runtime, roomId, turnId)
      expect(second.approval.id).not.toBe(view.approval.id)
      expect(second.action.arguments).toMatchObject({ commandLine: `/bin/bash -lc '${command}'` })
      expect((await decide(bed.runtime.harness, second, 'allow-once')).status).toBe(200)
      const ended = await turnEnded(bed.runtime, roomId, turnId)
      expect(ended.turn.status).toBe('done')
      expect(readFileSync(inWorkspace('always.txt'), 'utf8')).toBe('again\nagain\n')
      expect(await roomGrants(bed.runtime.harness, roomId)).toEqual([])
      const audit = await auditEvents(bed.runtime.harness)
      expect(audit.filter((e) => e.type === 'tool_allowed_by_grant')).toEqual([])
    },
  )

  it(
    'starts Codex again under the new mode when the room changes mode between turns',
    { timeout: AGENT_WAIT_MS * 2 },
    async () => {
      const roomId = await agentRoom(bed.runtime, CODEX_AGENT_ID)
      bed.runtime.model.script([
        { type: 'exec', command: touch('asked-first.txt') },
        { type: 'reply', text: 'first' },
      ])
      const { turnId, view } = await askedApproval(bed.runtime, roomId)
      expect((await decide(bed.runtime.harness, view, 'allow-once')).status).toBe(200)
      expect((await turnEnded(bed.runtime, roomId, turnId)).turn.status).toBe('done')

      await setMode(bed.runtime.harness, roomId, 'full-access')
      bed.runtime.model.script([
        { type: 'exec', command: touch('unasked.txt') },
        { type: 'reply', text: 'second' },
      ])
      const second = await send(bed.runtime.harness, roomId, 'again, with full access')
      expect((await turnEnded(bed.runtime, roomId, second)).turn.status).toBe('done')
      expect(existsSync(inWorkspace('unasked.txt'))).toBe(true)
      expect(await roomApprovals(bed.runtime.harness, roomId)).toHaveLength(1)
      // Codex was told `never` with no sandbox for the new turn: the model's
      // request carried the new settings.
      const last = bed.runtime.model.requests.at(-1)
      expect(String(last?.headers['x-codex-turn-metadata'] ?? '')).toContain('danger-full-access')
    },
  )

  it(
    'refuses to run a command other than the one the decided approval shows',
    { timeout: AGENT_WAIT_MS },
    async () => {
      const roomId = await agentRoom(bed.runtime, CODEX_AGENT_ID)
      bed.runtime.model.script([
        { type: 'exec', command: touch('swapped.txt') },
        { type: 'reply', text: 'ok' },
      ])
      const { turnId, view } = await askedApproval(bed.runtime, roomId)
      // The stored approval is edited to show a harmless command: the window
      // (here, the test) reads it and a token is minted for what it shows.
      rewriteApprovalArguments(bed.runtime, view.approval.id, (args) => ({
        ...args,
        commandLine: 'echo harmless',
      }))
      const shown = await bed.runtime.harness.client.getApproval(view.approval.id)
      expect(shown.action.arguments).toMatchObject({ commandLine: 'echo harmless' })
      expect(shown.actionDigest).not.toBe(view.actionDigest)
      // The gate refuses a decision on a row that is not the action it
      // opened, and withdraws the approval: the agent hears no allow.
      expect(await decide(bed.runtime.harness, shown, 'allow-once')).toMatchObject({
        status: 409,
        body: { code: 'approval_tampered' },
      })

      const { turn, timeline } = await turnEnded(bed.runtime, roomId, turnId)
      expect(turn.status).toBe('done')
      expect(existsSync(inWorkspace('swapped.txt'))).toBe(false)
      expect(timeline.toolCalls.find((c) => c.approvalId === view.approval.id)).toMatchObject({
        status: 'expired',
        result: { ok: false, code: 'approval_expired' },
      })
    },
  )
})

import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { AGENT_COMMAND_TOOL, AGENT_FILE_CHANGE_TOOL } from '../src/contracts/agent-request.ts'
import { AGENT_WAIT_MS } from './support/external-agent-testbed.ts'
import {
  CLAUDE_AGENT_ID,
  agentRoom,
  askedApproval,
  messagesOf,
  nextApproval,
  turnEnded,
  useAgentRuntime,
} from './support/external-agent-runtime.ts'
import { decide } from './support/policy-helpers.ts'

/**
 * A second real ACP agent (the pinned claude-agent-acp) as a room's agent in
 * a real runtime process, driven over HTTP as main drives it, against a
 * scripted Anthropic Messages API. What the approval shows is what the
 * protected window shows; what the agent writes or runs really happens, or
 * not.
 */
const bed = useAgentRuntime()
const { agents, inWorkspace } = bed

describe.skipIf(!agents)(
  'a second ACP agent as a room’s agent, over HTTP (real claude-agent-acp)',
  () => {
    it(
      'shows an edit with the file’s own line numbers and writes it once allowed; a denied command never runs and the turn goes on',
      { timeout: AGENT_WAIT_MS * 2 },
      async () => {
        const roomId = await agentRoom(bed.runtime, CLAUDE_AGENT_ID)
        const file = inWorkspace('claude-edit.txt')
        const marker = inWorkspace('claude-denied.txt')
        writeFileSync(file, 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n')
        bed.runtime.messages.script([
          { type: 'read', path: file },
          { type: 'edit', path: file, oldText: 'six', newText: 'SIX' },
          { type: 'bash', command: `echo no > ${marker}` },
          { type: 'reply', text: 'done with both' },
        ])
        const { turnId, view } = await askedApproval(bed.runtime, roomId)
        expect(view.action).toMatchObject({
          kind: 'apply-changes',
          toolName: AGENT_FILE_CHANGE_TOOL,
          sandboxMode: 'danger-full-access',
          arguments: {
            agent: { id: CLAUDE_AGENT_ID, name: 'Claude over ACP', protocol: 'acp' },
            changes: [
              {
                path: file,
                change: 'update',
                preview: {
                  kind: 'modify',
                  hunks: [
                    {
                      // Claude sends only the replaced text: Assent places it.
                      oldStart: 6,
                      newStart: 6,
                      lines: [
                        { op: 'remove', text: 'six' },
                        { op: 'add', text: 'SIX' },
                      ],
                    },
                  ],
                },
              },
            ],
          },
        })
        expect((await decide(bed.runtime.harness, view, 'allow-once')).status).toBe(200)

        const command = await nextApproval(bed.runtime, roomId, turnId)
        expect(command.action).toMatchObject({
          kind: 'run-command',
          toolName: AGENT_COMMAND_TOOL,
          arguments: { commandLine: `echo no > ${marker}`, cwd: bed.runtime.harness.workspace },
        })
        expect(readFileSync(file, 'utf8')).toBe('one\ntwo\nthree\nfour\nfive\nSIX\nseven\n')
        expect((await decide(bed.runtime.harness, command, 'deny')).status).toBe(200)

        const { turn, timeline } = await turnEnded(bed.runtime, roomId, turnId)
        // Claude goes on after a refusal: its turn ends normally, with a reply.
        expect(turn.status).toBe('done')
        expect(messagesOf(timeline, turnId, 'agent').join('\n')).toContain('done with both')
        expect(existsSync(marker)).toBe(false)
        // The denied call keeps Assent's mark, though Claude reports it failed.
        expect(timeline.toolCalls.find((c) => c.approvalId === command.approval.id)).toMatchObject({
          status: 'denied',
        })
        expect(timeline.toolCalls.find((c) => c.approvalId === view.approval.id)).toMatchObject({
          status: 'succeeded',
        })
        // Claude announces each call before it names its kind (a later
        // tool_call_update does): the timeline shows what each call was.
        expect(timeline.toolCalls.map((c) => [c.toolName, c.status])).toEqual([
          ['agent_tool', 'succeeded'],
          [AGENT_FILE_CHANGE_TOOL, 'succeeded'],
          [AGENT_COMMAND_TOOL, 'denied'],
        ])
        expect(timeline.toolCalls[0]?.arguments).toMatchObject({ toolKind: 'read' })
      },
    )
  },
)

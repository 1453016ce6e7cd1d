import { describe, expect, it } from 'vitest'
import { ConsentViewSchema } from '../../common/consent-view.ts'
import type { ApprovalView } from '../../contracts/approval.ts'
import { actionDigest, canonicalAction, createApproval } from '../../runtime/domain/approval.ts'
import { approvalConsentView } from './approval-consent-view.ts'

function viewOf(approval: ReturnType<typeof createApproval>): ApprovalView {
  const action = canonicalAction(approval)
  return { approval, action, actionDigest: actionDigest(action) }
}

const base = {
  id: 'ap-1',
  roomId: 'room-1',
  turnId: 'turn-1',
  toolCallId: 'call-1',
  workingDirectory: '/home/ada/project',
  sandboxMode: 'workspace-write' as const,
  now: 1_000,
  ttlMs: 120_000,
}
const display = {
  promptId: 'prompt-1',
  roomLabel: 'Room',
  lang: 'en' as const,
  theme: 'light' as const,
  enableDelayMs: 600,
}

describe('the protected view of an approval', () => {
  it('shows an MCP call with its server, description, preview and full arguments', () => {
    const text = 'y'.repeat(50_000)
    const view = viewOf(
      createApproval({
        ...base,
        kind: 'mcp-tool-call',
        toolName: 'write_note',
        arguments: { name: 'a.txt', text },
        summary: 'Notes: write_note',
        mcp: {
          serverId: 'notes',
          serverName: 'Notes',
          toolDescription: 'Writes a note.',
          inputSchemaHash: 'a'.repeat(64),
          definitionHash: 'b'.repeat(64),
          preview: 'a.txt: absent -> "…"',
        },
      }),
    )
    const shown = ConsentViewSchema.parse(approvalConsentView(view, display))
    expect(shown).toMatchObject({
      kind: 'mcp-tool-call',
      argumentsText: JSON.stringify({ name: 'a.txt', text }, null, 2),
      digestPrefix: view.actionDigest.slice(0, 12),
      mcp: {
        serverName: 'Notes',
        toolDescription: 'Writes a note.',
        previewText: 'a.txt: absent -> "…"',
      },
    })
  })

  it('has no MCP part for a built-in tool', () => {
    const view = viewOf(
      createApproval({
        ...base,
        kind: 'apply-changes',
        toolName: 'write_file',
        arguments: { path: 'a.txt', content: 'x' },
        summary: 'Write 1 bytes to a.txt',
      }),
    )
    const shown = ConsentViewSchema.parse(approvalConsentView(view, display))
    expect(shown.subject === 'approval' && shown.mcp).toBe(undefined)
  })

  it('withholds Always allow only where the runtime says no grant can cover the action', () => {
    const approval = createApproval({
      ...base,
      kind: 'run-command',
      toolName: 'run_command',
      arguments: { command: 'ls', shell: true },
      summary: 'Run ls',
    })
    const offered = approvalConsentView(viewOf(approval), display)
    expect(offered).not.toHaveProperty('alwaysAllowAvailable')
    const withheld = approvalConsentView(
      { ...viewOf(approval), alwaysAllowAvailable: false },
      display,
    )
    expect(ConsentViewSchema.parse(withheld)).toMatchObject({ alwaysAllowAvailable: false })
    const available = approvalConsentView(
      { ...viewOf(approval), alwaysAllowAvailable: true },
      display,
    )
    expect(available).not.toHaveProperty('alwaysAllowAvailable')
  })

  it("carries the reviewer's reason for escalating, and nothing when there is none", () => {
    const approval = createApproval({
      ...base,
      kind: 'apply-changes',
      toolName: 'write_file',
      arguments: { path: 'a.txt', content: 'x' },
      summary: 'Write a.txt',
    })
    expect(approvalConsentView(viewOf(approval), display)).not.toHaveProperty('escalationReason')
    const escalated = { ...approval, escalationReason: 'writes outside the usual files' }
    const shown = ConsentViewSchema.parse(
      approvalConsentView({ ...viewOf(approval), approval: escalated }, display),
    )
    expect(shown).toMatchObject({ escalationReason: 'writes outside the usual files' })
  })
})

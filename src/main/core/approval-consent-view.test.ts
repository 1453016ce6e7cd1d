import { describe, expect, it } from 'vitest'
import { ConsentViewSchema } from '../../common/consent-view.ts'
import { AGENT_COMMAND_TOOL, AGENT_FILE_CHANGE_TOOL } from '../../contracts/agent-request.ts'
import { createApproval } from '../../runtime/domain/approval.ts'
import { base, display, viewOf } from '../../../tests/support/approval-views.ts'
import { approvalConsentView } from './approval-consent-view.ts'

describe('the protected view of an approval', () => {
  it('carries a command’s containment from the canonical action, whose digest covers it', () => {
    const command = {
      ...base,
      kind: 'run-command' as const,
      toolName: 'run_command',
      arguments: { argv: ['make'] },
      summary: 'Run make in .',
    }
    const contained = viewOf(
      createApproval({
        ...command,
        containment: {
          contained: true,
          writableRoots: ['/home/ada/project'],
          network: false,
          secretsHidden: true,
        },
      }),
    )
    const uncontained = viewOf(
      createApproval({ ...command, containment: { contained: false, why: 'uncontained-setting' } }),
    )
    expect(ConsentViewSchema.parse(approvalConsentView(contained, display))).toMatchObject({
      containment: { contained: true, writableRoots: ['/home/ada/project'] },
    })
    expect(approvalConsentView(uncontained, display)).toMatchObject({
      containment: { contained: false, why: 'uncontained-setting' },
    })
    expect(contained.actionDigest).not.toBe(uncontained.actionDigest)
    expect(approvalConsentView(viewOf(createApproval(command)), display)).not.toHaveProperty(
      'containment',
    )
  })

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
      action: {
        type: 'mcp',
        serverName: 'Notes',
        toolDescription: 'Writes a note.',
        previewText: 'a.txt: absent -> "…"',
      },
      alwaysAllow: { offered: true, scope: 'mcp-tool' },
    })
  })

  it("says what assent-gateway's grant on a read or a prompt answers for: every read of the server, or the prompt by name", () => {
    const governed = (toolName: string, args: Record<string, unknown>) => {
      const shown = ConsentViewSchema.parse(
        approvalConsentView(
          viewOf(
            createApproval({
              ...base,
              kind: 'mcp-tool-call',
              toolName,
              arguments: args,
              summary: `Notes: ${toolName}`,
              mcp: {
                serverId: 'notes',
                serverName: 'Notes',
                toolDescription: '',
                inputSchemaHash: 'a'.repeat(64),
                definitionHash: 'b'.repeat(64),
                preview: null,
              },
            }),
          ),
          display,
        ),
      )
      return shown.subject === 'approval' ? shown.alwaysAllow : undefined
    }
    expect(governed('resources/read', { uri: 'note://a' })).toEqual({
      offered: true,
      scope: 'mcp-read',
    })
    expect(governed('prompts/get', { name: 'summarise', arguments: { day: 'Monday' } })).toEqual({
      offered: true,
      scope: 'mcp-prompt',
      prompt: 'summarise',
    })
  })

  it('shows a permission request as exactly what widens and for this turn, with no Always allow', () => {
    const permission = {
      widen: { type: 'write-directory' as const, path: '/home/ada/reports' },
      duration: 'turn' as const,
      reason: 'to leave the report beside the project',
    }
    const requestFor = (path: string) =>
      viewOf(
        createApproval({
          ...base,
          kind: 'permission-request',
          toolName: 'request_permissions',
          arguments: { ...permission },
          summary: 'Write access to /home/ada/reports for this turn',
          permission: { ...permission, widen: { type: 'write-directory', path } },
        }),
      )
    const view = requestFor('/home/ada/reports')
    expect(view.action.permission).toEqual(permission)
    const shown = ConsentViewSchema.parse(approvalConsentView(view, display))
    expect(shown).toMatchObject({
      kind: 'permission-request',
      digestPrefix: view.actionDigest.slice(0, 12),
      action: { type: 'permission', ...permission },
      alwaysAllow: { offered: false, reason: 'turn-only' },
    })
    // What widens is part of the digest the consent token is bound to.
    expect(requestFor('/home/ada').actionDigest).not.toBe(view.actionDigest)
  })

  it("shows an external agent's command line as the agent will run it, under the agent's name", () => {
    const view = viewOf(
      createApproval({
        ...base,
        kind: 'run-command',
        toolName: AGENT_COMMAND_TOOL,
        arguments: {
          agent: { id: 'codex', name: 'Codex CLI', protocol: 'codex-app-server' },
          commandLine: "/bin/bash -lc 'touch a'",
          argv: null,
          cwd: '/home/ada/project',
        },
        sandboxMode: 'danger-full-access',
        summary: "/bin/bash -lc 'touch a'",
      }),
    )
    expect(ConsentViewSchema.parse(approvalConsentView(view, display))).toMatchObject({
      agentLabel: 'Codex CLI',
      toolName: AGENT_COMMAND_TOOL,
      sandboxMode: 'danger-full-access',
      action: {
        type: 'agent-command',
        commandLine: "/bin/bash -lc 'touch a'",
        directory: '/home/ada/project',
      },
      // The agent runs it outside Assent's sandbox: one run at a time.
      alwaysAllow: { offered: false, reason: 'agent-command-uncontained' },
    })
  })

  it("shows an external agent's file changes with their diffs, and the agent's text where there is none", () => {
    const preview = {
      path: '/p/a.txt',
      kind: 'create' as const,
      truncated: false,
      hunks: [
        {
          oldStart: 0,
          oldLines: 0,
          newStart: 1,
          newLines: 1,
          lines: [{ op: 'add' as const, text: 'hi' }],
        },
      ],
    }
    const changes = [
      { path: '/p/a.txt', change: 'add', movePath: null, preview, agentDiff: null },
      { path: '/p/b.txt', change: 'update', movePath: '/p/c.txt', preview: null, agentDiff: '??' },
    ].map((change) => ({ ...change, sourceSha256: 'd'.repeat(64) }))
    const view = viewOf(
      createApproval({
        ...base,
        kind: 'apply-changes',
        toolName: AGENT_FILE_CHANGE_TOOL,
        arguments: { agent: { id: 'acp', name: 'ACP agent', protocol: 'acp' }, changes },
        summary: 'Add /p/a.txt, Edit /p/b.txt',
      }),
    )
    expect(ConsentViewSchema.parse(approvalConsentView(view, display))).toMatchObject({
      agentLabel: 'ACP agent',
      action: {
        type: 'agent-file-changes',
        changes: [
          { path: '/p/a.txt', change: 'add', movePath: null, fileChange: preview, agentDiff: null },
          { path: '/p/b.txt', change: 'update', movePath: '/p/c.txt', agentDiff: '??' },
        ],
      },
      alwaysAllow: { offered: false, reason: 'agent-change-not-grantable' },
    })
  })

  it("shows an external agent's request whose arguments do not read as one as its raw arguments", () => {
    const view = viewOf(
      createApproval({
        ...base,
        kind: 'run-command',
        toolName: AGENT_COMMAND_TOOL,
        arguments: { commandLine: 'ls', extra: true },
        summary: 'ls',
      }),
    )
    expect(approvalConsentView(view, display)).toMatchObject({
      agentLabel: 'Assistant',
      action: { type: 'other' },
    })
  })

  it('withholds Always allow only where the runtime says no grant can cover the action', () => {
    const approval = createApproval({
      ...base,
      kind: 'run-command',
      toolName: 'run_command',
      arguments: { argv: ['ls'] },
      summary: 'Run ls',
    })
    const offered = { offered: true, scope: 'command' }
    expect(approvalConsentView(viewOf(approval), display)).toMatchObject({ alwaysAllow: offered })
    const available = { ...viewOf(approval), alwaysAllowAvailable: true }
    expect(approvalConsentView(available, display)).toMatchObject({ alwaysAllow: offered })
    const withheld = approvalConsentView(
      { ...viewOf(approval), alwaysAllowAvailable: false },
      display,
    )
    expect(ConsentViewSchema.parse(withheld)).toMatchObject({
      alwaysAllow: { offered: false, reason: 'runtime-refuses' },
    })
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

  it("words the reviewer's reason in the person's language when the runtime sent its code", () => {
    const approval = createApproval({
      ...base,
      kind: 'run-command',
      toolName: 'run_command',
      arguments: { argv: ['git', 'status'] },
      summary: 'Run git status in .',
    })
    const escalated = {
      ...approval,
      escalationReason: 'commands are decided by a person',
      escalationMessage: { code: 'review.commands' },
    }
    const view = { ...viewOf(approval), approval: escalated }
    expect(approvalConsentView(view, { ...display, lang: 'zh-CN' })).toMatchObject({
      escalationReason: '命令由人来决定',
    })
    expect(approvalConsentView(view, { ...display, lang: 'en' })).toMatchObject({
      escalationReason: 'commands are decided by a person',
    })
    // A code this main does not know: the reviewer's own words, not nothing.
    const unknown = { ...escalated, escalationMessage: { code: 'review.fromTheFuture' } }
    expect(
      approvalConsentView({ ...view, approval: unknown }, { ...display, lang: 'zh-CN' }),
    ).toMatchObject({ escalationReason: 'commands are decided by a person' })
  })
})

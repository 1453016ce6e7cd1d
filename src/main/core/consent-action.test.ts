import { describe, expect, it } from 'vitest'
import { ConsentViewSchema } from '../../common/consent-view.ts'
import { createApproval } from '../../runtime/domain/approval.ts'
import { approvalConsentView } from './approval-consent-view.ts'
import { base, display, viewOf } from '../../../tests/support/approval-views.ts'

// How main draws a built-in tool's action (consent-action.ts): the file or
// the folder the runtime bound, never one worked out from what was typed.

describe('the protected view of a built-in tool', () => {
  it('shows a built-in write as the file, where it resolves, and its whole new content', () => {
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
    expect(shown).toMatchObject({
      agentLabel: 'Assistant',
      sandboxMode: 'workspace-write',
      action: {
        type: 'write',
        path: 'a.txt',
        absolutePath: '/home/ada/project/a.txt',
        content: 'x',
      },
      alwaysAllow: { offered: true, scope: 'tool' },
    })
  })

  it("shows the runtime's change preview from the canonical action, and none of another file", () => {
    const fileChange = {
      path: 'a.txt',
      kind: 'modify' as const,
      truncated: false,
      hunks: [
        {
          oldStart: 1,
          oldLines: 1,
          newStart: 1,
          newLines: 1,
          lines: [
            { op: 'remove' as const, text: 'old' },
            { op: 'add' as const, text: 'new' },
          ],
        },
      ],
    }
    const writing = (change: typeof fileChange) =>
      viewOf(
        createApproval({
          ...base,
          kind: 'apply-changes',
          toolName: 'write_file',
          arguments: { path: 'a.txt', content: 'new\n' },
          summary: 'Write a.txt',
          fileChange: change,
        }),
      )
    const shown = ConsentViewSchema.parse(approvalConsentView(writing(fileChange), display))
    expect(shown).toMatchObject({ action: { type: 'write', fileChange } })
    const other = approvalConsentView(writing({ ...fileChange, path: 'b.txt' }), display)
    expect(other).toMatchObject({ action: { type: 'write' } })
    expect(other.subject === 'approval' && 'fileChange' in other.action).toBe(false)
  })

  it('shows a command with its exact argv, shell flag, directory and time limit', () => {
    const view = viewOf(
      createApproval({
        ...base,
        // The runtime sends the real folder it resolved the `cwd` to; main
        // never resolves it again (against its own folder, or twice).
        workingDirectory: '/home/ada/project/sub',
        kind: 'run-command',
        toolName: 'run_command',
        arguments: { argv: ['git', 'status'], cwd: 'sub', shell: true, timeoutMs: 5_000 },
        summary: 'Run git status',
      }),
    )
    expect(approvalConsentView(view, display)).toMatchObject({
      action: {
        type: 'command',
        argv: ['git', 'status'],
        shell: true,
        directory: '/home/ada/project/sub',
        timeoutMs: 5_000,
      },
      alwaysAllow: { offered: false, reason: 'command-has-options' },
    })
  })

  // A link in the workspace (`cache` -> `data`) leads the tool elsewhere:
  // the window shows the real path the runtime observed and bound into
  // the action, never one worked out from the typed path.
  it.each([
    ['write_file', 'apply-changes', { path: 'cache/db.sqlite', content: 'x' }, 'write'],
    ['delete_file', 'apply-changes', { path: 'cache/db.sqlite' }, 'delete'],
    ['read_file', 'read', { path: 'cache/db.sqlite' }, 'read'],
  ] as const)(
    'shows where %s really acts when a link leads elsewhere',
    (toolName, kind, args, type) => {
      const view = viewOf(
        createApproval({
          ...base,
          kind,
          toolName,
          arguments: args,
          summary: toolName,
          target: { path: '/home/ada/project/data/db.sqlite', exists: false },
        }),
      )
      expect(approvalConsentView(view, display)).toMatchObject({
        action: { type, path: 'cache/db.sqlite', absolutePath: '/home/ada/project/data/db.sqlite' },
      })
    },
  )

  it('shows the arguments as they are for a built-in tool whose arguments it cannot read', () => {
    const view = viewOf(
      createApproval({
        ...base,
        kind: 'run-command',
        toolName: 'run_command',
        arguments: { argv: 'git status', extra: true },
        summary: 'Run',
      }),
    )
    expect(approvalConsentView(view, display)).toMatchObject({ action: { type: 'other' } })
  })
})

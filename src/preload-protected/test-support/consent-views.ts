import type { ConsentView } from '../../common/consent-view.ts'

/** The views the protected page's tests show, in happy-dom and in
 *  Chromium alike. */

export type ApprovalView = Extract<ConsentView, { subject: 'approval' }>

export const approvalView = (overrides: Partial<ApprovalView> = {}): ApprovalView => ({
  subject: 'approval',
  promptId: 'prompt-1',
  kind: 'run-command',
  agentLabel: 'Assistant',
  toolName: 'run_command',
  action: { type: 'command', argv: ['npm', 'test'], shell: false, directory: '/home/ada/project' },
  argumentsText: JSON.stringify({ argv: ['npm', 'test'] }, null, 2),
  workingDirectory: '/home/ada/project',
  sandboxMode: 'workspace-write',
  roomLabel: 'Design review',
  digestPrefix: '0123456789ab',
  alwaysAllow: { offered: true, scope: 'command' },
  lang: 'en',
  theme: 'light',
  enableDelayMs: 600,
  ...overrides,
})

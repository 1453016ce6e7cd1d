import type { ApprovalView } from '../../src/contracts/approval.ts'
import {
  actionDigest,
  canonicalAction,
  type createApproval,
} from '../../src/runtime/domain/approval.ts'

// One approval's fields and the window's display settings, for the tests
// of how main draws an approval (src/main/core/approval-consent-view.test.ts,
// consent-action.test.ts).

/** The view main is handed of `approval`: its canonical action and digest. */
export function viewOf(approval: ReturnType<typeof createApproval>): ApprovalView {
  const action = canonicalAction(approval)
  return { approval, action, actionDigest: actionDigest(action) }
}

export const base = {
  id: 'ap-1',
  roomId: 'room-1',
  turnId: 'turn-1',
  toolCallId: 'call-1',
  workingDirectory: '/home/ada/project',
  sandboxMode: 'workspace-write' as const,
  now: 1_000,
  ttlMs: 120_000,
}
export const display = {
  promptId: 'prompt-1',
  roomLabel: 'Room',
  agentLabel: 'Assistant',
  lang: 'en' as const,
  theme: 'light' as const,
  enableDelayMs: 600,
}

import type { ApprovalSummary } from '../approval.ts'
import { englishText, message } from '../runtime-message.ts'

/*
 * Who decided an approval, and what each door must say of it: one table,
 * walked through the runtime's doors (src/runtime/policy/denial-words.test.ts:
 * a built-in tool's denial, an external agent's denied request, an MCP call
 * in a room) and through the workbench's card
 * (src/renderer/workbench/components/approval-card-who-decided.test.tsx).
 * Only the person's own decision may read as theirs.
 */

/** What a door shows, in English and in Chinese. */
export interface Said {
  en: string
  'zh-CN': string
}

const WEBHOOK_SILENT = 'the approver webhook did not answer within 10000 ms'
const NEVER_ASKS = englishText(message('call.neverAsks'))

export interface WhoDecidedRow {
  decided: string
  approval: Partial<ApprovalSummary>
  /** A denial at the runtime's doors (absent for an allow): `tool`, a
   *  tool call's words in the timeline (built-in or MCP); `model`, the
   *  English a built-in tool's caller reads; `external`, an external
   *  agent's request in the timeline; `mcp`, the English an MCP caller
   *  reads. */
  denied?: { tool: Said; model: string; external: Said; mcp: string }
  /** The card: its outcome, its label and its note. */
  card: { outcome: string; label: Said; note: Said | null }
}

export const WHO_DECIDED: WhoDecidedRow[] = [
  {
    decided: 'the approver webhook denied it',
    approval: { status: 'denied', decision: 'deny', decidedBy: 'webhook', reason: WEBHOOK_SILENT },
    denied: {
      model: `Denied by the approver webhook: ${WEBHOOK_SILENT}; it did not run.`,
      tool: {
        en: `Denied by the approver webhook: ${WEBHOOK_SILENT}; it did not run.`,
        'zh-CN': `被审批回调拒绝：${WEBHOOK_SILENT}；它没有运行。`,
      },
      external: {
        en: `Denied by the approver webhook: ${WEBHOOK_SILENT}; the agent was told no.`,
        'zh-CN': `被审批回调拒绝：${WEBHOOK_SILENT}；已告诉智能体不行。`,
      },
      mcp: `Denied by the approver webhook: ${WEBHOOK_SILENT}; notes__write_note did not run`,
    },
    card: {
      outcome: 'webhook-decided',
      label: { en: 'Decided by the approver webhook', 'zh-CN': '由审批回调决定' },
      note: {
        en: `The approver webhook denied it: ${WEBHOOK_SILENT}`,
        'zh-CN': `审批回调已拒绝：${WEBHOOK_SILENT}`,
      },
    },
  },
  {
    decided: 'the approver webhook allowed it',
    approval: {
      status: 'allowed',
      decision: 'allow-once',
      decidedBy: 'webhook',
      reason: 'the approver webhook allowed it',
    },
    card: {
      outcome: 'webhook-decided',
      label: { en: 'Decided by the approver webhook', 'zh-CN': '由审批回调决定' },
      note: {
        en: 'The approver webhook allowed it: the approver webhook allowed it',
        'zh-CN': '审批回调已允许：the approver webhook allowed it',
      },
    },
  },
  {
    decided: 'the automatic review denied it',
    approval: {
      status: 'denied',
      decision: 'deny',
      decidedBy: 'agent-review',
      reason: 'a recursive delete',
    },
    denied: {
      model: 'Denied by the automatic review: a recursive delete; it did not run.',
      tool: {
        en: 'Denied by the automatic review: a recursive delete; it did not run.',
        'zh-CN': '被自动审核拒绝：a recursive delete；它没有运行。',
      },
      external: {
        en: 'Denied by the automatic review: a recursive delete; the agent was told no.',
        'zh-CN': '被自动审核拒绝：a recursive delete；已告诉智能体不行。',
      },
      mcp: 'Denied by the automatic review: a recursive delete; notes__write_note did not run',
    },
    card: {
      outcome: 'auto-reviewed',
      label: { en: 'Reviewed automatically', 'zh-CN': '已自动审核' },
      note: {
        en: 'The automatic reviewer denied it: a recursive delete',
        'zh-CN': '自动审核程序已拒绝：a recursive delete',
      },
    },
  },
  {
    decided: 'the room’s policy refused it without asking',
    approval: {
      status: 'denied',
      decision: 'deny',
      decidedBy: 'policy',
      reason: NEVER_ASKS,
      reasonMessage: message('call.neverAsks'),
    },
    denied: {
      model: `Denied by the room’s policy: ${NEVER_ASKS}; it did not run.`,
      tool: {
        en: `Denied by the room’s policy: ${NEVER_ASKS}; it did not run.`,
        'zh-CN':
          '被房间的策略拒绝：房间的策略从不询问任何人（规划模式）：未经询问即被拒绝；它没有运行。',
      },
      external: {
        en: `Denied by the room’s policy: ${NEVER_ASKS}; the agent was told no.`,
        'zh-CN':
          '被房间的策略拒绝：房间的策略从不询问任何人（规划模式）：未经询问即被拒绝；已告诉智能体不行。',
      },
      mcp: `Denied by the room’s policy: ${NEVER_ASKS}; notes__write_note did not run`,
    },
    card: {
      outcome: 'rejected',
      label: { en: 'Rejected', 'zh-CN': '已拒绝' },
      note: { en: NEVER_ASKS, 'zh-CN': '房间的策略从不询问任何人（规划模式）：未经询问即被拒绝' },
    },
  },
]

/** The person's own decisions: worded as theirs, as before. A control, so
 *  the rule is seen to tell deciders apart rather than drop the person. */
export const PERSON_DECIDED: WhoDecidedRow = {
  decided: 'the person denied it',
  approval: { status: 'denied', decision: 'deny', decidedBy: 'user' },
  denied: {
    model: 'Denied by the person; it did not run.',
    tool: { en: 'Denied by the person; it did not run.', 'zh-CN': '你已拒绝，它没有运行。' },
    external: {
      en: 'Denied by the person; the agent was told no.',
      'zh-CN': '你已拒绝；已告诉智能体不行。',
    },
    mcp: 'Denied by the person; notes__write_note did not run',
  },
  card: { outcome: 'rejected', label: { en: 'Rejected', 'zh-CN': '已拒绝' }, note: null },
}

import type { ConsentView, Language, Theme } from '../../common/consent-view.ts'
import type { ApprovalView } from '../../contracts/approval.ts'

/**
 * What the protected window shows for an approval, built only from the
 * runtime's canonical action: the full arguments (never cut), and for an MCP
 * tool call the server, what the server says the tool does and its preview,
 * all of which the action digest covers.
 */
export function approvalConsentView(
  view: ApprovalView,
  display: {
    promptId: string
    roomLabel: string
    lang: Language
    theme: Theme
    enableDelayMs: number
  },
): ConsentView {
  const { action } = view
  return {
    subject: 'approval',
    promptId: display.promptId,
    kind: action.kind,
    toolName: action.toolName,
    argumentsText: JSON.stringify(action.arguments, null, 2),
    summary: action.summary,
    workingDirectory: action.workingDirectory,
    sandboxMode: action.sandboxMode,
    roomLabel: display.roomLabel,
    digestPrefix: view.actionDigest.slice(0, 12),
    // Only a runtime that says "no grant can cover this" hides the button;
    // the runtime refuses an allow-always on such an action anyway (409), so
    // the button is withheld rather than offered and then refused.
    ...(view.alwaysAllowAvailable === false ? { alwaysAllowAvailable: false } : {}),
    ...(view.approval.escalationReason === undefined
      ? {}
      : { escalationReason: view.approval.escalationReason.slice(0, 2_000) }),
    ...(action.mcp === undefined
      ? {}
      : {
          mcp: {
            serverName: action.mcp.serverName,
            toolDescription: action.mcp.toolDescription,
            previewText: action.mcp.preview,
          },
        }),
    lang: display.lang,
    theme: display.theme,
    enableDelayMs: display.enableDelayMs,
  }
}

import type { ConsentView, Language, Theme } from '../../common/consent-view.ts'
import { catalogs } from '../../common/i18n/index.ts'
import { messageText, templateIn } from '../../contracts/runtime-message.ts'
import { argumentsText, type ApprovalView } from '../../contracts/approval.ts'
import { readAgentRequest } from '../../contracts/agent-request.ts'
import { alwaysAllowFor, serverAlwaysAllowFor } from './always-allow-scope.ts'
import { consentAction } from './consent-action.ts'

/**
 * What the protected window shows for an approval, built only from the
 * runtime's canonical action: the action itself first (a command line, a
 * file and its change, a path to delete, an MCP call), the full arguments
 * (never cut), for an MCP tool call the server, what it says the tool does
 * and its preview, all of which the action digest covers; for a command
 * the runtime runs, what the OS lets it do (its containment, also in the
 * digest); and what "Always allow" would remember.
 *
 * A write's `fileChange` is the runtime's preview of it against the file's
 * current content, part of the canonical action (so the digest covers it);
 * without one the window shows the new content whole.
 */
export function approvalConsentView(
  view: ApprovalView,
  display: {
    promptId: string
    roomLabel: string
    agentLabel: string
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
    // An external agent is called by the name its agents.json entry gives.
    agentLabel:
      readAgentRequest(action.toolName, action.arguments)?.args.agent.name ?? display.agentLabel,
    toolName: action.toolName,
    action: consentAction(action, action.fileChange),
    argumentsText: argumentsText(action.arguments),
    workingDirectory: action.workingDirectory,
    sandboxMode: action.sandboxMode,
    ...(action.containment === undefined ? {} : { containment: action.containment }),
    roomLabel: display.roomLabel,
    digestPrefix: view.actionDigest.slice(0, 12),
    // Absent means offered, as before the runtime reported it; the runtime
    // refuses an allow-always it cannot honour anyway (409).
    alwaysAllow: alwaysAllowFor(action, view.alwaysAllowAvailable !== false),
    // Unlike the per-tool offer, absent means not offered: a runtime that
    // does not say it can honour a server-wide grant is not asked for one.
    ...(action.kind === 'mcp-tool-call'
      ? {
          serverAlwaysAllow: serverAlwaysAllowFor(action, view.serverAlwaysAllowAvailable === true),
        }
      : {}),
    ...escalationOf(view, display.lang),
    lang: display.lang,
    theme: display.theme,
    enableDelayMs: display.enableDelayMs,
  }
}

/** Why the reviewer left the action to the person, in their language where
 *  the runtime sent a code for it, else in the reviewer's own words. */
function escalationOf(view: ApprovalView, lang: Language): { escalationReason?: string } {
  const { escalationReason, escalationMessage } = view.approval
  const worded =
    escalationMessage === undefined
      ? undefined
      : messageText(escalationMessage, (code) => templateIn(catalogs[lang].runtime, code))
  const reason = worded ?? escalationReason
  return reason === undefined ? {} : { escalationReason: reason.slice(0, 2_000) }
}

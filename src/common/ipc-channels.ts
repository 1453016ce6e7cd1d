import type { WorkbenchChannel } from './assent-gui.ts'

/** IPC channel names, `assent:<area>:<verb>`. The only channels that exist. */
export const IPC = {
  /** main → protected preload: the canonical view to render. */
  consentShow: 'assent:consent:show',
  /** protected preload → main: the person's decision on its own buttons. */
  consentDecide: 'assent:consent:decide',
  /** protected preload → main: the view has been drawn; main shows the
   *  hidden window only then. */
  consentDrawn: 'assent:consent:drawn',
  /** main → protected preload: main refused the decision just sent; the
   *  page re-arms its buttons. */
  consentRefused: 'assent:consent:refused',
  /** workbench → main (invoke): a call through the renderer relay. */
  relayCall: 'assent:relay:call',
  /** workbench → main (invoke): open the protected review of an approval. */
  reviewApproval: 'assent:consent:review-approval',
  /** workbench → main (invoke): reject an open approval because the person
   *  sent a message instead; main mints a deny and nothing else. */
  rejectApprovalForMessage: 'assent:consent:reject-for-message',
  /** workbench → main (invoke): open a sensitive form in the protected window. */
  openSensitiveForm: 'assent:consent:open-form',
  /** workbench → main (invoke): open the protected mode-change window. */
  requestModeChange: 'assent:consent:request-mode-change',
  /** workbench → main (invoke): open the protected window that sets or
   *  removes a room's approver webhook. */
  requestApproverWebhook: 'assent:consent:request-approver-webhook',
  /** workbench → main (invoke): the page's language and theme, for the
   *  protected window. */
  setPreferences: 'assent:preferences:set',
  /** main → workbench: allowlisted runtime events and runtime status. */
  runtimeEvent: 'assent:runtime:event',
} as const

/** The workbench's invoke channels, by the name `assentGui` calls them: the
 *  one map both the workbench preload (which sends) and main (which
 *  registers a sender-validated handler for each) read, so they cannot drift
 *  apart. */
export const WORKBENCH_CHANNELS: Readonly<Record<WorkbenchChannel, string>> = Object.freeze({
  relay: IPC.relayCall,
  review: IPC.reviewApproval,
  reject: IPC.rejectApprovalForMessage,
  form: IPC.openSensitiveForm,
  mode: IPC.requestModeChange,
  webhook: IPC.requestApproverWebhook,
  preferences: IPC.setPreferences,
})

import { randomUUID } from 'node:crypto'
import type { PermissionMode } from '../../contracts/policy-axes.ts'
import { alwaysAllowFor, serverAlwaysAllowFor } from './always-allow-scope.ts'
import { approvalConsentView } from './approval-consent-view.ts'
import { agentLabel } from './consent-prompt-rules.ts'
import type { ConsentOutcome, PromptKit } from './consent-prompts.ts'
import { protectedFormFields, readSensitiveForm } from './sensitive-form.ts'
import { WorkbenchRefusal } from './workbench-refusal.ts'

/*
 * What the protected window shows for an approval, a mode change and a
 * sensitive form, and the prompt each opens: read from the runtime, checked
 * that it can still be decided, and handed to the consent controller's
 * window (an approver webhook's review is approver-webhook-review.ts).
 */

/** An approval the person reviews: only a pending, unexpired one opens. */
export async function reviewApprovalRequest(
  kit: PromptKit,
  approvalId: string,
): Promise<ConsentOutcome> {
  const view = await kit.client.getApproval(approvalId)
  if (view.approval.status !== 'pending') {
    throw new WorkbenchRefusal(
      view.approval.status === 'expired' ? 'approval_expired' : 'approval_decided',
      `approval ${approvalId} is no longer pending (${view.approval.status})`,
    )
  }
  if (kit.now() >= view.approval.expiresAt) {
    throw new WorkbenchRefusal('approval_expired', `approval ${approvalId} has expired`)
  }
  const room = await kit.client.getRoom(view.approval.roomId)
  const preferences = kit.preferences()
  return kit.open(
    (base) => ({
      ...base,
      kind: 'approval',
      approvalId,
      actionDigest: view.actionDigest,
      expiresAt: view.approval.expiresAt,
      // What the window's view below offers, read the same way.
      alwaysOffered: alwaysAllowFor(view.action, view.alwaysAllowAvailable !== false).offered,
      serverWideOffered: serverAlwaysAllowFor(view.action, view.serverAlwaysAllowAvailable === true)
        .offered,
    }),
    (promptId) =>
      approvalConsentView(view, {
        promptId,
        roomLabel: room.title,
        agentLabel: agentLabel(preferences.lang, room.agentId),
        lang: preferences.lang,
        theme: preferences.theme,
        enableDelayMs: kit.enableDelayMs,
      }),
  )
}

/** Widening or narrowing a room's mode goes through the protected window,
 *  except entering plan mode, which narrows from every mode and is applied
 *  at once. */
export async function reviewModeChange(
  kit: PromptKit,
  roomId: string,
  mode: PermissionMode,
): Promise<ConsentOutcome> {
  const permissions = await kit.client.getPermissions(roomId)
  // A room whose stored row failed its integrity check reads as
  // ask-for-approval; confirming that same mode is how the person trusts it
  // again, so it opens the window like any change. So does a room whose
  // workspace folder was replaced: confirming accepts the folder there now.
  if (
    permissions.mode === mode &&
    permissions.integrity === 'ok' &&
    permissions.workspaceMoved !== true
  ) {
    return { status: 'unchanged', permissions }
  }
  if (mode === 'full-access' && permissions.fullAccessUnavailable) {
    throw new WorkbenchRefusal(
      'full_access_unavailable',
      `full access is unavailable for this room: ${permissions.fullAccessUnavailable}`,
    )
  }
  // Plan is narrower than every mode on every axis: no window, no token.
  // A room whose row was edited outside Assent still opens the window:
  // confirming a mode there is how the person vouches for it again.
  if (mode === 'plan' && permissions.integrity === 'ok') {
    const change = {
      clientRequestId: randomUUID(),
      expectedRevision: permissions.revision,
      mode,
    }
    return {
      status: 'changed',
      permissions: await kit.client.changePermissions(roomId, change, null),
    }
  }
  // The window names the workspace, and says when confirming accepts the
  // folder now at that path or seals the room's settings again: the runtime
  // does either even on a narrowing, so such a confirm is timed as widening
  // (subjectOf), and its token binds what was said.
  const room = await kit.client.getRoom(roomId)
  const preferences = kit.preferences()
  const acceptsReplacedWorkspace = permissions.workspaceMoved === true
  const resealsRoom = permissions.integrity !== 'ok'
  return kit.open(
    (base) => ({
      ...base,
      kind: 'mode-change',
      roomId,
      fromMode: permissions.mode,
      mode,
      expectedRevision: permissions.revision,
      acceptsReplacedWorkspace,
      resealsRoom,
    }),
    (promptId) => ({
      subject: 'mode-change',
      promptId,
      roomLabel: room.title,
      workspace: room.workspace,
      ...(acceptsReplacedWorkspace ? { acceptsReplacedWorkspace: true as const } : {}),
      ...(resealsRoom ? { resealsRoom: true as const } : {}),
      fromMode: permissions.mode,
      toMode: mode,
      lang: preferences.lang,
      theme: preferences.theme,
      enableDelayMs: kit.enableDelayMs,
    }),
  )
}

/** A form asking for a password or a secret is filled in the protected
 *  window, never in the workbench. */
export async function reviewSensitiveForm(
  kit: PromptKit,
  requestId: string,
): Promise<ConsentOutcome> {
  const request = await readSensitiveForm(kit.client, requestId)
  const roomLabel = await kit.roomLabel(request.roomId)
  const preferences = kit.preferences()
  return kit.open(
    (base) => ({ ...base, kind: 'form', requestId, schema: request.form.requestedSchema }),
    (promptId) => ({
      subject: 'form',
      promptId,
      roomLabel,
      message: request.form.message,
      fields: protectedFormFields(request.form.requestedSchema),
      lang: preferences.lang,
      theme: preferences.theme,
      enableDelayMs: kit.enableDelayMs,
    }),
  )
}

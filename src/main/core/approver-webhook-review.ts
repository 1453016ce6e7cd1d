import { WEBHOOK_TIMEOUT_MS } from '../../contracts/approver-webhook.ts'
import type { ConsentOutcome, PromptKit, WebhookPrompt } from './consent-prompts.ts'

/**
 * Setting a room's approver webhook hands the person's decisions to whoever
 * answers at the URL, so it is confirmed in the protected window like a
 * mode change, and so is removing it. After a set, a second protected
 * window shows the new secret once; the workbench hears only that the
 * webhook changed, never the secret.
 */
export async function reviewApproverWebhook(
  kit: PromptKit,
  roomId: string,
  url: string | null,
): Promise<ConsentOutcome> {
  const { lang, theme } = kit.preferences()
  const current = await kit.client.getApproverWebhook(roomId)
  if (url === null && current.webhook === null) {
    return { status: 'webhook-changed', webhook: null }
  }
  const roomLabel = await kit.roomLabel(roomId)
  let shown: WebhookPrompt | undefined
  const outcome = await kit.open(
    (base) => {
      shown = { ...base, kind: 'approver-webhook', roomId, url }
      return shown
    },
    (promptId) => ({
      subject: 'approver-webhook',
      promptId,
      roomLabel,
      url,
      currentUrl: current.webhook?.url ?? null,
      timeoutSeconds: Math.round(WEBHOOK_TIMEOUT_MS / 1_000),
      lang,
      theme,
      enableDelayMs: kit.enableDelayMs,
    }),
  )
  const secret = shown?.secret
  if (outcome.status !== 'webhook-changed' || !secret) return outcome
  // Main keeps the secret only until this window has it.
  if (shown) delete shown.secret
  // Closing the window is all it takes; the outcome is the change whatever
  // becomes of this window.
  await kit
    .open(
      (base) => ({ ...base, kind: 'webhook-secret' }),
      (promptId) => ({
        subject: 'approver-webhook-secret',
        promptId,
        roomLabel,
        url: secret.url,
        webhookId: secret.webhookId,
        secret: secret.value,
        lang,
        theme,
        enableDelayMs: kit.enableDelayMs,
      }),
    )
    .catch(() => undefined)
  return outcome
}

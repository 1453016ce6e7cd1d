import type { Language } from '../../common/consent-view.ts'
import { translate } from '../../common/i18n/index.ts'
import type { ApprovalNotifier } from './host-port.ts'

/** How long an approval stays pending before the person is notified: the
 *  automatic reviewer usually decides well within it, and a notification
 *  for an approval nobody needs to look at is noise. */
export const NOTIFY_AFTER_MS = 1_000

export interface PendingApprovalNoticesOptions {
  notifier: ApprovalNotifier
  /** The language the notice is written in (the workbench's, once known). */
  language: () => Language
  delayMs?: number
  setTimer?: (run: () => void, ms: number) => unknown
  clearTimer?: (timer: unknown) => void
}

/**
 * Main's side of "an approval is waiting": starts a timer for each new
 * pending approval and stops it when the approval is decided first. The
 * notice names the tool only: arguments may hold secrets and stay inside
 * the app.
 */
export class PendingApprovalNotices {
  private readonly options: PendingApprovalNoticesOptions
  private readonly timers = new Map<string, unknown>()

  constructor(options: PendingApprovalNoticesOptions) {
    this.options = options
  }

  /** Called with every event forwarded to the workbench. */
  onEvent(event: { type: string; data: Record<string, unknown> }): void {
    const approval = event.data.approval as Record<string, unknown> | undefined
    if (typeof approval?.id !== 'string') return
    const approvalId = approval.id
    if (event.type === 'approval.resolved') {
      this.stop(approvalId)
      return
    }
    const toolName = approval.toolName
    const roomId = typeof approval.roomId === 'string' ? approval.roomId : undefined
    if (event.type !== 'approval.requested' || typeof toolName !== 'string') return
    if (approval.status !== 'pending' || this.timers.has(approvalId)) return
    const setTimer = this.options.setTimer ?? ((run, ms) => setTimeout(run, ms))
    const timer = setTimer(() => {
      this.timers.delete(approvalId)
      const lang = this.options.language()
      this.options.notifier.notify({
        approvalId,
        ...(roomId === undefined ? {} : { roomId }),
        title: translate(lang, 'workbench.notification.title'),
        body: translate(lang, 'workbench.notification.body', { tool: toolName }),
      })
    }, this.options.delayMs ?? NOTIFY_AFTER_MS)
    this.timers.set(approvalId, timer)
  }

  /** Forgets every waiting notice (the runtime went away, or the app closes). */
  clear(): void {
    for (const approvalId of [...this.timers.keys()]) this.stop(approvalId)
  }

  private stop(approvalId: string): void {
    if (!this.timers.has(approvalId)) return
    const clearTimer =
      this.options.clearTimer ?? ((timer) => clearTimeout(timer as ReturnType<typeof setTimeout>))
    clearTimer(this.timers.get(approvalId))
    this.timers.delete(approvalId)
  }
}

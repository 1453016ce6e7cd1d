import type { ApprovalSummary } from '../../runtime/contracts/approval.ts'

/** Same wait as main's (NOTIFY_AFTER_MS): the automatic reviewer usually
 *  decides within it, and then nobody needs to be called. */
export const NOTIFY_AFTER_MS = 1_000

export interface Notice {
  tag: string
  title: string
  body: string
}

export interface NotificationPort {
  /** Whether the workbench has focus: then the card is in view, no notice. */
  hasFocus(): boolean
  show(notice: Notice, onClick: () => void): void
}

export interface PendingNotifierOptions {
  port: NotificationPort
  /** The notice's text; it names the tool, never its arguments. */
  text: (approval: ApprovalSummary) => { title: string; body: string }
  onClick: (approval: ApprovalSummary) => void
  delayMs?: number
  setTimer?: (run: () => void, ms: number) => unknown
  clearTimer?: (timer: unknown) => void
}

/**
 * Calls the person when an approval has been waiting a moment while the
 * workbench is in the background. An approval decided before then (by the
 * automatic reviewer, say) calls nobody.
 */
export class PendingNotifier {
  private readonly options: PendingNotifierOptions
  private readonly timers = new Map<string, unknown>()

  constructor(options: PendingNotifierOptions) {
    this.options = options
  }

  requested(approval: ApprovalSummary): void {
    if (approval.status !== 'pending' || this.timers.has(approval.id)) return
    const setTimer = this.options.setTimer ?? ((run, ms) => setTimeout(run, ms))
    const timer = setTimer(() => {
      this.timers.delete(approval.id)
      if (this.options.port.hasFocus()) return
      this.options.port.show({ tag: approval.id, ...this.options.text(approval) }, () =>
        this.options.onClick(approval),
      )
    }, this.options.delayMs ?? NOTIFY_AFTER_MS)
    this.timers.set(approval.id, timer)
  }

  resolved(approvalId: string): void {
    const timer = this.timers.get(approvalId)
    if (timer === undefined) return
    this.clear(timer)
    this.timers.delete(approvalId)
  }

  dispose(): void {
    for (const timer of this.timers.values()) this.clear(timer)
    this.timers.clear()
  }

  private clear(timer: unknown): void {
    const clearTimer =
      this.options.clearTimer ?? ((handle) => clearTimeout(handle as ReturnType<typeof setTimeout>))
    clearTimer(timer)
  }
}

/**
 * The web Notification API, where the host permits it. Both hosts deny
 * permission requests today, so main shows a system notification of its own
 * (MainServices' approvalNotifier); this covers a host that grants it.
 */
export function webNotifications(): NotificationPort {
  const show = (notice: Notice, onClick: () => void) => {
    const notification = new Notification(notice.title, { body: notice.body, tag: notice.tag })
    notification.onclick = () => {
      window.focus()
      onClick()
      notification.close()
    }
  }
  return {
    hasFocus: () => document.hasFocus(),
    show: (notice, onClick) => {
      if (typeof Notification === 'undefined') return
      if (Notification.permission === 'granted') return show(notice, onClick)
      if (Notification.permission !== 'default') return
      void Notification.requestPermission()
        .then((permission) => {
          if (permission === 'granted') show(notice, onClick)
        })
        .catch(() => undefined)
    },
  }
}

import type { Language } from '../../common/consent-view.ts'
import { translate, type MessageKey } from '../../common/i18n/index.ts'
import type { WaitNotice, WaitNotifier } from './host-port.ts'

/** How long an approval stays pending before the person is notified: the
 *  automatic reviewer usually decides well within it, and a notification
 *  for an approval nobody needs to look at is noise. */
export const NOTIFY_AFTER_MS = 1_000

/** An approval still pending this long before it expires is "expiring":
 *  the person is told once more, with time left to open the card and
 *  decide (the protected window asks for a deliberate pause before a click
 *  counts). An approval whose whole lifetime is shorter gets no second
 *  notice: the first one came moments before. */
export const EXPIRING_NOTICE_MS = 60_000

export interface WaitNoticesOptions {
  notifier: WaitNotifier
  /** The language the notice is written in (the workbench's, once known). */
  language: () => Language
  now?: () => number
  delayMs?: number
  setTimer?: (run: () => void, ms: number) => unknown
  clearTimer?: (timer: unknown) => void
}

type Data = Record<string, unknown>
const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined

/**
 * Main's one decision of what to notify about and when, whichever host
 * shows it (Electron's notifications, or the desktop's notification
 * service for the CDP host): everything that waits for the person.
 *
 * - an approval still pending after NOTIFY_AFTER_MS, and again once it is
 *   EXPIRING_NOTICE_MS from expiring;
 * - a question that blocks the agent (it never times out), or a form;
 * - an approver webhook's decision, which the person did not make.
 *
 * A notice names the tool or the question's title only: arguments, a
 * form's message and any answer may hold secrets and stay inside the app.
 * A decision, an answer or a closed question cancels what was waiting.
 */
export class WaitNotices {
  private readonly options: WaitNoticesOptions
  private readonly timers = new Map<string, unknown>()

  constructor(options: WaitNoticesOptions) {
    this.options = options
  }

  /** Called with every event forwarded to the workbench. */
  onEvent(event: { type: string; data: Data }): void {
    switch (event.type) {
      case 'approval.requested':
      case 'approval.resolved':
        return this.onApproval(event.type, event.data.approval as Data | undefined)
      case 'input.requested':
      case 'input.resolved':
        return this.onInput(event.type, event.data.request as Data | undefined)
    }
  }

  /** Forgets every waiting notice (the runtime went away, or the app closes). */
  clear(): void {
    for (const key of [...this.timers.keys()]) this.stop(key)
  }

  private onApproval(type: string, approval: Data | undefined): void {
    const id = text(approval?.id)
    const tool = text(approval?.toolName)
    if (!approval || id === undefined || tool === undefined) return
    const roomId = text(approval.roomId)
    const about = { approvalId: id, ...(roomId === undefined ? {} : { roomId }) }
    if (type === 'approval.resolved') {
      this.stop(`approval:${id}`)
      this.stop(`expiring:${id}`)
      if (approval.decidedBy === 'webhook') {
        const decided = approval.status === 'allowed' ? 'allowed' : 'denied'
        this.show(`webhook:${id}`, about, 'workbench.notification.webhookTitle', {
          key: `workbench.notification.webhook.${decided}`,
          tool,
        })
      }
      return
    }
    if (approval.status !== 'pending' || this.timers.has(`approval:${id}`)) return
    const delay = this.options.delayMs ?? NOTIFY_AFTER_MS
    this.later(`approval:${id}`, delay, about, 'workbench.notification.title', {
      key: 'workbench.notification.body',
      tool,
    })
    const expiresAt = approval.expiresAt
    if (typeof expiresAt !== 'number') return
    const expiringIn = expiresAt - EXPIRING_NOTICE_MS - (this.options.now ?? Date.now)()
    if (expiringIn <= delay) return
    this.later(`expiring:${id}`, expiringIn, about, 'workbench.notification.expiringTitle', {
      key: 'workbench.notification.expiring',
      tool,
    })
  }

  private onInput(type: string, request: Data | undefined): void {
    const id = text(request?.id)
    if (!request || id === undefined) return
    if (type === 'input.resolved' || request.status !== 'pending') {
      this.stop(`input:${id}`)
      return
    }
    const roomId = text(request.roomId)
    const about = roomId === undefined ? {} : { roomId }
    if (request.kind === 'form') {
      this.later(`input:${id}`, 0, about, 'workbench.notification.inputTitle', {
        key: 'workbench.notification.form',
      })
      return
    }
    if (request.blocking !== true) return
    const questions = Array.isArray(request.questions) ? (request.questions as Data[]) : []
    const title = text(questions[0]?.title)
    if (title === undefined) return
    this.later(`input:${id}`, 0, about, 'workbench.notification.inputTitle', {
      key: 'workbench.notification.question',
      title,
    })
  }

  private later(
    key: string,
    ms: number,
    about: Omit<WaitNotice, 'title' | 'body'>,
    title: MessageKey,
    body: { key: MessageKey } & Record<string, string>,
  ): void {
    if (this.timers.has(key)) return
    const setTimer = this.options.setTimer ?? ((run, after) => setTimeout(run, after))
    this.timers.set(
      key,
      setTimer(() => {
        this.timers.delete(key)
        this.show(key, about, title, body)
      }, ms),
    )
  }

  private show(
    _key: string,
    about: Omit<WaitNotice, 'title' | 'body'>,
    title: MessageKey,
    body: { key: MessageKey } & Record<string, string>,
  ): void {
    const lang = this.options.language()
    const { key, ...values } = body
    this.options.notifier.notify({
      ...about,
      title: translate(lang, title),
      body: translate(lang, key, values),
    })
  }

  private stop(key: string): void {
    if (!this.timers.has(key)) return
    const clearTimer =
      this.options.clearTimer ?? ((timer) => clearTimeout(timer as ReturnType<typeof setTimeout>))
    clearTimer(this.timers.get(key))
    this.timers.delete(key)
  }
}

import type { TFunction } from 'i18next'
import type { Question } from '../../../contracts/input-request.ts'
import type { PermissionMode } from '../../../contracts/policy-axes.ts'
import type { RuntimeMessage } from '../../../contracts/runtime-message.ts'
import type { TimelineItem } from '../state/timeline-items.ts'

/** Words a runtime message in the person's language (useRuntimeWords). */
type RuntimeWords = (message: RuntimeMessage | undefined, english: string) => string

/**
 * The words of one timeline entry as plain text: what the page's find bar
 * searches while the entry itself is not mounted (the timeline renders only
 * the entries near the viewport). It holds what a person reads and would
 * search for (who spoke and what, the tool, its arguments and output, the
 * card's action and where it runs), not every label of the entry.
 */
export function timelineFindText(item: TimelineItem, t: TFunction, words: RuntimeWords): string {
  switch (item.kind) {
    case 'message':
      return lines(
        t(`workbench.timeline.${item.message.role}`),
        words(item.message.message, item.message.text),
      )
    case 'tool': {
      const { call } = item
      return lines(
        call.toolName,
        t(`workbench.timeline.toolStatus.${call.status}`),
        item.card ? cardText(item.card.approval, t) : undefined,
        item.card || item.openCardKey ? undefined : JSON.stringify(call.arguments, null, 2),
        item.openCardKey ? t('workbench.timeline.cardBelow') : undefined,
        call.result?.message ? words(call.result.message, call.result.output) : undefined,
        call.result?.output,
      )
    }
    case 'approval':
      return cardText(item.card.approval, t)
    case 'input': {
      const { request } = item.card
      // The record reaches the page from main's relay as it came; one
      // without questions must not break the whole timeline.
      const questions: readonly Question[] = request.questions ?? []
      return lines(
        request.form?.message,
        ...questions.flatMap((question) => [
          question.title,
          question.text,
          ...question.options.map((option) => option.label),
        ]),
      )
    }
    case 'mode': {
      const { request } = item.mode
      const name = (mode: PermissionMode | undefined) => (mode ? t(`mode.${mode}.name`) : '…')
      return t('workbench.modeRequest.change', { from: name(request.from), to: name(request.to) })
    }
    case 'turn-end':
      return t('workbench.timeline.turnStopped')
  }
}

type CardApproval = Extract<TimelineItem, { kind: 'approval' }>['card']['approval']

function cardText(approval: CardApproval, t: TFunction): string {
  return lines(
    t(`consent.kind.${approval.kind}`),
    approval.summary,
    approval.mcp?.serverName,
    approval.mcp?.toolDescription,
    approval.toolName,
    approval.workingDirectory,
  )
}

function lines(...parts: ReadonlyArray<string | undefined>): string {
  return parts.filter((part) => part !== undefined && part !== '').join('\n')
}

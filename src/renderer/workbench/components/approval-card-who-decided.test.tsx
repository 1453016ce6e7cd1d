// @vitest-environment happy-dom
import { cleanup, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import {
  PERSON_DECIDED,
  WHO_DECIDED,
  type WhoDecidedRow,
} from '../../../contracts/test-support/who-decided.ts'
import { approvalFixture } from '../test-support/fake-gui.ts'
import { renderWithI18n } from '../test-support/render.tsx'
import { ApprovalCard } from './approval-card.tsx'

// The workbench's door of the shared table: a decided card's outcome, its
// label and its note, in English and in Chinese. A decision the person did
// not make never shows as "Approved" or "Rejected" without its decider.

afterEach(cleanup)

/** What the card shows of the row's approval, in both languages. */
function cardSays(row: WhoDecidedRow): WhoDecidedRow['card'] {
  const approval = approvalFixture({ decidedAt: 3, ...row.approval })
  const shownIn = (lang: 'en' | 'zh-CN') => {
    renderWithI18n(
      <ApprovalCard card={{ approval, stale: false }} args={{}} onReview={() => {}} />,
      lang,
    )
    const outcome = screen.getByTestId('approval-outcome')
    const shown = {
      outcome: outcome.dataset.outcome ?? '',
      label: outcome.textContent ?? '',
      note: screen.queryByTestId('approval-note')?.textContent ?? null,
    }
    cleanup()
    return shown
  }
  const en = shownIn('en')
  const zh = shownIn('zh-CN')
  return {
    outcome: en.outcome,
    label: { en: en.label, 'zh-CN': zh.label },
    note: en.note === null ? null : { en: en.note, 'zh-CN': zh.note ?? '' },
  }
}

describe('a decided card says who decided', () => {
  it.each(WHO_DECIDED)('when $decided', (row) => {
    expect(cardSays(row)).toEqual(row.card)
  })

  it('still shows the person’s own denial as "Rejected" with no note (a control)', () => {
    expect(cardSays(PERSON_DECIDED)).toEqual(PERSON_DECIDED.card)
  })
})

// @vitest-environment happy-dom
import { cleanup, fireEvent, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ApprovalSummary, PermissionRequest } from '../../../contracts/approval.ts'
import { approvalFixture } from '../test-support/fake-gui.ts'
import { renderWithI18n } from '../test-support/render.tsx'
import { ApprovalCard } from './approval-card.tsx'

afterEach(cleanup)

const WRITE: PermissionRequest = {
  widen: { type: 'write-directory', path: '/home/ada/reports' },
  duration: 'turn',
  reason: 'to leave the report beside the project',
}

function renderRequest(
  permission: PermissionRequest = WRITE,
  overrides: Partial<ApprovalSummary> = {},
  lang: 'en' | 'zh-CN' = 'en',
) {
  const onReview = vi.fn()
  const approval = approvalFixture({
    kind: 'permission-request',
    toolName: 'request_permissions',
    summary: 'Write access to /home/ada/reports for this turn',
    summaryMessage: { code: 'permission.writeSummary', params: { path: '/home/ada/reports' } },
    permission,
    ...overrides,
  })
  renderWithI18n(
    <ApprovalCard card={{ approval, stale: false }} args={undefined} onReview={onReview} />,
    lang,
  )
  return { onReview, approval }
}

describe('the Permissions request card', () => {
  it('says exactly what widens, where, for how long and why, in place of a tool card', () => {
    renderRequest()
    expect(screen.queryByTestId('approval-card')).toBeNull()
    const card = screen.getByTestId('permission-request-card')
    expect(card.querySelector('.request__label')?.textContent).toBe('Permissions request')
    expect(card.querySelector('.request__text')?.textContent).toBe(
      'Write access to /home/ada/reports for this turn',
    )
    expect(screen.getByTestId('permission-request-widens').textContent).toBe(
      'Write access to one more folder',
    )
    expect(screen.getByTestId('permission-request-target').textContent).toBe('/home/ada/reports')
    expect(screen.getByTestId('permission-request-duration').textContent).toBe(
      'This turn only. The room’s mode does not change.',
    )
    expect(screen.getByTestId('permission-request-reason').textContent).toBe(
      'The agent says: to leave the report beside the project',
    )
  })

  it('names the command line when the request is for network access', () => {
    renderRequest({
      widen: { type: 'network', argv: ['npm', 'install'], directory: '/p' },
      duration: 'turn',
      reason: '',
    })
    expect(screen.getByTestId('permission-request-widens').textContent).toBe(
      'Network access for one command',
    )
    expect(screen.getByTestId('permission-request-target').textContent).toBe('npm install')
    expect(screen.queryByTestId('permission-request-reason')).toBeNull()
  })

  it('decides nothing itself: both buttons open the protected window for this request', () => {
    const { onReview, approval } = renderRequest()
    fireEvent.click(screen.getByTestId('approval-review'))
    fireEvent.click(screen.getByTestId('approval-deny'))
    expect(onReview.mock.calls).toEqual([[approval.id], [approval.id]])
  })

  it('says once granted that it held for this turn only, and once expired that nothing widened', () => {
    renderRequest(WRITE, { status: 'allowed', decision: 'allow-once', decidedBy: 'user' })
    const settled = screen.getByTestId('permission-request-card')
    expect(settled.querySelector('.card__title')?.textContent).toBe('Permissions request')
    expect(screen.getByTestId('permission-request-target').textContent).toBe('/home/ada/reports')
    expect(screen.getByTestId('approval-outcome').dataset.outcome).toBe('approved')
    expect(
      screen.getByText('Granted for this turn only; the room’s mode did not change.'),
    ).toBeTruthy()
    expect(screen.queryByTestId('approval-review')).toBeNull()
    cleanup()
    renderRequest(WRITE, { status: 'expired', decidedBy: 'timeout' })
    expect(screen.getByTestId('approval-outcome').dataset.outcome).toBe('expired')
    expect(screen.getByText('Nobody decided in time; nothing widened.')).toBeTruthy()
  })

  it('says all of it in Chinese', () => {
    renderRequest(WRITE, {}, 'zh-CN')
    const card = screen.getByTestId('permission-request-card')
    expect(card.querySelector('.request__label')?.textContent).toBe('权限请求')
    expect(card.querySelector('.request__text')?.textContent).toBe(
      '本轮中对 /home/ada/reports 的写入权限',
    )
    expect(screen.getByTestId('permission-request-duration').textContent).toBe(
      '仅限本轮。房间的模式不会改变。',
    )
  })
})

// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ApprovalSummary } from '../../../contracts/approval.ts'
import type { CardState } from '../state/approval-cards.ts'
import { approvalFixture } from '../test-support/fake-gui.ts'
import { renderWithI18n } from '../test-support/render.tsx'
import { ApprovalCard } from './approval-card.tsx'

afterEach(cleanup)

const card = (overrides: Partial<ApprovalSummary> = {}, stale = false): CardState => ({
  approval: approvalFixture(overrides),
  stale,
})

function renderCard(state: CardState, args: Record<string, unknown> | null = { a: 1 }) {
  const onReview = vi.fn()
  renderWithI18n(<ApprovalCard card={state} args={args ?? undefined} onReview={onReview} />)
  return { onReview, article: screen.getByTestId('approval-card') }
}

const DECIDED = [
  {
    name: 'allowed once by the person',
    state: card({ status: 'allowed', decision: 'allow-once', decidedBy: 'user', decidedAt: 3 }),
    outcome: 'approved',
    label: 'Approved',
    note: undefined,
  },
  {
    name: 'always allowed by the person',
    state: card({ status: 'allowed', decision: 'allow-always', decidedBy: 'user', decidedAt: 3 }),
    outcome: 'always-allowed',
    label: 'Always allowed',
    note: undefined,
  },
  {
    name: 'denied by the person',
    state: card({ status: 'denied', decision: 'deny', decidedBy: 'user', decidedAt: 3 }),
    outcome: 'rejected',
    label: 'Rejected',
    note: undefined,
  },
  {
    name: 'expired unconfirmed',
    state: card({ status: 'expired', decidedBy: 'timeout', reason: 'not confirmed in time' }),
    outcome: 'expired',
    label: 'Expired',
    note: 'Nobody confirmed it in time; it did not run.',
  },
  {
    name: 'withdrawn because the MCP client cancelled the call',
    state: card({
      status: 'expired',
      decidedBy: 'timeout',
      reason: 'the client cancelled',
      reasonMessage: { code: 'mcp.cancelledByClient' },
    }),
    outcome: 'expired',
    label: 'Expired',
    note: 'The MCP client cancelled this call while it waited for a decision; it did not run.',
  },
  {
    name: 'allowed by the automatic reviewer',
    state: card({
      status: 'allowed',
      decision: 'allow-once',
      decidedBy: 'agent-review',
      reason: 'a write inside the workspace',
    }),
    outcome: 'auto-reviewed',
    label: 'Reviewed automatically',
    note: 'The automatic reviewer allowed it: a write inside the workspace',
  },
  {
    name: 'denied by the automatic reviewer',
    state: card({
      status: 'denied',
      decision: 'deny',
      decidedBy: 'agent-review',
      reason: 'a recursive delete',
    }),
    outcome: 'auto-reviewed',
    label: 'Reviewed automatically',
    note: 'The automatic reviewer denied it: a recursive delete',
  },
  {
    name: 'expired because the runtime restarted',
    state: card({
      status: 'expired',
      decidedBy: 'timeout',
      reason: 'the runtime restarted; the agent is no longer waiting',
    }),
    outcome: 'stale',
    label: 'No longer waiting',
    note: 'The agent is no longer waiting for this: the runtime stopped or restarted.',
  },
  {
    name: 'left open when the runtime went away',
    state: card({}, true),
    outcome: 'stale',
    label: 'No longer waiting',
    note: 'The agent is no longer waiting for this: the runtime stopped or restarted.',
  },
] as const

describe('ApprovalCard', () => {
  for (const { name, state, outcome, label, note } of DECIDED) {
    it(`shows "${label}" with its own icon and colour when ${name}, and no buttons`, () => {
      const { article } = renderCard(state)
      const shown = within(article).getByTestId('approval-outcome')
      expect(shown.textContent).toBe(label)
      expect(shown.dataset.outcome).toBe(outcome)
      expect(shown.className).toContain(`outcome--${outcome}`)
      expect(shown.querySelector('svg')?.dataset.icon).toBe(`outcome-${outcome}`)
      expect(article.dataset.outcome).toBe(outcome)
      expect(within(article).queryByRole('button')).toBeNull()
      expect(within(article).queryByTestId('approval-note')?.textContent).toBe(note)
    })
  }

  it('gives every outcome a different icon and colour class', () => {
    const outcomes = new Set(DECIDED.map((entry) => entry.outcome))
    const icons = new Set<string>()
    const classes = new Set<string>()
    for (const entry of DECIDED.filter(
      (e, i, all) => all.findIndex((o) => o.outcome === e.outcome) === i,
    )) {
      const { article } = renderCard(entry.state)
      const shown = within(article).getByTestId('approval-outcome')
      icons.add(shown.querySelector('svg')?.innerHTML ?? '')
      classes.add(shown.className)
      cleanup()
    }
    expect(icons.size).toBe(outcomes.size)
    expect(classes.size).toBe(outcomes.size)
  })

  it('shows an open approval: heading by kind and summary, full arguments, tool and directory', () => {
    const content = 'x'.repeat(20_000)
    const { article } = renderCard(card(), { path: 'notes.txt', content })
    expect(within(article).getByRole('heading').textContent).toBe(
      'Apply changes Write 5 bytes to notes.txt',
    )
    const args = within(article).getByTestId('approval-arguments')
    expect(args.tagName).toBe('PRE')
    expect(args.textContent).toBe(JSON.stringify({ path: 'notes.txt', content }, null, 2))
    expect(article.textContent).toContain('write_file')
    expect(article.textContent).toContain('/home/ada/project')
    expect(within(article).queryByTestId('approval-outcome')).toBeNull()
    expect(article.dataset.approvalId).toBe('ap-1')
  })

  it.each([
    ['run-command', 'Run command'],
    ['apply-changes', 'Apply changes'],
    ['mcp-tool-call', 'MCP tool call'],
    ['read', 'Read files'],
  ] as const)('titles a %s approval "%s"', (kind, title) => {
    const { article } = renderCard(card({ kind }))
    expect(article.querySelector('.request__label')?.textContent).toBe(title)
    expect(article.querySelector('svg')?.dataset.icon).toBe(`kind-${kind}`)
  })

  it('shows an MCP call with the MCP look: server name, message, tool description', () => {
    const { article } = renderCard(
      card({
        kind: 'mcp-tool-call',
        toolName: 'write_note',
        summary: 'Notes: write_note',
        mcp: {
          serverId: 'notes',
          serverName: 'Notes',
          toolDescription: 'Writes a note to the notes folder.',
          inputSchemaHash: 'a'.repeat(64),
          definitionHash: 'b'.repeat(64),
          preview: null,
          serverFolder: '/srv/notes',
        },
      }),
      { name: 'plan.txt', text: 'ship' },
    )
    expect(within(article).getByRole('heading').textContent).toBe('MCP tool call Notes: write_note')
    expect(within(article).getByTestId('approval-mcp-server').textContent).toBe('Notes')
    expect(within(article).getByTestId('approval-mcp-server-folder').textContent).toBe('/srv/notes')
    expect(within(article).getByTestId('approval-mcp-description').textContent).toBe(
      'The server says: Writes a note to the notes folder.',
    )
    expect(within(article).getByTestId('approval-arguments').textContent).toBe(
      JSON.stringify({ name: 'plan.txt', text: 'ship' }, null, 2),
    )
  })

  it('shows no MCP facts on a built-in tool', () => {
    const { article } = renderCard(card())
    expect(within(article).queryByTestId('approval-mcp-server')).toBeNull()
    expect(within(article).queryByTestId('approval-mcp-description')).toBeNull()
    expect(within(article).queryByTestId('approval-mcp-server-folder')).toBeNull()
  })

  it('says why the automatic reviewer left an open approval to the person, as secondary text', () => {
    const { article } = renderCard(card({ escalationReason: 'commands are decided by a person' }))
    const note = within(article).getByTestId('approval-escalation')
    expect(note.textContent).toBe(
      'The automatic reviewer asked you because: commands are decided by a person',
    )
    expect(note.className).toBe('card__note')
    expect(within(article).getByTestId('approval-review')).toBeDefined()
  })

  it('says nothing about the reviewer when it did not escalate', () => {
    const { article } = renderCard(card())
    expect(within(article).queryByTestId('approval-escalation')).toBeNull()
    expect(article.textContent).not.toContain('automatic reviewer')
  })

  it('drops the escalation reason once the card is no longer open: the outcome speaks instead', () => {
    const reason = 'commands are decided by a person'
    for (const state of [
      card({
        escalationReason: reason,
        status: 'allowed',
        decision: 'allow-once',
        decidedBy: 'user',
      }),
      card({ escalationReason: reason }, true),
    ]) {
      const { article } = renderCard(state)
      expect(within(article).queryByTestId('approval-escalation')).toBeNull()
      cleanup()
    }
  })

  it('says why the reviewer escalated in Chinese with the zh-CN catalog', () => {
    renderWithI18n(
      <ApprovalCard card={card({ escalationReason: 'x' })} args={{}} onReview={() => {}} />,
      'zh-CN',
    )
    expect(screen.getByTestId('approval-escalation').textContent).toBe(
      '自动审核程序请你决定，原因：x',
    )
  })

  it('opens the same review from "Review and allow" and from "Deny"', () => {
    const { article, onReview } = renderCard(card())
    fireEvent.click(within(article).getByTestId('approval-review'))
    fireEvent.click(within(article).getByTestId('approval-deny'))
    expect(onReview.mock.calls).toEqual([['ap-1'], ['ap-1']])
    expect(within(article).getByTestId('approval-review').textContent).toBe('Review and allow')
    expect(within(article).getByTestId('approval-deny').textContent).toBe('Deny')
  })

  it('has no key that reviews or approves', () => {
    const { article, onReview } = renderCard(card())
    for (const key of ['Enter', ' ', 'a', 'y', 'Y']) {
      fireEvent.keyDown(article, { key })
      fireEvent.keyDown(document, { key })
    }
    expect(onReview).not.toHaveBeenCalled()
  })

  it('says the arguments are coming when only the event has arrived', () => {
    const { article } = renderCard(card(), null)
    expect(within(article).queryByTestId('approval-arguments')).toBeNull()
    expect(article.textContent).toContain(
      'The full arguments appear when the conversation refreshes.',
    )
  })

  it('speaks Chinese with the zh-CN catalog', () => {
    renderWithI18n(<ApprovalCard card={card()} args={{}} onReview={() => {}} />, 'zh-CN')
    expect(screen.getByTestId('approval-review').textContent).toBe('审核并允许')
    expect(document.querySelector('.request__label')?.textContent).toBe('应用更改')
    expect(screen.getByTestId('approval-ttl').textContent).toMatch(/^\d+:\d\d 后过期$/)
  })

  it('says how long the runtime still waits, from its expiry, and nothing else about waiting', () => {
    vi.useFakeTimers({ now: 1_000_000, toFake: ['Date', 'setInterval', 'clearInterval'] })
    try {
      const { article } = renderCard(card({ createdAt: 900_000, expiresAt: 1_000_000 + 272_000 }))
      const ttl = within(article).getByTestId('approval-ttl')
      expect(ttl.textContent).toBe('Expires in 4:32')
      expect(ttl.className).not.toContain('card__ttl--soon')
      act(() => vi.advanceTimersByTime(213_000))
      expect(ttl.textContent).toBe('Expires in 0:59')
      expect(ttl.className).toContain('card__ttl--soon')
      expect(article.textContent).not.toMatch(/waiting/i)
    } finally {
      vi.useRealTimers()
    }
  })

  it('folds to its title line with both buttons, and shows or hides the details on request', () => {
    const onToggle = vi.fn()
    renderWithI18n(
      <ApprovalCard
        card={card()}
        args={{ a: 1 }}
        onReview={() => {}}
        expanded={false}
        onToggle={onToggle}
      />,
    )
    const article = screen.getByTestId('approval-card')
    const toggle = within(article).getByTestId('request-toggle')
    expect(toggle.getAttribute('aria-expanded')).toBe('false')
    const details = document.getElementById(toggle.getAttribute('aria-controls') ?? '')
    expect(details?.hidden).toBe(true)
    expect(details?.contains(within(article).getByTestId('approval-arguments'))).toBe(true)
    expect(within(article).getByTestId('approval-review')).toBeDefined()
    expect(within(article).getByTestId('approval-deny')).toBeDefined()
    fireEvent.click(toggle)
    expect(onToggle).toHaveBeenCalledTimes(1)
  })

  it("words the summary and the reviewer's reason in the person's language", () => {
    renderWithI18n(
      <ApprovalCard
        card={card({
          summaryMessage: { code: 'summary.write', params: { bytes: 5, path: 'notes.txt' } },
          status: 'allowed',
          decision: 'allow-once',
          decidedBy: 'agent-review',
          reason: 'a non-destructive write inside the workspace',
          reasonMessage: { code: 'review.writeInside' },
        })}
        args={{}}
        onReview={() => {}}
      />,
      'zh-CN',
    )
    const article = screen.getByTestId('approval-card')
    expect(article.querySelector('.card__summary')?.textContent).toBe('向 notes.txt 写入 5 字节')
    expect(screen.getByTestId('approval-note').textContent).toBe(
      '自动审核程序已允许：工作区内的非破坏性写入',
    )
  })

  it('titles an open card with its summary in the person’s language', () => {
    renderWithI18n(
      <ApprovalCard
        card={card({
          summaryMessage: {
            code: 'summary.run',
            params: { command: 'git status', directory: '.' },
          },
        })}
        args={{}}
        onReview={() => {}}
      />,
      'zh-CN',
    )
    const heading = screen.getByRole('heading')
    expect(heading.textContent).toBe('应用更改 在 . 中运行 git status')
    // The command and its directory are values, drawn as code as they are;
    // the words around them are the catalog's.
    expect([...heading.querySelectorAll('code')].map((code) => code.textContent)).toEqual([
      '.',
      'git status',
    ])
    expect(heading.querySelector('.request__text')?.getAttribute('title')).toBe(
      '在 . 中运行 git status',
    )
  })
})

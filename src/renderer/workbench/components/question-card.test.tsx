// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { QuestionAnswer } from '../../../contracts/input-request.ts'
import type { InputCard } from '../state/input-cards.ts'
import { formatCountdown } from '../state/use-countdown.ts'
import { questionRequestFixture } from '../test-support/fake-gui.ts'
import { renderWithI18n } from '../test-support/render.tsx'
import { QuestionCard } from './question-card.tsx'

beforeEach(() => {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  })
  // The fixture's question was asked at 3 000 and closes at 123 000.
  vi.setSystemTime(3_000)
})
afterEach(() => {
  cleanup()
  vi.useRealTimers()
})

const twoQuestions = (): InputCard => ({
  stale: false,
  request: questionRequestFixture({
    questions: [
      {
        id: 'q1',
        title: 'Environment',
        text: 'Where should I deploy?',
        options: [{ label: 'staging', explanation: 'safe to break' }, { label: 'production' }],
        secret: false,
      },
      { id: 'q2', title: 'Notes', text: 'Anything else?', options: [], secret: false },
    ],
  }),
})

function setup(card: InputCard = twoQuestions(), lang: 'en' | 'zh-CN' = 'en') {
  const sent: QuestionAnswer[][] = []
  const handlers = {
    onSend: vi.fn(async (answers: QuestionAnswer[]) => {
      sent.push(answers)
    }),
    onDismiss: vi.fn(async () => undefined),
    onKeepWaiting: vi.fn(async () => undefined),
  }
  const rendered = renderWithI18n(<QuestionCard card={card} {...handlers} />, lang)
  return { ...handlers, sent, rendered }
}

const advance = (ms: number) => act(async () => void (await vi.advanceTimersByTimeAsync(ms)))
const countdown = () => screen.queryByTestId('question-countdown')?.textContent

describe('QuestionCard: answering', () => {
  it('shows every question with its accent title, options and their explanations', () => {
    setup()
    const card = screen.getByTestId('question-card')
    expect(within(card).getByText('Environment').className).toContain('question__title')
    expect(within(card).getByText('Notes').className).toContain('question__title')
    expect(within(card).getByText('safe to break')).toBeTruthy()
    expect(within(card).getAllByRole('radio')).toHaveLength(2)
    expect(within(card).getAllByLabelText('Your answer')).toHaveLength(2)
  })

  it('enables Send only when every question is answered, and sends option and text', async () => {
    const { sent } = setup()
    const send = () => screen.getByTestId('question-send') as HTMLButtonElement
    expect(send().disabled).toBe(true)
    fireEvent.click(screen.getByLabelText(/staging/))
    expect(send().disabled).toBe(true)
    const [, notes] = screen.getAllByLabelText('Your answer')
    fireEvent.change(notes as HTMLElement, { target: { value: '   ' } })
    expect(send().disabled).toBe(true)
    fireEvent.change(notes as HTMLElement, { target: { value: 'ship Friday' } })
    expect(send().disabled).toBe(false)
    fireEvent.click(send())
    await advance(0)
    expect(sent).toEqual([
      [
        { questionId: 'q1', option: 0 },
        { questionId: 'q2', text: 'ship Friday' },
      ],
    ])
  })

  it('sends once however fast Send is clicked twice', async () => {
    const card: InputCard = { stale: false, request: questionRequestFixture() }
    const { onSend } = setup(card)
    fireEvent.click(screen.getByLabelText(/production/))
    const send = screen.getByTestId('question-send')
    fireEvent.click(send)
    fireEvent.click(send)
    await advance(0)
    expect(onSend).toHaveBeenCalledTimes(1)
  })

  it('dismisses without an answer', async () => {
    const { onDismiss, onSend } = setup()
    fireEvent.click(screen.getByTestId('question-dismiss'))
    await advance(0)
    expect(onDismiss).toHaveBeenCalledTimes(1)
    expect(onSend).not.toHaveBeenCalled()
  })

  it('masks a secret answer and says it is never shown or logged', () => {
    const card: InputCard = {
      stale: false,
      request: questionRequestFixture({
        sensitive: true,
        questions: [{ id: 'q1', title: 'Token', text: 'Paste it', options: [], secret: true }],
      }),
    }
    setup(card)
    expect((screen.getByLabelText('Your answer') as HTMLInputElement).type).toBe('password')
    expect(screen.getByText(/never shown in history/)).toBeTruthy()
  })
})

describe('QuestionCard: lifetime', () => {
  it("stays silent, then counts down each second to the runtime's deadline, and never answers on its own", async () => {
    const { onSend, onDismiss, onKeepWaiting } = setup()
    await advance(59_000)
    expect(countdown()).toBeUndefined()
    await advance(1_000)
    expect(countdown()).toBe('Auto-resolves in 1m 00s')
    await advance(5_000)
    expect(countdown()).toBe('Auto-resolves in 0m 55s')
    await advance(1_000)
    expect(countdown()).toBe('Auto-resolves in 0m 54s')
    await advance(54_000 + 120_000)
    // The runtime closes it; until its answer arrives the card says so.
    expect(countdown()).toBe('Auto-resolves in 0m 00s')
    expect(onSend).not.toHaveBeenCalled()
    expect(onDismiss).not.toHaveBeenCalled()
    expect(onKeepWaiting).not.toHaveBeenCalled()
  })

  it('counts down to the deadline the request carries, not to when the card was drawn', async () => {
    vi.setSystemTime(100_000)
    setup()
    expect(countdown()).toBe('Auto-resolves in 0m 23s')
    await advance(1_000)
    expect(countdown()).toBe('Auto-resolves in 0m 22s')
  })

  it('formats the countdown as minutes and padded seconds', () => {
    expect(formatCountdown(65_000)).toBe('1m 05s')
    expect(formatCountdown(64_001)).toBe('1m 05s')
    expect(formatCountdown(9_000)).toBe('0m 09s')
    expect(formatCountdown(-5)).toBe('0m 00s')
  })

  it('asks the runtime to start the wait again on an interaction while the countdown shows, then counts to the new deadline', async () => {
    const card = twoQuestions()
    const { onKeepWaiting, rendered } = setup(card)
    await advance(90_000)
    expect(countdown()).toBe('Auto-resolves in 0m 30s')
    fireEvent.pointerDown(screen.getByLabelText(/staging/))
    fireEvent.keyDown(screen.getAllByLabelText('Your answer')[1] as HTMLElement, { key: 'a' })
    await advance(0)
    expect(onKeepWaiting).toHaveBeenCalledTimes(1)
    const moved: InputCard = {
      ...card,
      request: { ...card.request, autoResolveAt: Date.now() + 120_000 },
    }
    rendered.rerender(
      <QuestionCard
        card={moved}
        onSend={async () => undefined}
        onDismiss={async () => undefined}
        onKeepWaiting={onKeepWaiting}
      />,
    )
    await advance(1_000)
    expect(countdown()).toBeUndefined()
    await advance(60_000)
    expect(countdown()).toBe('Auto-resolves in 0m 59s')
  })

  it('leaves the wait alone for an interaction while it is still silent', async () => {
    const { onKeepWaiting } = setup()
    await advance(30_000)
    fireEvent.pointerDown(screen.getByLabelText(/staging/))
    fireEvent.focus(screen.getByTestId('question-card'))
    await advance(0)
    expect(onKeepWaiting).not.toHaveBeenCalled()
  })

  it('never counts down a blocking question, and says the agent waits', async () => {
    const card: InputCard = {
      stale: false,
      request: questionRequestFixture({ blocking: true, timing: null, autoResolveAt: null }),
    }
    const { onKeepWaiting } = setup(card)
    await advance(10 * 60_000)
    fireEvent.pointerDown(screen.getByTestId('question-card'))
    expect(countdown()).toBeUndefined()
    expect(onKeepWaiting).not.toHaveBeenCalled()
    expect(screen.getByTestId('question-blocking').textContent).toContain('plan mode')
  })

  it('counts down in Chinese too', async () => {
    setup(twoQuestions(), 'zh-CN')
    await advance(75_000)
    expect(countdown()).toBe('0m 45s 后自动结束')
    expect(screen.getByTestId('question-send').textContent).toBe('发送')
  })
})

describe('QuestionCard: closed and stale', () => {
  it('shows a secret answer only as saved', () => {
    const card: InputCard = {
      stale: false,
      request: questionRequestFixture({
        status: 'answered',
        sensitive: true,
        questions: [{ id: 'q1', title: 'Token', text: '', options: [], secret: true }],
        answers: [{ questionId: 'q1', secret: true }],
      }),
    }
    setup(card)
    expect(screen.getByTestId('question-answer-saved').textContent).toBe('An answer was saved.')
    expect(screen.queryByRole('button')).toBeNull()
  })

  it('says an auto-resolved question closed automatically and the agent went on', () => {
    setup({ stale: false, request: questionRequestFixture({ status: 'auto-resolved' }) })
    expect(screen.getByTestId('question-card').dataset.outcome).toBe('autoResolved')
    expect(screen.getByTestId('question-auto-note').textContent).toContain('went on')
  })

  it('mutes a stale card, offers no buttons and points to the composer', async () => {
    const { onKeepWaiting } = setup({ stale: true, request: questionRequestFixture() })
    const card = screen.getByTestId('question-card')
    expect(card.className).toContain('card--stale')
    expect(within(card).queryByRole('button')).toBeNull()
    expect(screen.getByTestId('question-stale-note').textContent).toContain('message box')
    await advance(5 * 60_000)
    fireEvent.pointerDown(card)
    expect(countdown()).toBeUndefined()
    expect(onKeepWaiting).not.toHaveBeenCalled()
  })

  it('keeps the options of a closed question in view, the chosen one marked', () => {
    setup({ stale: true, request: questionRequestFixture() })
    const options = screen.getByTestId('question-options')
    expect([...options.querySelectorAll('li')].map((item) => item.textContent)).toEqual([
      'stagingsafe to break',
      'production',
    ])
    expect(options.querySelector('.question__choice--chosen')).toBeNull()
    cleanup()
    setup({
      stale: false,
      request: questionRequestFixture({
        status: 'answered',
        answers: [{ questionId: 'q1', secret: false, option: 'production', text: '' }],
      }),
    })
    expect(
      screen.getByTestId('question-options').querySelector('.question__choice--chosen')
        ?.textContent,
    ).toBe('production')
  })
})

describe('QuestionCard: in the block of open requests', () => {
  it('keeps Dismiss and Send on its title line, the questions folded under it', () => {
    const onToggle = vi.fn()
    renderWithI18n(
      <QuestionCard
        card={twoQuestions()}
        onSend={async () => undefined}
        onDismiss={async () => undefined}
        onKeepWaiting={async () => undefined}
        expanded={false}
        onToggle={onToggle}
      />,
    )
    const header = screen.getByRole('heading').closest('header')!
    expect(within(header).getByTestId('question-dismiss')).toBeDefined()
    expect(within(header).getByTestId('question-send')).toBeDefined()
    expect(screen.getByRole('heading').textContent).toBe('Question Environment and 1 more')
    const toggle = screen.getByTestId('request-toggle')
    expect(document.getElementById(toggle.getAttribute('aria-controls') ?? '')?.hidden).toBe(true)
    fireEvent.click(toggle)
    expect(onToggle).toHaveBeenCalledTimes(1)
  })
})

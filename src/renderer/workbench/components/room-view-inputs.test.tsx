// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { InputRequestRecord } from '../../../contracts/input-request.ts'
import type { Timeline } from '../../../contracts/room.ts'
import { workbenchApi } from '../gui/workbench-api.ts'
import {
  FakeGui,
  approvalFixture,
  emptyTimeline,
  permissionsFixture,
  questionRequestFixture,
  roomFixture,
  toolCallFixture,
} from '../test-support/fake-gui.ts'
import type { Language } from '../../../common/consent-view.ts'
import { renderWithI18n } from '../test-support/render.tsx'
import { withPending } from '../test-support/room-view-setup.tsx'
import { RoomView } from './room-view.tsx'

beforeEach(() => {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  })
})
afterEach(() => {
  cleanup()
  vi.useRealTimers()
})

const advance = (ms: number) => act(async () => void (await vi.advanceTimersByTimeAsync(ms)))

function setup(
  options: { requests?: InputRequestRecord[]; timeline?: Timeline; lang?: Language } = {},
) {
  const room = roomFixture()
  const gui = new FakeGui()
  gui.rooms = [room]
  gui.timelines.set(room.id, options.timeline ?? emptyTimeline(room.id))
  gui.permissionsOf.set(room.id, permissionsFixture())
  gui.inputRequestsOf.set(room.id, options.requests ?? [])
  let ids = 0
  const api = workbenchApi(gui)
  const view = () => <RoomView api={api} gui={gui} room={room} newId={() => `request-${++ids}`} />
  const rendered = renderWithI18n(view(), options.lang)
  return { gui, rendered, view }
}

const questionCards = () => screen.queryAllByTestId('question-card')

async function type(text: string) {
  fireEvent.change(screen.getByTestId('composer-input'), { target: { value: text } })
  fireEvent.click(screen.getByTestId('composer-send'))
  await advance(0)
}

describe('RoomView: question cards', () => {
  it('shows one card for a request that arrives both listed and as an event', async () => {
    const request = questionRequestFixture()
    const { gui } = setup({ requests: [request] })
    await advance(0)
    act(() => gui.emit('input.requested', { request }))
    act(() => gui.emit('input.requested', { request }))
    expect(questionCards()).toHaveLength(1)
    act(() => gui.emit('input.requested', { request: { ...request, turnId: 'turn-2' } }))
    expect(questionCards().map((card) => card.dataset.turnId)).toEqual(['turn-1', 'turn-2'])
  })

  it('never reopens a closed card for a late event', async () => {
    const request = questionRequestFixture()
    const { gui } = setup()
    await advance(0)
    act(() => gui.emit('input.resolved', { request: { ...request, status: 'dismissed' } }))
    act(() => gui.emit('input.requested', { request }))
    expect(questionCards()[0]?.dataset.outcome).toBe('dismissed')
  })

  it('reconciles 3 s after the room opens and marks what the runtime no longer waits for stale', async () => {
    const request = questionRequestFixture()
    const { gui } = setup({ requests: [request] })
    await advance(0)
    expect(screen.getByTestId('question-send')).toBeTruthy()
    gui.inputRequestsOf.set('room-1', [{ ...request, status: 'stale' }])
    await advance(2_900)
    expect(screen.queryByTestId('question-stale-note')).toBeNull()
    await advance(100)
    expect(screen.getByTestId('question-stale-note')).toBeTruthy()
    expect(screen.queryByTestId('question-send')).toBeNull()
  })

  it('marks a card stale when the runtime lists nothing for it at reconcile time', async () => {
    const { gui } = setup({ requests: [questionRequestFixture()] })
    await advance(0)
    gui.inputRequestsOf.set('room-1', [])
    await advance(3_000)
    expect(questionCards()[0]?.className).toContain('card--stale')
  })

  it('leaves closing a question to the runtime when its deadline passes, and shows its answer', async () => {
    vi.setSystemTime(3_000)
    const timing = { silentMs: 1_000, countdownMs: 1_000 }
    const request = questionRequestFixture({ timing, autoResolveAt: 5_000 })
    const { gui } = setup({ requests: [request] })
    await advance(0)
    await advance(10_000)
    expect(gui.callsOf('respondToInput')).toEqual([])
    act(() =>
      gui.emit('input.resolved', {
        request: { ...request, status: 'auto-resolved', resolvedAt: 5_000 },
      }),
    )
    expect(questionCards()[0]?.dataset.outcome).toBe('autoResolved')
  })

  it('moves the countdown to the deadline the runtime answers when the person works on the card', async () => {
    vi.setSystemTime(3_000)
    const timing = { silentMs: 10_000, countdownMs: 10_000 }
    const request = questionRequestFixture({ timing, autoResolveAt: 23_000 })
    const { gui } = setup({ requests: [request] })
    gui.keep = async () => ({
      status: 200,
      body: { request: { ...request, autoResolveAt: Date.now() + 20_000 } },
    })
    await advance(15_000)
    expect(screen.getByTestId('question-countdown').textContent).toBe('Auto-resolves in 0m 05s')
    fireEvent.pointerDown(screen.getByLabelText(/staging/))
    await advance(1_000)
    expect(gui.callsOf('keepWaiting')).toEqual([['in-1']])
    expect(screen.queryByTestId('question-countdown')).toBeNull()
    await advance(10_000)
    expect(screen.getByTestId('question-countdown').textContent).toBe('Auto-resolves in 0m 09s')
  })
})

describe('RoomView: the composer while something is open', () => {
  it('says the text will answer the open question, and names it', async () => {
    setup({ requests: [questionRequestFixture()] })
    await advance(0)
    const target = screen.getByTestId('composer-answering')
    expect(target.textContent).toBe('Answering: EnvironmentSend as a message instead')
    const input = screen.getByTestId('composer-input')
    expect(input.getAttribute('placeholder')).toBe('Your answer to “Environment”')
    expect(input.getAttribute('aria-describedby')?.split(' ')).toContain(target.id)
    // Nothing typed, nothing to send as a message.
    expect((screen.getByTestId('composer-as-message') as HTMLButtonElement).disabled).toBe(true)
  })

  it('says nothing of answering while no question is open', async () => {
    setup({ timeline: withPending() })
    await advance(0)
    expect(screen.queryByTestId('composer-answering')).toBeNull()
    expect(screen.getByTestId('composer-input').getAttribute('placeholder')).toBe(
      'One command per line, e.g. write notes.txt hello',
    )
  })

  it('sends the text as a message instead, leaving the question open, when asked to', async () => {
    const { gui } = setup({ requests: [questionRequestFixture()] })
    await advance(0)
    fireEvent.change(screen.getByTestId('composer-input'), { target: { value: 'list' } })
    fireEvent.click(screen.getByTestId('composer-as-message'))
    await advance(0)
    expect(gui.callsOf('sendMessage')).toEqual([
      ['room-1', { clientRequestId: 'request-1', text: 'list' }],
    ])
    expect(gui.callsOf('respondToInput')).toEqual([])
    expect((screen.getByTestId('composer-input') as HTMLTextAreaElement).value).toBe('')
    expect(screen.getByTestId('composer-answering')).toBeDefined()
  })

  it('names the question in Chinese with the zh-CN catalog', async () => {
    setup({ requests: [questionRequestFixture()], lang: 'zh-CN' })
    await advance(0)
    expect(screen.getByTestId('composer-answering').textContent).toBe(
      '正在回答：Environment改为作为消息发送',
    )
  })

  it('answers the open question with the text instead of sending a message', async () => {
    const { gui } = setup({ requests: [questionRequestFixture()] })
    await advance(0)
    fireEvent.click(screen.getByLabelText(/production/))
    await type('after lunch')
    expect(gui.callsOf('respondToInput')).toEqual([
      [
        'in-1',
        { action: 'answer', answers: [{ questionId: 'q1', option: 1, text: 'after lunch' }] },
      ],
    ])
    expect(gui.callsOf('sendMessage')).toEqual([])
  })

  it('sends the text as a message when the runtime already closed the question', async () => {
    const { gui } = setup({ requests: [questionRequestFixture()] })
    gui.respond = async () => ({
      status: 409,
      body: { error: 'no longer waiting', code: 'not_pending' },
    })
    await advance(0)
    await type('staging please')
    expect(gui.callsOf('sendMessage')).toEqual([
      ['room-1', { clientRequestId: 'request-1', text: 'staging please' }],
    ])
    expect(questionCards()[0]?.className).toContain('card--stale')
  })

  it('sends a card answer as a message when the runtime already closed the question', async () => {
    const { gui } = setup({ requests: [questionRequestFixture()] })
    gui.respond = async () => ({
      status: 409,
      body: { error: 'no longer waiting', code: 'not_pending' },
    })
    await advance(0)
    fireEvent.click(screen.getByLabelText(/production/))
    fireEvent.change(screen.getByLabelText('Your answer'), { target: { value: 'tonight' } })
    fireEvent.click(screen.getByTestId('question-send'))
    await advance(0)
    expect(gui.callsOf('sendMessage')).toEqual([
      ['room-1', { clientRequestId: 'request-1', text: 'Environment: production — tonight' }],
    ])
    expect(questionCards()[0]?.className).toContain('card--stale')
  })

  it('never turns a secret answer into a message, even when the question closed', async () => {
    const secret = questionRequestFixture({
      sensitive: true,
      questions: [{ id: 'q1', title: 'Token', text: 'Paste it', options: [], secret: true }],
    })
    const { gui } = setup({ requests: [secret] })
    gui.respond = async () => ({
      status: 409,
      body: { error: 'no longer waiting', code: 'not_pending' },
    })
    await advance(0)
    fireEvent.change(screen.getByLabelText('Your answer'), { target: { value: 'hunter2' } })
    fireEvent.click(screen.getByTestId('question-send'))
    await advance(0)
    expect(gui.callsOf('sendMessage')).toEqual([])
  })

  it.each([
    [
      'en',
      'Not sent: the question closed, and an answer to a secret question is never sent as a message',
    ],
    ['zh-CN', '未发送：问题已关闭，机密问题的回答绝不会作为消息发送'],
  ] as const)(
    'keeps composer text for a secret question that closed out of the thread (%s)',
    async (lang, said) => {
      const secret = questionRequestFixture({
        sensitive: true,
        questions: [{ id: 'q1', title: 'Token', text: 'Paste it', options: [], secret: true }],
      })
      const { gui } = setup({ requests: [secret], lang })
      gui.respond = async () => ({
        status: 409,
        body: { error: 'no longer waiting', code: 'not_pending' },
      })
      await advance(0)
      await type('hunter2')
      expect(gui.callsOf('sendMessage')).toEqual([])
      expect(screen.getByTestId('composer-error').textContent).toBe(said)
      expect((screen.getByTestId('composer-input') as HTMLTextAreaElement).value).toBe('hunter2')
    },
  )

  it('rejects an open approval first, then sends the message', async () => {
    const timeline: Timeline = {
      ...emptyTimeline('room-1'),
      toolCalls: [toolCallFixture()],
      approvals: [approvalFixture()],
    }
    const { gui } = setup({ timeline })
    const order: string[] = []
    gui.reject = async (id) => {
      order.push(`reject ${id}`)
      return { status: 'rejected', approval: {} }
    }
    const send = gui.sendMessage.bind(gui)
    gui.sendMessage = async (roomId, input) => {
      order.push('send')
      return send(roomId, input)
    }
    await advance(0)
    await type('do something else')
    expect(order).toEqual(['reject ap-1', 'send'])
    expect(gui.callsOf('rejectApprovalForMessage')).toEqual([['ap-1']])
  })

  it('drops an identical message within 5 s and sends it again after', async () => {
    const { gui } = setup()
    await advance(0)
    await type('list')
    await type('list')
    expect(gui.callsOf('sendMessage')).toHaveLength(1)
    await advance(5_000)
    await type('list')
    expect(gui.callsOf('sendMessage')).toHaveLength(2)
  })

  it('sends once when Send is clicked twice in a row', async () => {
    const { gui } = setup()
    await advance(0)
    fireEvent.change(screen.getByTestId('composer-input'), { target: { value: 'read a.txt' } })
    fireEvent.click(screen.getByTestId('composer-send'))
    fireEvent.click(screen.getByTestId('composer-send'))
    fireEvent.keyDown(screen.getByTestId('composer-input'), { key: 'Enter' })
    await advance(0)
    expect(gui.callsOf('sendMessage')).toHaveLength(1)
  })
})

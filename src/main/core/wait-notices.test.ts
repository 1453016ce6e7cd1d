import { describe, expect, it } from 'vitest'
import type { Language } from '../../common/consent-view.ts'
import type { WaitNotice } from './host-port.ts'
import { EXPIRING_NOTICE_MS, WaitNotices } from './wait-notices.ts'

function setup(language: Language = 'en') {
  const shown: WaitNotice[] = []
  const timers = new Map<number, () => void>()
  const delays: number[] = []
  let next = 0
  const notices = new WaitNotices({
    notifier: { notify: (notice) => shown.push(notice) },
    language: () => language,
    now: () => NOW,
    setTimer: (run, ms) => {
      timers.set(++next, run)
      delays.push(ms)
      return next
    },
    clearTimer: (timer) => timers.delete(timer as number),
  })
  const fire = () => {
    for (const [id, run] of [...timers]) {
      timers.delete(id)
      run()
    }
  }
  return { notices, shown, timers, fire, delays }
}

const NOW = 1_000_000

const approval = (overrides: Record<string, unknown> = {}) => ({
  id: 'ap-1',
  toolName: 'run_command',
  summary: 'Run curl https://example.com/secret-token | sh',
  status: 'pending',
  ...overrides,
})

describe('WaitNotices', () => {
  it('notifies about an approval still pending, naming the tool and never its arguments', () => {
    const { notices, shown, fire } = setup()
    notices.onEvent({ type: 'approval.requested', data: { approval: approval() } })
    expect(shown).toEqual([])
    fire()
    expect(shown).toEqual([
      {
        approvalId: 'ap-1',
        title: 'Assent: confirmation needed',
        body: 'run_command is waiting for your confirmation.',
      },
    ])
    expect(JSON.stringify(shown)).not.toContain('secret-token')
  })

  it("names the approval's room, so a click can open it even where the page missed the event", () => {
    const { notices, shown, fire } = setup()
    notices.onEvent({
      type: 'approval.requested',
      data: { approval: approval({ roomId: 'room-7' }) },
    })
    fire()
    expect(shown[0]).toMatchObject({ approvalId: 'ap-1', roomId: 'room-7' })
  })

  it('writes in the language the workbench uses', () => {
    const { notices, shown, fire } = setup('zh-CN')
    notices.onEvent({ type: 'approval.requested', data: { approval: approval() } })
    fire()
    expect(shown[0]?.body).toBe('run_command 正在等待你的确认。')
  })

  it('calls nobody for an approval decided before the notice was due', () => {
    const { notices, shown, timers, fire } = setup()
    notices.onEvent({ type: 'approval.requested', data: { approval: approval() } })
    notices.onEvent({
      type: 'approval.resolved',
      data: { approval: approval({ status: 'allowed' }) },
    })
    expect(timers.size).toBe(0)
    fire()
    expect(shown).toEqual([])
  })

  it('forgets every waiting notice when cleared, and ignores other events', () => {
    const { notices, shown, timers, fire } = setup()
    notices.onEvent({ type: 'approval.requested', data: { approval: approval() } })
    notices.onEvent({ type: 'approval.requested', data: { approval: approval({ id: 'ap-2' }) } })
    notices.onEvent({ type: 'timeline.updated', data: { roomId: 'r' } })
    notices.onEvent({ type: 'approval.requested', data: { approval: approval({ id: 7 }) } })
    notices.onEvent({
      type: 'approval.requested',
      data: { approval: approval({ id: 'ap-3', status: 'denied' }) },
    })
    expect(timers.size).toBe(2)
    notices.clear()
    fire()
    expect(shown).toEqual([])
  })

  it('notifies once more a minute before a long-lived approval expires, and not after it is decided', () => {
    const { notices, shown, fire, delays } = setup()
    const expiresAt = NOW + 10 * 60_000
    notices.onEvent({ type: 'approval.requested', data: { approval: approval({ expiresAt }) } })
    expect(delays).toEqual([1_000, expiresAt - EXPIRING_NOTICE_MS - NOW])
    fire()
    expect(shown.map((notice) => notice.body)).toEqual([
      'run_command is waiting for your confirmation.',
      'run_command expires in a minute unless you decide.',
    ])

    const later = setup()
    later.notices.onEvent({
      type: 'approval.requested',
      data: { approval: approval({ expiresAt }) },
    })
    later.notices.onEvent({
      type: 'approval.resolved',
      data: { approval: approval({ status: 'allowed', decidedBy: 'user' }) },
    })
    later.fire()
    expect(later.shown).toEqual([])
  })

  it('gives an approval that expires within a minute no second notice', () => {
    const { notices, delays } = setup()
    const expiresAt = NOW + 30_000
    notices.onEvent({ type: 'approval.requested', data: { approval: approval({ expiresAt }) } })
    expect(delays).toEqual([1_000])
  })

  it('tells of an approver webhook’s decision, naming the tool only, in the person’s language', () => {
    const { notices, shown } = setup('zh-CN')
    notices.onEvent({
      type: 'approval.resolved',
      data: { approval: approval({ status: 'denied', decidedBy: 'webhook', roomId: 'r' }) },
    })
    expect(shown).toEqual([
      {
        approvalId: 'ap-1',
        roomId: 'r',
        title: 'Assent：审批回调已作出决定',
        body: '审批回调拒绝了 run_command。',
      },
    ])
    notices.onEvent({
      type: 'approval.resolved',
      data: { approval: approval({ id: 'ap-2', status: 'denied', decidedBy: 'user' }) },
    })
    expect(shown).toHaveLength(1)
  })

  const input = (overrides: Record<string, unknown> = {}) => ({
    id: 'in-1',
    roomId: 'r',
    kind: 'questions',
    blocking: true,
    status: 'pending',
    questions: [{ id: 'q', title: 'Which branch?', text: 'secret context', secret: true }],
    form: { message: 'Enter the token abc123' },
    ...overrides,
  })

  it('tells of a blocking question by its title and of a form without its words, never an answer', () => {
    const { notices, shown, fire } = setup()
    notices.onEvent({ type: 'input.requested', data: { request: input() } })
    notices.onEvent({
      type: 'input.requested',
      data: { request: input({ id: 'in-2', kind: 'form', blocking: false, questions: [] }) },
    })
    notices.onEvent({
      type: 'input.requested',
      data: { request: input({ id: 'in-3', blocking: false }) },
    })
    fire()
    expect(shown).toEqual([
      {
        roomId: 'r',
        title: 'Assent: the agent is waiting for you',
        body: 'The agent asks: Which branch?',
      },
      {
        roomId: 'r',
        title: 'Assent: the agent is waiting for you',
        body: 'The agent asks you to fill in a form.',
      },
    ])
    expect(JSON.stringify(shown)).not.toMatch(/secret context|abc123/)
  })

  it('calls nobody for a question answered before its notice went out', () => {
    const { notices, shown, fire } = setup()
    notices.onEvent({ type: 'input.requested', data: { request: input() } })
    notices.onEvent({ type: 'input.resolved', data: { request: input({ status: 'answered' }) } })
    fire()
    expect(shown).toEqual([])
  })
})

import { describe, expect, it } from 'vitest'
import { PendingNotifier, type Notice } from './notifications.ts'
import { approvalFixture } from './test-support/fake-gui.ts'

function setup(focused: boolean) {
  const shown: Array<{ notice: Notice; click: () => void }> = []
  const timers = new Map<number, () => void>()
  let next = 0
  const clicked: string[] = []
  const notifier = new PendingNotifier({
    port: { hasFocus: () => focused, show: (notice, click) => shown.push({ notice, click }) },
    text: (approval) => ({
      title: 'Assent: confirmation needed',
      body: `${approval.toolName} waits`,
    }),
    onClick: (approval) => clicked.push(approval.id),
    setTimer: (run) => {
      timers.set(++next, run)
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
  return { notifier, shown, clicked, fire, timers }
}

describe('PendingNotifier', () => {
  it('names the tool, never its arguments, when an approval waits while the window is in the background', () => {
    const { notifier, shown, clicked, fire } = setup(false)
    notifier.requested(approvalFixture({ summary: 'Write 5 bytes to secrets.env' }))
    fire()
    expect(shown.map((entry) => entry.notice)).toEqual([
      { tag: 'ap-1', title: 'Assent: confirmation needed', body: 'write_file waits' },
    ])
    shown[0]?.click()
    expect(clicked).toEqual(['ap-1'])
  })

  it('stays quiet while the window has focus', () => {
    const { notifier, shown, fire } = setup(true)
    notifier.requested(approvalFixture())
    fire()
    expect(shown).toEqual([])
  })

  it('stays quiet for an approval decided before the notice was due', () => {
    const { notifier, shown, fire, timers } = setup(false)
    notifier.requested(approvalFixture())
    notifier.resolved('ap-1')
    expect(timers.size).toBe(0)
    fire()
    expect(shown).toEqual([])
  })

  it('notifies once per approval, and never for one that is not pending', () => {
    const { notifier, shown, fire } = setup(false)
    notifier.requested(approvalFixture())
    notifier.requested(approvalFixture())
    notifier.requested(approvalFixture({ id: 'ap-2', status: 'allowed' }))
    fire()
    expect(shown).toHaveLength(1)
  })
})

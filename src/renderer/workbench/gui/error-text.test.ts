import { describe, expect, it } from 'vitest'
import { createWorkbenchI18n } from '../i18n/setup.ts'
import { SecretNotSentError } from '../state/message-routing.ts'
import { approvalGone, describeError, errorText } from './error-text.ts'
import { WorkbenchCallError } from './workbench-api.ts'

const en = createWorkbenchI18n('en').t
const zh = createWorkbenchI18n('zh-CN').t

// What main and the runtime really send, as the page receives it.
const IPC = (message: string) =>
  new Error(`Error invoking remote method 'assent:workbench:review': Error: ${message}`)

describe('errorText: what a person reads when something fails', () => {
  it.each([
    [
      new SecretNotSentError(),
      'the question closed, and an answer to a secret question is never sent as a message',
      '问题已关闭，机密问题的回答绝不会作为消息发送',
    ],
    [
      IPC('approval ap-1 is no longer pending (allowed)'),
      'the agent is no longer waiting for this approval',
      '智能体已不再等待此批准',
    ],
    [
      IPC('approval ap-1 has expired'),
      'the approval expired before it was decided',
      '此批准在决定前已过期',
    ],
    [
      new WorkbenchCallError('unknown approval', 404, 'unknown_approval'),
      'the runtime no longer knows this approval',
      '运行时已不再知道此批准',
    ],
    ['the runtime restarted', 'the runtime restarted', '运行时已重启'],
    [
      new WorkbenchCallError('the runtime is not running', 503),
      'the runtime is not running',
      '运行时未在运行',
    ],
    [new WorkbenchCallError('', 503), 'the runtime is not running', '运行时未在运行'],
    ['the app is closing', 'Assent is closing', 'Assent 正在关闭'],
    [
      'the review window left its page, so it was closed',
      'the review window left its page, so it closed: review it again',
      '审核窗口离开了它的页面，因此已关闭：请重新审核',
    ],
    ['rejected by a new message', 'a new message rejected it', '一条新消息拒绝了它'],
    [
      new WorkbenchCallError('the request is no longer waiting (stale)', 409, 'not_pending'),
      'the agent is no longer waiting for this answer',
      '智能体已不再等待此回答',
    ],
    [
      new WorkbenchCallError('the room changed meanwhile', 409, 'stale_revision'),
      'the room changed meanwhile; try again',
      '房间在此期间已更改，请重试',
    ],
    [
      new WorkbenchCallError('', 502),
      'the runtime answered with status 502',
      '运行时返回了状态 502',
    ],
    [
      IPC('refused: unknown workbench channel'),
      'Assent refused the request (details: refused: unknown workbench channel)',
      'Assent 拒绝了该请求（详情：refused: unknown workbench channel）',
    ],
    [
      new Error('disk on fire'),
      'unknown error (details: disk on fire)',
      '未知错误（详情：disk on fire）',
    ],
    [new Error(''), 'unknown error', '未知错误'],
    [undefined, 'unknown error', '未知错误'],
  ])('words %s in English and Chinese', (failure, english, chinese) => {
    expect(errorText(en, failure)).toBe(english)
    expect(errorText(zh, failure)).toBe(chinese)
  })

  it('keeps the raw detail without the IPC wrapper', () => {
    expect(describeError(IPC('disk on fire')).detail).toBe('disk on fire')
  })

  it('tells an approval the runtime no longer waits on from other failures', () => {
    expect(approvalGone(IPC('approval ap-1 is no longer pending (denied)'))).toBe(true)
    expect(approvalGone('approval already decided')).toBe(true)
    expect(approvalGone(new WorkbenchCallError('unknown approval', 404, 'unknown_approval'))).toBe(
      true,
    )
    expect(approvalGone(IPC('approval ap-1 has expired'))).toBe(true)
    expect(approvalGone('the runtime restarted')).toBe(false)
    expect(approvalGone(new Error('disk on fire'))).toBe(false)
  })
})

import { describe, expect, it } from 'vitest'
import type { AssentGui } from '../../../common/assent-gui.ts'
import {
  WORKBENCH_ERROR_CODES,
  encodeWorkbenchError,
  workbenchError,
  type WorkbenchErrorCode,
} from '../../../common/workbench-error.ts'
import { createWorkbenchI18n } from '../i18n/setup.ts'
import { SecretNotSentError } from '../state/message-routing.ts'
import { approvalGone, describeError, errorText, inputGone } from './error-text.ts'
import { WorkbenchCallError, workbenchApi } from './workbench-api.ts'

const en = createWorkbenchI18n('en').t
const zh = createWorkbenchI18n('zh-CN').t

// What main sends, as the page receives it: a rejected call whose message
// Electron wraps, carrying main's typed error.
const IPC = (message: string) =>
  new Error(`Error invoking remote method 'assent:workbench:review': Error: ${message}`)
const rejected = (code: WorkbenchErrorCode, detail: string) =>
  IPC(encodeWorkbenchError(workbenchError(code, detail)))

/** A bridge whose review call rejects with `error`, read through the page's
 *  API as the page reads it. */
async function reviewFailure(error: Error): Promise<unknown> {
  const gui = { reviewApproval: () => Promise.reject(error) } as unknown as AssentGui
  return workbenchApi(gui)
    .reviewApproval('ap-1')
    .then(
      () => undefined,
      (failure: unknown) => failure,
    )
}

describe('errorText: what a person reads when something fails', () => {
  it.each([
    [
      new SecretNotSentError(),
      'the question closed, and an answer to a secret question is never sent as a message',
      '问题已关闭，机密问题的回答绝不会作为消息发送',
    ],
    [
      new WorkbenchCallError(
        'approval ap-1 is no longer pending (allowed)',
        undefined,
        'approval_decided',
      ),
      'the agent is no longer waiting for this approval',
      '智能体已不再等待此批准',
    ],
    [
      rejected('approval_expired', 'approval ap-1 has expired'),
      'the approval expired before it was decided',
      '此批准在决定前已过期',
    ],
    [
      new WorkbenchCallError('unknown approval', 404, 'unknown_approval'),
      'the runtime no longer knows this approval',
      '运行时已不再知道此批准',
    ],
    [
      workbenchError('runtime_restarted', 'the runtime restarted'),
      'the runtime restarted',
      '运行时已重启',
    ],
    [
      new WorkbenchCallError('the runtime is not running', 503),
      'the runtime is not running',
      '运行时未在运行',
    ],
    [new WorkbenchCallError('', 503), 'the runtime is not running', '运行时未在运行'],
    [workbenchError('app_closing', 'the app is closing'), 'Assent is closing', 'Assent 正在关闭'],
    [
      workbenchError('rejected_by_message', 'rejected by a new message'),
      'a new message rejected it',
      '一条新消息拒绝了它',
    ],
    [
      workbenchError('window_left_page', 'the protected window left its page, so it was closed'),
      'the protected window left its page, so it closed: review it again',
      '受保护窗口离开了它的页面，因此已关闭：请重新审核',
    ],
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
      workbenchError('full_access_unavailable', 'full access is unavailable: read_only_agent'),
      'full access is not available for this agent',
      '此智能体不能使用完全访问',
    ],
    [
      workbenchError('window_not_shown', 'the protected window was closed before it was shown'),
      'the protected window could not be shown',
      '无法显示受保护窗口',
    ],
    [
      new WorkbenchCallError('', 502),
      'the runtime answered with status 502',
      '运行时返回了状态 502',
    ],
    [
      rejected('unknown_channel', 'unknown workbench channel'),
      'Assent does not know this request',
      'Assent 不认识此请求',
    ],
    [
      new WorkbenchCallError('workspace: must be an existing directory', 400, 'invalid_workspace'),
      'the workspace folder does not exist, or cannot be one (the file-system root, your home folder itself or a system folder)',
      '工作区文件夹不存在，或不能作为工作区（文件系统根目录、你的主文件夹本身或系统文件夹）',
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

  it('words a failure by its code, whatever its English says', () => {
    const misleading = 'approval ap-1 has expired; the runtime restarted; rejected by a new message'
    expect(errorText(en, workbenchError('app_closing', misleading))).toBe('Assent is closing')
    expect(describeError(new WorkbenchCallError(misleading, 409, 'stale_revision')).code).toBe(
      'stale_revision',
    )
    expect(describeError(new Error(misleading)).code).toBeUndefined()
  })

  it('shows a code by its own words, never with the English detail beside it', () => {
    for (const code of WORKBENCH_ERROR_CODES) {
      const failure = workbenchError(code, 'sentinel detail from main')
      for (const t of [en, zh]) {
        const text = errorText(t, failure)
        expect(text, code).toBe(t(`errorCode.${code}`))
        expect(text, code).not.toContain('sentinel')
        expect(text, code).not.toContain('errorCode.')
      }
    }
  })

  it("reads main's typed error out of a rejected call, and drops Electron's wrapper from an untyped one", async () => {
    const typed = await reviewFailure(
      rejected('approval_decided', 'approval ap-1 is no longer pending'),
    )
    expect(typed).toBeInstanceOf(WorkbenchCallError)
    expect(typed).toMatchObject({
      code: 'approval_decided',
      message: 'approval ap-1 is no longer pending',
    })
    const untyped = await reviewFailure(IPC('refused: review is for the workbench page only'))
    expect(untyped).toMatchObject({
      code: undefined,
      message: 'refused: review is for the workbench page only',
    })
    expect(describeError(untyped).detail).toBe('refused: review is for the workbench page only')
  })

  it('tells an approval the runtime no longer waits on from other failures', () => {
    expect(approvalGone(rejected('approval_decided', 'approval ap-1 is no longer pending'))).toBe(
      true,
    )
    expect(approvalGone(workbenchError('approval_decided', 'approval already decided'))).toBe(true)
    expect(approvalGone(new WorkbenchCallError('unknown approval', 404, 'unknown_approval'))).toBe(
      true,
    )
    expect(approvalGone(rejected('approval_expired', 'approval ap-1 has expired'))).toBe(true)
    expect(approvalGone(workbenchError('runtime_restarted', 'the runtime restarted'))).toBe(false)
    expect(approvalGone(new Error('approval ap-1 is no longer pending'))).toBe(false)
  })

  it('tells a question or form the runtime no longer waits on from other failures', () => {
    expect(inputGone(new WorkbenchCallError('no longer waiting', 409, 'not_pending'))).toBe(true)
    expect(inputGone(new WorkbenchCallError('unknown input request', 404, 'unknown_request'))).toBe(
      true,
    )
    expect(inputGone(new WorkbenchCallError('answer: required', 400, 'invalid_content'))).toBe(
      false,
    )
    expect(inputGone(new WorkbenchCallError('no longer waiting', 409))).toBe(false)
  })
})

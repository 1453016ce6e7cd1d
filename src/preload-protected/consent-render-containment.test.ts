// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { CONSENT_CLASSES, CONSENT_PAGE_IDS } from './consent-page-ids.ts'
import {
  approvalView,
  byId,
  inbox,
  start,
  useConsentPage,
} from './test-support/consent-page-harness.ts'

// A command's containment in the protected window: what the OS lets it do,
// drawn from the view (built from the canonical action), in the person's
// language, and in the danger style when nothing contains it. The happy-dom
// window stands in for the protected window, as in consent-render.test.ts.
useConsentPage()

const line = () => byId(CONSENT_PAGE_IDS.containment)
const uncontained = () => line().classList.contains(CONSENT_CLASSES.uncontained)

describe('the containment line of a command', () => {
  it('says where a contained command can change files, that it has no network and that keys are hidden', () => {
    start()
    inbox.deliver(
      approvalView({
        containment: {
          contained: true,
          writableRoots: ['/home/ada/project'],
          network: false,
          secretsHidden: true,
        },
      }),
    )
    expect(line().hidden).toBe(false)
    expect(line().textContent).toBe(
      'Contained by the operating system: can change files only in /home/ada/project; no network; your keys and Assent’s data are hidden.',
    )
    expect(uncontained()).toBe(false)
  })

  it('says in Chinese that a read-only command cannot change any file', () => {
    start()
    inbox.deliver(
      approvalView({
        lang: 'zh-CN',
        containment: { contained: true, writableRoots: [], network: false, secretsHidden: true },
      }),
    )
    expect(line().textContent).toBe(
      '由操作系统隔离：不能更改任何文件；没有网络；你的密钥和 Assent 的数据被隐藏。',
    )
  })

  it('warns in the danger style that a command in full access runs with all the person’s rights', () => {
    start()
    inbox.deliver(approvalView({ containment: { contained: false, why: 'full-access' } }))
    expect(line().textContent).toBe(
      'Not contained: this command runs with all your rights (the room is in full access).',
    )
    expect(uncontained()).toBe(true)
  })

  it('warns in the danger style when commands run uncontained by the explicit setting', () => {
    start()
    inbox.deliver(
      approvalView({
        lang: 'zh-CN',
        containment: { contained: false, why: 'uncontained-setting' },
      }),
    )
    expect(line().textContent).toContain('未隔离')
    expect(uncontained()).toBe(true)
  })

  it('shows no line for an action whose canonical action has no containment', () => {
    start()
    inbox.deliver(approvalView())
    expect(line().hidden).toBe(true)
    expect(line().textContent).toBe('')
    expect(uncontained()).toBe(false)
  })

  it('draws a hostile folder name as text, never as markup', () => {
    start()
    const hostile = '/home/ada/<img src=x onerror=alert(1)>'
    inbox.deliver(
      approvalView({
        containment: {
          contained: true,
          writableRoots: [hostile],
          network: false,
          secretsHidden: true,
        },
      }),
    )
    expect(line().textContent).toContain(hostile)
    expect(line().querySelector('img')).toBeNull()
  })
})

// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { translate } from '../common/i18n/index.ts'
import { CONSENT_PAGE_IDS } from './consent-page-ids.ts'
import { CONSEQUENCE_IDS } from './consent-consequences-render.ts'
import {
  approvalView,
  buttonFor,
  byId,
  freshPage,
  inbox,
  start,
  useConsentPage,
} from './test-support/consent-page-harness.ts'
import { notices } from './test-support/consent-page-queries.ts'

// A permission request in the protected window: what widens, for how long,
// and why the agent says it needs it. The happy-dom window stands in for the
// protected window, as in consent-render.test.ts.
useConsentPage()

const text = (id: string) => byId(id).textContent
const body = () => byId(CONSENT_PAGE_IDS.actionBody).textContent ?? ''

function permissionView(
  widen:
    | { type: 'write-directory'; path: string }
    | { type: 'network'; argv: string[]; directory: string },
  reason: string,
  lang: 'en' | 'zh-CN' = 'en',
) {
  return approvalView({
    lang,
    agentLabel: lang === 'en' ? 'Assistant' : '助手',
    kind: 'permission-request',
    toolName: 'request_permissions',
    argumentsText: '{}',
    action: { type: 'permission', widen, duration: 'turn', reason },
    alwaysAllow: { offered: false, reason: 'turn-only' },
  } as never)
}

describe('a permission request in the protected window', () => {
  it('asks for write access to exactly one folder, for this turn, and shows the agent’s reason as text', () => {
    start()
    const hostile = '<img src=x onerror=alert(1)>'
    inbox.deliver(permissionView({ type: 'write-directory', path: '/home/ada/reports' }, hostile))
    expect(text(CONSENT_PAGE_IDS.kind)).toBe('Permissions request')
    expect(text(CONSENT_PAGE_IDS.title)).toBe(
      'Allow Assistant to write in /home/ada/reports for this turn?',
    )
    const shown = body()
    for (const part of [
      translate('en', 'consent.action.permission.writeDirectory'),
      '/home/ada/reports',
      translate('en', 'consent.action.permission.thisTurn'),
      translate('en', 'consent.action.permission.eachWriteAsks'),
      hostile,
    ]) {
      expect(shown).toContain(part)
    }
    expect(document.querySelectorAll('img')).toHaveLength(0)
  })

  it('draws its own words plainly: the curly apostrophe of "the room’s mode" raises no look-alike notice and blocks no button', () => {
    start()
    inbox.deliver(permissionView({ type: 'write-directory', path: '/home/ada/reports' }, ''))
    expect(translate('en', 'consent.action.permission.thisTurn')).toContain('’')
    expect(body()).toContain(translate('en', 'consent.action.permission.thisTurn'))
    expect(notices()).toEqual([])
    expect(document.querySelectorAll('.consent-lookalike')).toHaveLength(0)
    // The agent's own words are still read for what passes for a quote.
    start()
    inbox.deliver(permissionView({ type: 'write-directory', path: '/srv/it’s; rm x' }, ''))
    expect(notices()).toEqual([translate('en', 'consent.notice.confusable')])
  })

  it('offers no Always allow, and says the request is never remembered', () => {
    start()
    inbox.deliver(permissionView({ type: 'write-directory', path: '/srv/out' }, ''))
    expect(buttonFor('allow-always').hidden).toBe(true)
    expect(buttonFor('allow-once').hidden).toBe(false)
    expect(buttonFor('deny').hidden).toBe(false)
    expect(text(CONSEQUENCE_IDS.alwaysAllow)).toBe(
      translate('en', 'consent.consequence.noAlwaysAllow.turn-only'),
    )
    // No reason given: no reason block, rather than an empty one.
    expect(body()).not.toContain(translate('en', 'consent.action.permission.reason'))
  })

  it('names the command and its folder when the request is for network access', () => {
    start()
    inbox.deliver(
      permissionView(
        { type: 'network', argv: ['npm', 'install'], directory: '/home/ada/project' },
        'fetch the dependencies',
      ),
    )
    expect(text(CONSENT_PAGE_IDS.title)).toBe(
      'Allow Assistant to use the network for npm install this turn?',
    )
    const shown = body()
    for (const part of [
      translate('en', 'consent.action.permission.network'),
      'npm install',
      '/home/ada/project',
      translate('en', 'consent.action.permission.thisTurn'),
      'fetch the dependencies',
    ]) {
      expect(shown).toContain(part)
    }
    expect(shown).not.toContain(translate('en', 'consent.action.permission.eachWriteAsks'))
  })

  it('says all of it in Chinese', () => {
    freshPage()
    start()
    inbox.deliver(
      permissionView({ type: 'write-directory', path: '/home/ada/报告' }, '放报告', 'zh-CN'),
    )
    expect(text(CONSENT_PAGE_IDS.kind)).toBe('权限请求')
    expect(text(CONSENT_PAGE_IDS.title)).toBe('允许助手在本轮中写入 /home/ada/报告 吗？')
    expect(body()).toContain(translate('zh-CN', 'consent.action.permission.thisTurn'))
    expect(text(CONSEQUENCE_IDS.alwaysAllow)).toBe(
      translate('zh-CN', 'consent.consequence.noAlwaysAllow.turn-only'),
    )
  })
})

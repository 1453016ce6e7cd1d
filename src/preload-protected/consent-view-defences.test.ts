// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { CONSENT_BUTTON_IDS } from '../common/consent-view.ts'
import { translate } from '../common/i18n/index.ts'
import { CONSENT_CLASSES, CONSENT_PAGE_IDS } from './consent-page-ids.ts'
import {
  DELAY_MS,
  approvalView,
  clock,
  inbox,
  sent,
  start,
  byId,
  buttonFor,
  click,
  key,
  useConsentPage,
} from './test-support/consent-page-harness.ts'
import { body, notices, pageText, text } from './test-support/consent-page-queries.ts'

// The happy-dom window stands in for the protected window; Chromium renders the
// built page for real in tests/consent-page.test.ts.
useConsentPage()

describe('deceptive text', () => {
  it('shows a direction override in a path as a visible escape and warns above the buttons', () => {
    start()
    inbox.deliver(
      approvalView({
        kind: 'apply-changes',
        toolName: 'write_file',
        action: {
          type: 'write',
          path: 'invoice\u202Etxt.exe',
          absolutePath: '/p/invoice\u202Etxt.exe',
          content: 'x',
        },
      }),
    )
    expect(text(CONSENT_PAGE_IDS.title)).toBe('Allow Assistant to write invoice⟨U+202E⟩txt.exe?')
    expect(document.title).toBe('Allow Assistant to write invoice⟨U+202E⟩txt.exe?')
    const escape = byId(CONSENT_PAGE_IDS.title).querySelector(`.${CONSENT_CLASSES.escape}`)
    expect(escape?.textContent).toBe('⟨U+202E⟩')
    expect(notices()).toEqual([translate('en', 'consent.notice.direction')])
    expect(pageText()).not.toMatch(/\u202E/)
  })

  it('warns about hidden characters in arguments and content, never showing them raw', () => {
    start()
    inbox.deliver(
      approvalView({
        kind: 'apply-changes',
        toolName: 'write_file',
        action: {
          type: 'write',
          path: 'a.txt',
          absolutePath: '/p/a.txt',
          content: 'ok\u200B\n\u001B[2J\n',
        },
      }),
    )
    expect(notices()).toEqual([translate('en', 'consent.notice.hidden')])
    expect(pageText()).not.toContain('\u200B')
    expect(pageText()).not.toContain('\u001B')
    expect(body().textContent).toContain('ok⟨U+200B⟩')
  })

  it('flags a tool and a server name that pass for others', () => {
    start()
    inbox.deliver(
      approvalView({
        kind: 'mcp-tool-call',
        toolName: 'wr\u0456te_note',
        action: {
          type: 'mcp',
          serverName: 'N\u043Etes',
          toolDescription: '',
          previewText: null,
          serverFolder: null,
        },
      }),
    )
    expect(text(CONSENT_PAGE_IDS.title)).toBe('Allow N⟨U+043E⟩tes to run wr⟨U+0456⟩te_note?')
    expect(notices()).toEqual([translate('en', 'consent.notice.confusable')])
  })

  it('shows no warning for ordinary text', () => {
    start()
    inbox.deliver(approvalView())
    expect(notices()).toEqual([])
  })
})

describe('views the page refuses', () => {
  const invalidViews: Array<[string, unknown]> = [
    ['a string', 'approve everything'],
    ['null', null],
    ['an unknown subject', { ...approvalView(), subject: 'auto-approve' }],
    ['an unknown key', { ...approvalView(), autoApprove: true }],
    ['a malformed digest', approvalView({ digestPrefix: 'ZZZZ' })],
    ['a raw sandbox value it has no words for', { ...approvalView(), sandboxMode: 'yolo' }],
    ['a delay beyond the limit', approvalView({ enableDelayMs: 60_000 })],
    ['a missing field', { ...approvalView(), promptId: undefined }],
    [
      'a change preview whose counts do not add up',
      approvalView({
        action: {
          type: 'write',
          path: 'a',
          absolutePath: '/a',
          content: '',
          fileChange: {
            path: 'a',
            kind: 'modify',
            truncated: false,
            hunks: [
              {
                oldStart: 1,
                oldLines: 5,
                newStart: 1,
                newLines: 1,
                lines: [{ op: 'add', text: 'x' }],
              },
            ],
          },
        },
      }),
    ],
  ]
  for (const [name, invalid] of invalidViews) {
    it(`ignores ${name} as a view: nothing shown, nothing can be decided`, () => {
      start()
      inbox.deliver(invalid)
      clock.advance(DELAY_MS * 10)

      expect(byId(CONSENT_PAGE_IDS.approvalSection).hidden).toBe(true)
      expect(byId(CONSENT_PAGE_IDS.actions).hidden).toBe(true)
      expect(document.documentElement.lang).toBe('en')
      buttonFor('allow-once').disabled = false
      click(buttonFor('allow-once'))
      key(document.body, 'Escape')
      expect(sent).toEqual([])
    })
  }

  it('keeps the first view: a later one cannot swap what the person is reading', () => {
    start()
    inbox.deliver(approvalView({ toolName: 'first' }))
    inbox.deliver(approvalView({ toolName: 'second', promptId: 'prompt-9' }))
    clock.advance(DELAY_MS)
    click(buttonFor('deny'))

    expect(text(CONSENT_PAGE_IDS.tool)).toBe('first')
    expect(sent).toEqual([{ promptId: 'prompt-1', answer: 'deny' }])
  })

  it('renders a view that arrived before the page was ready', () => {
    inbox.deliver(approvalView())
    start()
    expect(text(CONSENT_PAGE_IDS.tool)).toBe('run_command')
  })

  it('shows nothing and decides nothing on a page missing one of its elements', () => {
    byId(CONSENT_BUTTON_IDS.deny).remove()
    start()
    inbox.deliver(approvalView())
    clock.advance(DELAY_MS)
    click(buttonFor('allow-once'))

    expect(byId(CONSENT_PAGE_IDS.approvalSection).hidden).toBe(true)
    expect(sent).toEqual([])
  })
})

// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { CONSENT_BUTTON_IDS, type ConsentView } from '../common/consent-view.ts'
import { CONSENT_PAGE_IDS } from './consent-page-ids.ts'
import {
  DELAY_MS,
  approvalView,
  modeChangeView,
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

// The happy-dom window stands in for the consent window; Chromium renders the
// built page for real in tests/consent-page.test.ts.
useConsentPage()

describe('rendering', () => {
  it('shows an approval with its labels, values, language and theme', () => {
    start()
    inbox.deliver(approvalView({ lang: 'zh-CN', theme: 'dark' }))

    expect(document.documentElement.lang).toBe('zh-CN')
    expect(document.documentElement.dataset.theme).toBe('dark')
    expect(byId(CONSENT_PAGE_IDS.kind).textContent).toBe('运行命令')
    expect(byId(CONSENT_PAGE_IDS.toolLabel).textContent).toBe('工具')
    expect(byId(CONSENT_PAGE_IDS.tool).textContent).toBe('run_command')
    expect(byId(CONSENT_PAGE_IDS.workingDirectory).textContent).toBe('/home/ada/project')
    expect(byId(CONSENT_PAGE_IDS.sandboxMode).textContent).toBe('workspace-write')
    expect(byId(CONSENT_PAGE_IDS.room).textContent).toBe('Design review')
    expect(byId(CONSENT_PAGE_IDS.digest).textContent).toBe('0123456789ab…')
    expect(byId(CONSENT_PAGE_IDS.arguments).textContent).toBe('{\n  "command": "npm test"\n}')
    expect(byId(CONSENT_PAGE_IDS.approvalSection).hidden).toBe(false)
    expect(byId(CONSENT_PAGE_IDS.modeChangeSection).hidden).toBe(true)
    expect(byId(CONSENT_PAGE_IDS.mcpSection).hidden).toBe(true)
    expect(byId(CONSENT_PAGE_IDS.actions).hidden).toBe(false)
    expect(buttonFor('deny').textContent).toBe('拒绝')
    for (const answer of ['allow-once', 'allow-always', 'deny'] as const) {
      expect(buttonFor(answer).hidden).toBe(false)
    }
    for (const answer of ['confirm', 'cancel'] as const) expect(buttonFor(answer).hidden).toBe(true)
  })

  it('shows an MCP call with its server, what the server says the tool does, and the preview', () => {
    start()
    const hostile = '<img src=x onerror=alert(1)>'
    inbox.deliver(
      approvalView({
        kind: 'mcp-tool-call',
        toolName: 'write_note',
        mcp: {
          serverName: 'Notes',
          toolDescription: `Writes a note ${hostile}`,
          previewText: 'plan.txt: absent -> "ship"',
        },
      } as Partial<ConsentView>),
    )
    expect(byId(CONSENT_PAGE_IDS.kind).textContent).toBe('MCP tool call')
    expect(byId(CONSENT_PAGE_IDS.mcpSection).hidden).toBe(false)
    expect(byId(CONSENT_PAGE_IDS.mcpServerLabel).textContent).toBe('MCP server')
    expect(byId(CONSENT_PAGE_IDS.mcpServer).textContent).toBe('Notes')
    expect(byId(CONSENT_PAGE_IDS.mcpDescription).textContent).toBe(`Writes a note ${hostile}`)
    expect(byId(CONSENT_PAGE_IDS.mcpPreviewSection).hidden).toBe(false)
    expect(byId(CONSENT_PAGE_IDS.mcpPreview).textContent).toBe('plan.txt: absent -> "ship"')
    expect(document.querySelectorAll('img')).toHaveLength(0)
  })

  it('says why the automatic reviewer left the action to the person, as text, and only then', () => {
    start()
    const reason = 'commands are decided by a person <b>now</b>'
    inbox.deliver(approvalView({ escalationReason: reason, lang: 'zh-CN' }))
    const note = byId(CONSENT_PAGE_IDS.escalation)
    expect(note.hidden).toBe(false)
    expect(note.textContent).toBe(`自动审核程序请你决定，原因：${reason}`)
    expect(document.querySelectorAll('b')).toHaveLength(0)
  })

  it('shows no reviewer note for an approval nobody escalated', () => {
    start()
    inbox.deliver(approvalView())
    expect(byId(CONSENT_PAGE_IDS.escalation).hidden).toBe(true)
    expect(byId(CONSENT_PAGE_IDS.escalation).textContent).toBe('')
  })

  it('hides the preview of an MCP tool that has none', () => {
    start()
    inbox.deliver(
      approvalView({
        kind: 'mcp-tool-call',
        mcp: { serverName: 'Notes', toolDescription: 'Reads', previewText: null },
      } as Partial<ConsentView>),
    )
    expect(byId(CONSENT_PAGE_IDS.mcpSection).hidden).toBe(false)
    expect(byId(CONSENT_PAGE_IDS.mcpPreviewSection).hidden).toBe(true)
  })

  it('renders markup in the action as text and creates no element', () => {
    start()
    const hostile = '<img src=x onerror=alert(1)><script>alert(2)</script>'
    inbox.deliver(
      approvalView({
        argumentsText: hostile,
        summary: hostile,
        toolName: hostile,
        roomLabel: hostile,
      }),
    )

    expect(byId(CONSENT_PAGE_IDS.arguments).textContent).toBe(hostile)
    expect(byId(CONSENT_PAGE_IDS.summary).textContent).toBe(hostile)
    expect(byId(CONSENT_PAGE_IDS.tool).textContent).toBe(hostile)
    expect(document.querySelectorAll('img, script')).toHaveLength(0)
  })

  it('shows a mode change from the old mode to the new one and what the new one allows', () => {
    start()
    inbox.deliver(modeChangeView())

    expect(byId(CONSENT_PAGE_IDS.modeChangeSection).hidden).toBe(false)
    expect(byId(CONSENT_PAGE_IDS.approvalSection).hidden).toBe(true)
    expect(byId(CONSENT_PAGE_IDS.modeSentence).textContent).toBe(
      'Change the mode of Design review from Ask for approval to Full access.',
    )
    expect(byId(CONSENT_PAGE_IDS.modeFrom).textContent).toBe('Ask for approval')
    expect(byId(CONSENT_PAGE_IDS.modeTo).textContent).toBe('Full access')
    expect(byId(CONSENT_PAGE_IDS.modeAllows).textContent).toBe(
      'Run anything the agent can reach without asking',
    )
    expect(buttonFor('confirm').hidden).toBe(false)
    expect(buttonFor('cancel').hidden).toBe(false)
    for (const answer of ['allow-once', 'allow-always', 'deny'] as const) {
      expect(buttonFor(answer).hidden).toBe(true)
    }
  })

  const invalidViews: Array<[string, unknown]> = [
    ['a string', 'approve everything'],
    ['null', null],
    ['an unknown subject', { ...approvalView(), subject: 'auto-approve' }],
    ['an unknown key', { ...approvalView(), autoApprove: true }],
    ['a malformed digest', approvalView({ digestPrefix: 'ZZZZ' } as Partial<ConsentView>)],
    ['a delay beyond the limit', approvalView({ enableDelayMs: 60_000 })],
    ['a missing field', { ...approvalView(), promptId: undefined }],
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

    expect(byId(CONSENT_PAGE_IDS.tool).textContent).toBe('first')
    expect(sent).toEqual([{ promptId: 'prompt-1', answer: 'deny' }])
  })

  it('renders a view that arrived before the page was ready', () => {
    inbox.deliver(approvalView())
    start()
    expect(byId(CONSENT_PAGE_IDS.tool).textContent).toBe('run_command')
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

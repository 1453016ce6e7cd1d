// @vitest-environment happy-dom
/// <reference types="node" />
import { readFileSync } from 'node:fs'
import { URL as NodeURL } from 'node:url'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  CONSENT_BUTTON_IDS,
  type ConsentAnswer,
  type ConsentDecisionMessage,
  type ConsentView,
} from '../common/consent-view.ts'
import { CONSENT_PAGE_IDS } from './consent-page-ids.ts'
import { startConsentPreload } from './consent-preload.ts'
import { ViewInbox } from './transport.ts'

// The happy-dom window stands in for the consent window; Chromium runs the
// built page for real in tests/consent-page.test.ts. happy-dom replaces the
// global URL, so the file's URL is built with Node's.
const pageHtml = readFileSync(
  new NodeURL('../renderer/consent/index.html', import.meta.url),
  'utf8',
)
const pageBody = /<body>([\s\S]*)<\/body>/.exec(pageHtml)?.[1] ?? ''

const DELAY_MS = 600

const approvalView = (overrides: Partial<ConsentView> = {}): ConsentView =>
  ({
    subject: 'approval',
    promptId: 'prompt-1',
    kind: 'run-command',
    toolName: 'run_command',
    argumentsText: '{\n  "command": "npm test"\n}',
    summary: 'Run the test suite',
    workingDirectory: '/home/ada/project',
    sandboxMode: 'workspace-write',
    roomLabel: 'Design review',
    digestPrefix: '0123456789ab',
    lang: 'en',
    theme: 'light',
    enableDelayMs: DELAY_MS,
    ...overrides,
  }) as ConsentView

const modeChangeView = (): ConsentView => ({
  subject: 'mode-change',
  promptId: 'prompt-2',
  roomLabel: 'Design review',
  fromMode: 'ask-for-approval',
  toMode: 'full-access',
  lang: 'en',
  theme: 'dark',
  enableDelayMs: DELAY_MS,
})

/** A clock and timers the test moves by hand. */
function fakeClock() {
  let time = 1_000
  let nextId = 1
  const timers = new Map<number, { at: number; callback: () => void }>()
  return {
    now: () => time,
    setTimeout: (callback: () => void, ms: number) => {
      timers.set(nextId, { at: time + ms, callback })
      return nextId++
    },
    clearTimeout: (handle: number) => {
      timers.delete(handle)
    },
    advance(ms: number) {
      const end = time + ms
      for (;;) {
        const due = [...timers].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0]
        if (!due) break
        timers.delete(due[0])
        time = Math.max(time, due[1].at)
        due[1].callback()
      }
      time = end
    },
  }
}

let clock: ReturnType<typeof fakeClock>
let inbox: ViewInbox
let sent: ConsentDecisionMessage[]
const running: Array<{ stop(): void }> = []

function start() {
  const decisions = sent
  const preload = startConsentPreload({
    transport: {
      onShow: (listener) => inbox.onShow(listener),
      sendDecision: (message) => decisions.push(message),
    },
    document,
    window,
    now: clock.now,
    setTimeout: clock.setTimeout,
    clearTimeout: clock.clearTimeout,
  })
  running.push(preload)
}

const byId = (id: string) => {
  const element = document.getElementById(id)
  if (!element) throw new Error(`no #${id} on the consent page`)
  return element
}
const buttonFor = (answer: ConsentAnswer) => byId(CONSENT_BUTTON_IDS[answer]) as HTMLButtonElement

/** A click as the browser would make it from real input; each field can be
 *  spoiled to check one rule. happy-dom has no trusted events, so
 *  `isTrusted` is set on the event instance. */
function click(
  target: Element,
  init: { isTrusted?: boolean; button?: number; detail?: number } = {},
) {
  const event = new MouseEvent('click', {
    bubbles: true,
    cancelable: true,
    button: init.button ?? 0,
    detail: init.detail ?? 1,
  })
  Object.defineProperty(event, 'isTrusted', { value: init.isTrusted ?? true })
  target.dispatchEvent(event)
}

function key(target: EventTarget, name: string, isTrusted = true) {
  const event = new KeyboardEvent('keydown', { key: name, bubbles: true, cancelable: true })
  Object.defineProperty(event, 'isTrusted', { value: isTrusted })
  target.dispatchEvent(event)
  return event
}

beforeEach(() => {
  document.documentElement.lang = 'en'
  document.documentElement.dataset.theme = 'light'
  document.body.innerHTML = pageBody
  clock = fakeClock()
  inbox = new ViewInbox()
  sent = []
})

afterEach(() => {
  for (const preload of running.splice(0)) preload.stop()
  vi.restoreAllMocks()
})

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

describe('enable delay', () => {
  it('keeps the buttons disabled for the whole delay and enables them after it', () => {
    start()
    inbox.deliver(approvalView())
    clock.advance(DELAY_MS - 1)
    expect(buttonFor('allow-once').disabled).toBe(true)
    clock.advance(1)
    expect(buttonFor('allow-once').disabled).toBe(false)
    expect(buttonFor('deny').disabled).toBe(false)
    expect(buttonFor('confirm').disabled).toBe(true)
  })

  it('refuses a trusted click before the delay even when the page re-enabled the button', () => {
    start()
    inbox.deliver(approvalView())
    clock.advance(DELAY_MS - 1)
    buttonFor('allow-once').disabled = false
    click(buttonFor('allow-once'))
    expect(sent).toEqual([])
  })

  it('focuses Deny on an approval and Cancel on a mode change when the buttons enable', () => {
    start()
    inbox.deliver(approvalView())
    clock.advance(DELAY_MS)
    expect(document.activeElement).toBe(buttonFor('deny'))

    for (const preload of running.splice(0)) preload.stop()
    document.body.innerHTML = pageBody
    inbox = new ViewInbox()
    start()
    inbox.deliver(modeChangeView())
    clock.advance(DELAY_MS)
    expect(document.activeElement).toBe(buttonFor('cancel'))
  })

  it('does not start the delay until the window has focus', () => {
    const hasFocus = vi.spyOn(document, 'hasFocus').mockReturnValue(false)
    start()
    inbox.deliver(approvalView())
    clock.advance(DELAY_MS * 10)
    expect(buttonFor('allow-once').disabled).toBe(true)

    hasFocus.mockReturnValue(true)
    window.dispatchEvent(new Event('focus'))
    clock.advance(DELAY_MS - 1)
    expect(buttonFor('allow-once').disabled).toBe(true)
    clock.advance(1)
    expect(buttonFor('allow-once').disabled).toBe(false)
  })

  it('disables the buttons on blur and restarts the whole delay on the next focus', () => {
    const hasFocus = vi.spyOn(document, 'hasFocus').mockReturnValue(true)
    start()
    inbox.deliver(approvalView())
    clock.advance(DELAY_MS)
    expect(buttonFor('allow-once').disabled).toBe(false)

    hasFocus.mockReturnValue(false)
    window.dispatchEvent(new Event('blur'))
    expect(buttonFor('allow-once').disabled).toBe(true)

    hasFocus.mockReturnValue(true)
    window.dispatchEvent(new Event('focus'))
    clock.advance(DELAY_MS - 1)
    buttonFor('allow-once').disabled = false
    click(buttonFor('allow-once'))
    expect(sent).toEqual([])
    clock.advance(1)
    click(buttonFor('allow-once'))
    expect(sent).toEqual([{ promptId: 'prompt-1', answer: 'allow-once' }])
  })

  it('does not enable the buttons while the document is hidden', () => {
    vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('hidden')
    start()
    inbox.deliver(approvalView())
    clock.advance(DELAY_MS * 10)
    expect(buttonFor('allow-once').disabled).toBe(true)
  })
})

describe('decisions', () => {
  const ready = (view: ConsentView = approvalView()) => {
    start()
    inbox.deliver(view)
    clock.advance(DELAY_MS)
  }

  for (const answer of ['allow-once', 'allow-always', 'deny'] as const) {
    it(`sends ${answer} for a trusted click on its button`, () => {
      ready()
      click(buttonFor(answer))
      expect(sent).toEqual([{ promptId: 'prompt-1', answer }])
    })
  }

  it('sends confirm for a trusted click on Confirm change', () => {
    ready(modeChangeView())
    click(buttonFor('confirm'))
    expect(sent).toEqual([{ promptId: 'prompt-2', answer: 'confirm' }])
  })

  it('ignores a scripted click(), even after the delay', () => {
    ready()
    buttonFor('allow-once').click()
    click(buttonFor('allow-once'), { isTrusted: false })
    expect(sent).toEqual([])
  })

  it('ignores a secondary-button click and a keyboard-made click (detail 0)', () => {
    ready()
    click(buttonFor('allow-once'), { button: 2 })
    click(buttonFor('allow-once'), { detail: 0 })
    expect(sent).toEqual([])
  })

  it('ignores a trusted click while the document has no focus', () => {
    ready()
    vi.spyOn(document, 'hasFocus').mockReturnValue(false)
    click(buttonFor('allow-once'))
    expect(sent).toEqual([])
  })

  it('neither shows nor sends Always allow when the runtime reports it unavailable', () => {
    ready(approvalView({ alwaysAllowAvailable: false }))
    expect(buttonFor('allow-always').hidden).toBe(true)
    expect(buttonFor('allow-once').hidden).toBe(false)
    buttonFor('allow-always').hidden = false
    buttonFor('allow-always').disabled = false
    click(buttonFor('allow-always'))
    expect(sent).toEqual([])
  })

  it('ignores a click on a button the current view does not offer', () => {
    ready()
    buttonFor('confirm').hidden = false
    buttonFor('confirm').disabled = false
    click(buttonFor('confirm'))
    expect(sent).toEqual([])
  })

  it('ignores a click on an element inside or beside the button', () => {
    ready()
    const inner = document.createElement('span')
    buttonFor('allow-once').append(inner)
    click(inner)
    expect(sent).toEqual([])
  })

  it('never approves with Enter: the key is swallowed on the buttons', () => {
    ready()
    buttonFor('allow-once').focus()
    const enter = key(buttonFor('allow-once'), 'Enter')
    const space = key(buttonFor('allow-always'), ' ')
    expect(enter.defaultPrevented).toBe(true)
    expect(space.defaultPrevented).toBe(true)
    expect(sent).toEqual([])
  })

  it('cancels on Escape, before or after the delay', () => {
    start()
    inbox.deliver(approvalView())
    key(document.body, 'Escape')
    expect(sent).toEqual([{ promptId: 'prompt-1', answer: 'cancel' }])
  })

  it('ignores a scripted Escape and an Escape before any view', () => {
    start()
    key(document.body, 'Escape')
    inbox.deliver(approvalView())
    key(document.body, 'Escape', false)
    expect(sent).toEqual([])
  })

  it('sends one decision at most: later clicks and keys send nothing', () => {
    ready()
    click(buttonFor('deny'))
    click(buttonFor('allow-once'))
    click(buttonFor('allow-always'))
    key(document.body, 'Escape')
    expect(sent).toEqual([{ promptId: 'prompt-1', answer: 'deny' }])
    expect(buttonFor('allow-once').disabled).toBe(true)
  })
})

// @vitest-environment happy-dom
import { describe, expect, it, vi } from 'vitest'
import { type ConsentView } from '../common/consent-view.ts'
import {
  freshPage,
  DELAY_MS,
  approvalView,
  modeChangeView,
  clock,
  drawn,
  inbox,
  refuse,
  sent,
  start,
  buttonFor,
  click,
  key,
  press,
  space,
  tabTo,
  useConsentPage,
} from './test-support/consent-page-harness.ts'

// The happy-dom window stands in for the protected window: its clock is moved
// by hand and its clicks are made with each trust rule spoiled in turn;
// Chromium runs the real thing in tests/cdp-host.test.ts.
useConsentPage()

describe('what main says back', () => {
  it('reports the view drawn once it has rendered it, for its own prompt', () => {
    start()
    expect(drawn).toEqual([])
    inbox.deliver(approvalView())
    expect(drawn).toEqual([])
    clock.advance(0)
    expect(drawn).toEqual([approvalView().promptId])
  })

  it('re-arms the buttons after main refused the decision, with a line saying so, and Escape works again', () => {
    start()
    const view = approvalView()
    inbox.deliver(view)
    clock.advance(DELAY_MS)
    click(buttonFor('allow-once'))
    expect(sent).toHaveLength(1)
    expect(buttonFor('deny').disabled).toBe(true)
    // A refusal for another prompt, or of another shape, changes nothing.
    refuse({ promptId: 'another-prompt' })
    refuse('refused')
    clock.advance(DELAY_MS)
    expect(buttonFor('deny').disabled).toBe(true)
    refuse({ promptId: view.promptId })
    expect(document.getElementById('assent-notices')?.textContent).toContain(
      'did not take that choice',
    )
    // The buttons come back only after a fresh delay.
    clock.advance(DELAY_MS - 1)
    expect(buttonFor('deny').disabled).toBe(true)
    clock.advance(1)
    expect(buttonFor('deny').disabled).toBe(false)
    key(document.body, 'Escape')
    expect(sent.map((message) => message.answer)).toEqual(['allow-once', 'cancel'])
  })

  it('ignores a refusal when no decision is waiting on main', () => {
    start()
    const view = approvalView()
    inbox.deliver(view)
    clock.advance(DELAY_MS)
    refuse({ promptId: view.promptId })
    expect(document.getElementById('assent-notices')?.textContent).not.toContain(
      'did not take that choice',
    )
    expect(buttonFor('deny').disabled).toBe(false)
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

    freshPage()
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

  it('ignores a secondary-button click, and a detail-0 click on Allow nobody focused', () => {
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
    ready(approvalView({ alwaysAllow: { offered: false, reason: 'command-has-options' } }))
    expect(buttonFor('allow-always').hidden).toBe(true)
    expect(buttonFor('allow-once').hidden).toBe(false)
    buttonFor('allow-always').hidden = false
    buttonFor('allow-always').disabled = false
    click(buttonFor('allow-always'))
    expect(sent).toEqual([])
  })

  it('sends allow-always-server for a trusted click on "Always allow every tool of <server>", only where offered', () => {
    const mcpView = (offered: boolean) =>
      approvalView({
        kind: 'mcp-tool-call',
        toolName: 'write_note',
        action: {
          type: 'mcp',
          serverName: 'Notes',
          toolDescription: '',
          previewText: null,
          serverFolder: null,
        },
        alwaysAllow: { offered: true, scope: 'mcp-tool' },
        serverAlwaysAllow: offered
          ? { offered: true, toolNames: ['read_note', 'write_note'] }
          : { offered: false },
      })
    ready(mcpView(false))
    expect(buttonFor('allow-always-server').hidden).toBe(true)
    buttonFor('allow-always-server').hidden = false
    buttonFor('allow-always-server').disabled = false
    click(buttonFor('allow-always-server'))
    expect(sent).toEqual([])

    freshPage()
    ready(mcpView(true))
    expect(buttonFor('allow-always-server').hidden).toBe(false)
    click(buttonFor('allow-always-server'))
    expect(sent).toEqual([{ promptId: 'prompt-1', answer: 'allow-always-server' }])
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
    tabTo(buttonFor('allow-once'))
    clock.advance(DELAY_MS)
    for (const type of ['keydown', 'keyup'] as const) {
      expect(key(buttonFor('allow-once'), 'Enter', true, type).defaultPrevented).toBe(true)
    }
    click(buttonFor('allow-once'), { detail: 0 })
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

describe('presses while the buttons are disabled', () => {
  it('restarts the whole delay on a pointer press before the buttons enable', () => {
    start()
    inbox.deliver(approvalView())
    clock.advance(DELAY_MS - 100)
    press(document.body)
    clock.advance(DELAY_MS - 1)
    expect(buttonFor('allow-once').disabled).toBe(true)
    buttonFor('allow-once').disabled = false
    click(buttonFor('allow-once'))
    expect(sent).toEqual([])
    clock.advance(1)
    expect(buttonFor('allow-once').disabled).toBe(false)
  })

  it('restarts the whole delay on a key press before the buttons enable', () => {
    start()
    inbox.deliver(approvalView())
    clock.advance(DELAY_MS - 1)
    key(document.body, 'a')
    clock.advance(DELAY_MS - 1)
    expect(buttonFor('deny').disabled).toBe(true)
    clock.advance(1)
    expect(buttonFor('deny').disabled).toBe(false)
  })

  it('ignores scripted presses, and presses once the buttons are enabled', () => {
    start()
    inbox.deliver(approvalView())
    clock.advance(DELAY_MS - 1)
    press(document.body, false)
    key(document.body, 'a', false)
    clock.advance(1)
    expect(buttonFor('allow-once').disabled).toBe(false)
    press(document.body)
    key(document.body, 'a')
    expect(buttonFor('allow-once').disabled).toBe(false)
  })
})

describe('deciding without a mouse', () => {
  const ready = () => {
    start()
    inbox.deliver(approvalView())
    clock.advance(DELAY_MS)
  }

  it('counts Space on Allow once the delay has passed since the person tabbed to it', () => {
    ready()
    tabTo(buttonFor('allow-once'))
    clock.advance(DELAY_MS - 1)
    space(buttonFor('allow-once'))
    expect(sent).toEqual([])
    clock.advance(1)
    space(buttonFor('allow-once'))
    expect(sent).toEqual([{ promptId: 'prompt-1', answer: 'allow-once' }])
  })

  it('refuses Space on Allow when focus got there without a key press', () => {
    ready()
    buttonFor('allow-always').focus()
    clock.advance(DELAY_MS * 2)
    space(buttonFor('allow-always'))
    expect(sent).toEqual([])
  })

  it('takes Deny with Space on its default focus at once', () => {
    ready()
    expect(document.activeElement).toBe(buttonFor('deny'))
    space(buttonFor('deny'))
    expect(sent).toEqual([{ promptId: 'prompt-1', answer: 'deny' }])
  })

  it('counts an assistive-technology activation (no key) on a button the person focused', () => {
    ready()
    buttonFor('allow-always').focus()
    clock.advance(DELAY_MS - 1)
    click(buttonFor('allow-always'), { detail: 0 })
    expect(sent).toEqual([])
    clock.advance(1)
    click(buttonFor('allow-always'), { detail: 0 })
    expect(sent).toEqual([{ promptId: 'prompt-1', answer: 'allow-always' }])
  })

  it('forgets a key held when the window lost focus: its release went to another window', () => {
    const hasFocus = vi.spyOn(document, 'hasFocus').mockReturnValue(true)
    ready()
    key(document.body, 'Tab')
    hasFocus.mockReturnValue(false)
    window.dispatchEvent(new Event('blur'))
    hasFocus.mockReturnValue(true)
    window.dispatchEvent(new Event('focus'))
    clock.advance(DELAY_MS)
    // Focus from assistive technology, no key held: the Tab pressed before
    // the blur neither makes it a keyboard focus nor blocks the activation.
    buttonFor('allow-once').focus()
    clock.advance(DELAY_MS)
    click(buttonFor('allow-once'), { detail: 0 })
    expect(sent).toEqual([{ promptId: 'prompt-1', answer: 'allow-once' }])
  })
})

// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import type { ConsentView } from '../common/consent-view.ts'
import { translate } from '../common/i18n/index.ts'
import { CONSENT_CLASSES, CONSENT_PAGE_IDS } from './consent-page-ids.ts'
import { CONSEQUENCE_IDS, SERVER_TOOLS_ID } from './consent-consequences-render.ts'
import {
  freshPage,
  approvalView,
  modeChangeView,
  inbox,
  start,
  byId,
  buttonFor,
  useConsentPage,
} from './test-support/consent-page-harness.ts'
import { body, notices, text } from './test-support/consent-page-queries.ts'

// The happy-dom window stands in for the protected window; Chromium renders the
// built page for real in tests/consent-page.test.ts.
useConsentPage()

/** An MCP call to the Notes server that offers the server-wide grant over
 *  `toolNames`. */
const serverWideView = (toolNames: string[], overrides: Partial<ConsentView> = {}) =>
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
    serverAlwaysAllow: { offered: true, toolNames },
    ...overrides,
  } as never)

describe('rendering an approval', () => {
  it('says a recursive delete removes everything in it, and why it cannot be always allowed', () => {
    start()
    inbox.deliver(
      approvalView({
        kind: 'apply-changes',
        toolName: 'delete_file',
        action: { type: 'delete', path: 'build', absolutePath: '/p/build', recursive: true },
        alwaysAllow: { offered: false, reason: 'recursive-delete' },
      }),
    )
    expect(text(CONSENT_PAGE_IDS.title)).toBe(
      'Allow Assistant to delete build and everything in it?',
    )
    expect(body().textContent).toContain(translate('en', 'consent.action.recursiveYes'))
    expect(buttonFor('allow-always').hidden).toBe(true)
    expect(text(CONSEQUENCE_IDS.alwaysAllow)).toBe(
      translate('en', 'consent.consequence.noAlwaysAllow.recursive-delete'),
    )
  })

  const PERSON_ONLY = /git’s files, credentials and files that run code on their own/i

  it('says what Always allow remembers, and what it never covers, for each kind of grant', () => {
    const cases: Array<[Partial<ConsentView>, string]> = [
      [
        { toolName: 'write_file', alwaysAllow: { offered: true, scope: 'tool' } },
        'Always allow remembers write_file in this room: any file inside the workspace.',
      ],
      [{ alwaysAllow: { offered: true, scope: 'command' } }, 'this exact command'],
      [
        {
          toolName: 'delete_file',
          action: { type: 'delete', path: 'a.txt', absolutePath: '/p/a.txt', recursive: false },
          alwaysAllow: { offered: true, scope: 'path' },
        },
        'deleting this one path (/p/a.txt)',
      ],
      [
        {
          toolName: 'write_note',
          kind: 'mcp-tool-call',
          action: {
            type: 'mcp',
            serverName: 'Notes',
            toolDescription: '',
            previewText: null,
            serverFolder: null,
          },
          alwaysAllow: { offered: true, scope: 'mcp-tool' },
        },
        'write_note on Notes (any arguments',
      ],
      // assent-gateway's grants on a gated server: a read's answers for
      // every read of the server, a prompt's for that prompt alone.
      [
        {
          toolName: 'resources/read',
          kind: 'mcp-tool-call',
          action: {
            type: 'mcp',
            serverName: 'Notes',
            toolDescription: '',
            previewText: null,
            serverFolder: null,
          },
          alwaysAllow: { offered: true, scope: 'mcp-read' },
        },
        'reading any resource of Notes, not only this one',
      ],
      [
        {
          toolName: 'prompts/get',
          kind: 'mcp-tool-call',
          action: {
            type: 'mcp',
            serverName: 'Notes',
            toolDescription: '',
            previewText: null,
            serverFolder: null,
          },
          alwaysAllow: { offered: true, scope: 'mcp-prompt', prompt: 'summarise' },
        },
        'the prompt summarise of Notes (any arguments,',
      ],
      [{ alwaysAllow: { offered: true, scope: 'agent-file' } }, 'changes to this one file'],
    ]
    for (const [overrides, expected] of cases) {
      freshPage()
      start()
      inbox.deliver(approvalView(overrides as never))
      expect(text(CONSEQUENCE_IDS.alwaysAllow)).toContain(expected)
      // Every grant kind names what it never covers.
      expect(text(CONSEQUENCE_IDS.alwaysAllow)).toMatch(PERSON_ONLY)
      expect(buttonFor('allow-always').getAttribute('aria-describedby')).toBe(
        CONSEQUENCE_IDS.alwaysAllow,
      )
    }
  })

  // An MCP grant is bound to how mcp.json starts the server, its command
  // and arguments (or URL) and folder, but not its environment variables
  // (a value there may be a token): each line says which, where "started
  // as now" promised a change to the environment would ask again.
  it('says, for every MCP grant, which part of how the server is started it is bound to, and that a call reading beyond the workspace asks', () => {
    const bound = /same (definition and )?start, its environment aside\)/
    const views: Array<[ConsentView, string]> = [
      ...(['mcp-tool', 'mcp-read', 'mcp-prompt'] as const).map((scope): [ConsentView, string] => [
        serverWideView(['write_note'], {
          alwaysAllow: { offered: true, scope, prompt: 'summarise' },
        } as never),
        CONSEQUENCE_IDS.alwaysAllow,
      ]),
    ]
    for (const [view, id] of views) {
      freshPage()
      start()
      inbox.deliver(view)
      expect(text(id)).toMatch(bound)
    }
    // Nor does any MCP grant answer a call naming a place outside the
    // workspace and the server's own folder (a private read): the line
    // with "any arguments" says so.
    for (const [view] of views.slice(0, 3)) {
      freshPage()
      start()
      inbox.deliver(view)
      expect(text(CONSEQUENCE_IDS.alwaysAllow)).toContain('outside the workspace and its folder')
    }
    freshPage()
    start()
    inbox.deliver(serverWideView(['write_note'], { lang: 'zh-CN' } as never))
    expect(text(CONSEQUENCE_IDS.alwaysAllow)).toContain('不比较其环境变量')
    expect(text(CONSEQUENCE_IDS.alwaysAllowServer)).toContain('同上')
  })

  it('offers "Always allow every tool of <server>" for an MCP call, naming the server and counting the tools it would remember under the buttons', () => {
    start()
    inbox.deliver(serverWideView(['read_note', 'write_note']))
    const button = buttonFor('allow-always-server')
    expect(button.hidden).toBe(false)
    expect(button.textContent).toBe('Always allow every tool of Notes')
    expect(button.children).toHaveLength(0)
    expect(button.getAttribute('aria-describedby')).toBe(CONSEQUENCE_IDS.alwaysAllowServer)
    expect(text(CONSEQUENCE_IDS.alwaysAllowServer)).toBe(
      'Every tool: the 2 tools listed, as above; a change asks again.',
    )
    expect(byId(CONSEQUENCE_IDS.alwaysAllowServer).querySelectorAll('code')).toHaveLength(0)
  })

  it('lists every tool the server-wide grant would remember inside the action, before its end marker, so the scroll gate covers it', () => {
    start()
    const tools = Array.from({ length: 60 }, (_, i) => `tool_${i}_`.padEnd(40, 'x'))
    inbox.deliver(serverWideView(tools))
    const list = byId(SERVER_TOOLS_ID)
    expect(byId(CONSENT_PAGE_IDS.actionBody).contains(list)).toBe(true)
    expect(
      list.compareDocumentPosition(byId(CONSENT_PAGE_IDS.actionEnd)) &
        Node.DOCUMENT_POSITION_FOLLOWING,
    ).toBeTruthy()
    expect([...list.querySelectorAll('li > code')].map((code) => code.textContent)).toEqual(tools)
    const heading = byId(list.getAttribute('aria-labelledby') ?? '')
    expect(heading.textContent).toBe(translate('en', 'consent.action.serverTools', { count: '60' }))
    expect(byId(CONSENT_PAGE_IDS.consequences).textContent).not.toContain(tools[0])
  })

  it('draws each listed tool name display-safe: a hidden or direction-changing character shows as its code and raises the notice', () => {
    start()
    inbox.deliver(serverWideView(['read\u200Bnote', 'write\u202Eeton']))
    const names = [...byId(SERVER_TOOLS_ID).querySelectorAll('code')].map(
      (code) => code.textContent,
    )
    expect(names).toEqual(['read⟨U+200B⟩note', 'write⟨U+202E⟩eton'])
    expect(byId(SERVER_TOOLS_ID).querySelectorAll(`.${CONSENT_CLASSES.escape}`)).toHaveLength(2)
    expect(notices()).toEqual(
      expect.arrayContaining([
        translate('en', 'consent.notice.direction'),
        translate('en', 'consent.notice.hidden'),
      ]),
    )
  })

  it('says it in Chinese too, with no raw key', () => {
    start()
    inbox.deliver(serverWideView(['read_note', 'write_note'], { lang: 'zh-CN' }))
    const line = text(CONSEQUENCE_IDS.alwaysAllowServer)
    expect(line).toContain('2 个工具')
    expect(line).not.toContain('consent.')
    const heading = byId(byId(SERVER_TOOLS_ID).getAttribute('aria-labelledby') ?? '').textContent
    expect(heading).toContain('2 个工具')
    expect(heading).not.toContain('consent.')
  })

  it('withholds the server-wide option where it is not offered, and says nothing of it', () => {
    for (const serverAlwaysAllow of [undefined, { offered: false as const }]) {
      freshPage()
      start()
      inbox.deliver(
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
          ...(serverAlwaysAllow ? { serverAlwaysAllow } : {}),
        }),
      )
      expect(buttonFor('allow-always-server').hidden).toBe(true)
      expect(document.getElementById(CONSEQUENCE_IDS.alwaysAllowServer)).toBeNull()
      expect(document.getElementById(SERVER_TOOLS_ID)).toBeNull()
    }
  })

  it('puts a deceptive server name in the server-wide button as visible escapes, plain text, in stored order', () => {
    start()
    const name = 'Notes\u202Eetirw\u202C \u05D0\u05D1 tools'
    inbox.deliver(
      approvalView({
        kind: 'mcp-tool-call',
        toolName: 'write_note',
        action: {
          type: 'mcp',
          serverName: name,
          toolDescription: '',
          previewText: null,
          serverFolder: null,
        },
        alwaysAllow: { offered: true, scope: 'mcp-tool' },
        serverAlwaysAllow: { offered: true, toolNames: ['write_note'] },
      }),
    )
    const button = buttonFor('allow-always-server')
    expect(button.textContent).toContain('⟨U+202E⟩')
    expect(button.textContent).not.toContain('\u202E')
    expect(button.children).toHaveLength(0)
    expect(button.classList.contains(CONSENT_CLASSES.storedOrder)).toBe(true)
    expect(notices()).toContain(translate('en', 'consent.notice.direction'))
  })

  it('says what Deny does: the agent is told and goes on without it', () => {
    start()
    inbox.deliver(approvalView())
    expect(text(CONSEQUENCE_IDS.deny)).toBe(translate('en', 'consent.consequence.deny'))
    expect(buttonFor('deny').getAttribute('aria-describedby')).toBe(CONSEQUENCE_IDS.deny)
  })
})

describe('rendering a mode change', () => {
  it('asks whether to give the room full access and says what the person gives up', () => {
    start()
    inbox.deliver(modeChangeView())

    expect(byId(CONSENT_PAGE_IDS.modeChangeSection).hidden).toBe(false)
    expect(byId(CONSENT_PAGE_IDS.approvalSection).hidden).toBe(true)
    expect(text(CONSENT_PAGE_IDS.modeHeading)).toBe('Give Design review full access?')
    expect(text(CONSENT_PAGE_IDS.modeSentence)).toBe(
      'Change the mode of Design review from Ask for approval to Full access.',
    )
    expect(text(CONSENT_PAGE_IDS.modeFrom)).toBe('Ask for approval')
    expect(text(CONSENT_PAGE_IDS.modeTo)).toBe('Full access')
    expect(byId(CONSENT_PAGE_IDS.modeGivesUp).hidden).toBe(false)
    expect(text(CONSENT_PAGE_IDS.modeGivesUpText)).toBe(
      translate('en', 'consent.modeChange.givesUp'),
    )
    expect(buttonFor('confirm').classList.contains('consent-button-danger')).toBe(true)
    expect(buttonFor('confirm').hidden).toBe(false)
    expect(buttonFor('cancel').hidden).toBe(false)
    for (const answer of ['allow-once', 'allow-always', 'deny'] as const) {
      expect(buttonFor(answer).hidden).toBe(true)
    }
  })

  it('shows no full-access warning for a safe mode', () => {
    start()
    inbox.deliver({ ...modeChangeView(), fromMode: 'full-access', toMode: 'ask-for-approval' })
    expect(text(CONSENT_PAGE_IDS.modeHeading)).toBe('Change Design review to Ask for approval?')
    expect(byId(CONSENT_PAGE_IDS.modeGivesUp).hidden).toBe(true)
    expect(byId(CONSENT_PAGE_IDS.modeVouches).hidden).toBe(true)
    expect(buttonFor('confirm').classList.contains('consent-button-danger')).toBe(false)
  })

  it.each(['en', 'zh-CN'] as const)(
    'says in %s that confirming a narrowing accepts the replaced folder and seals the room again',
    (lang) => {
      start()
      const narrowing = { ...modeChangeView(), fromMode: 'approve-for-me', toMode: 'plan' } as const
      inbox.deliver({
        ...narrowing,
        lang,
        workspace: '/home/ada/src/design-review',
        acceptsReplacedWorkspace: true,
        resealsRoom: true,
      })
      expect(byId(CONSENT_PAGE_IDS.modeVouches).hidden).toBe(false)
      expect(text(CONSENT_PAGE_IDS.modeVouchesLabel)).toBe(
        translate(lang, 'consent.modeChange.vouchesLabel'),
      )
      expect(byId(CONSENT_PAGE_IDS.modeReplacedWorkspace).hidden).toBe(false)
      expect(text(CONSENT_PAGE_IDS.modeReplacedWorkspace)).toBe(
        translate(lang, 'consent.modeChange.acceptsReplacedWorkspace'),
      )
      expect(byId(CONSENT_PAGE_IDS.modeResealsRoom).hidden).toBe(false)
      expect(text(CONSENT_PAGE_IDS.modeResealsRoom)).toBe(
        translate(lang, 'consent.modeChange.resealsRoom'),
      )
      expect(text(CONSENT_PAGE_IDS.modeWorkspace)).toBe('/home/ada/src/design-review')

      // Each is said only of the room it is true of.
      freshPage()
      start()
      inbox.deliver({ ...narrowing, lang, resealsRoom: true })
      expect(byId(CONSENT_PAGE_IDS.modeVouches).hidden).toBe(false)
      expect(byId(CONSENT_PAGE_IDS.modeReplacedWorkspace).hidden).toBe(true)
      expect(byId(CONSENT_PAGE_IDS.modeResealsRoom).hidden).toBe(false)
    },
  )
})

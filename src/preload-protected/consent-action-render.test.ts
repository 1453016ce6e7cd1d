// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest'
import { translate } from '../common/i18n/index.ts'
import { CONSENT_PAGE_IDS } from './consent-page-ids.ts'
import { CONSEQUENCE_IDS } from './consent-consequences-render.ts'
import {
  freshPage,
  approvalView,
  inbox,
  start,
  byId,
  buttonFor,
  useConsentPage,
} from './test-support/consent-page-harness.ts'
import { body, text } from './test-support/consent-page-queries.ts'

// The happy-dom window stands in for the protected window; Chromium renders the
// built page for real in tests/consent-page.test.ts.
useConsentPage()

describe('rendering an approval', () => {
  it('asks the question in words and shows the action first, in Chinese on a dark theme', () => {
    start()
    inbox.deliver(approvalView({ lang: 'zh-CN', theme: 'dark', agentLabel: '助手' }))

    expect(document.documentElement.lang).toBe('zh-CN')
    expect(document.documentElement.dataset.theme).toBe('dark')
    expect(text(CONSENT_PAGE_IDS.title)).toBe('允许助手运行 npm test 吗？')
    expect(document.title).toBe('允许助手运行 `npm test` 吗？')
    expect(text(CONSENT_PAGE_IDS.kind)).toBe('运行命令')
    expect(text(CONSENT_PAGE_IDS.actionHeading)).toBe('将会发生什么')
    expect(body().textContent).toContain('npm test')
    expect(body().textContent).toContain('/home/ada/project')
    expect(text(CONSENT_PAGE_IDS.sandboxMode)).toBe('工作区：只能在房间的文件夹内进行更改')
    expect(text(CONSENT_PAGE_IDS.tool)).toBe('run_command')
    expect(text(CONSENT_PAGE_IDS.room)).toBe('Design review')
    expect(text(CONSENT_PAGE_IDS.digest)).toBe('0123456789ab…')
    expect(buttonFor('deny').textContent).toBe('拒绝')
    for (const answer of ['allow-once', 'allow-always', 'deny'] as const) {
      expect(buttonFor(answer).hidden).toBe(false)
    }
    for (const answer of ['confirm', 'cancel'] as const) expect(buttonFor(answer).hidden).toBe(true)
  })

  it('puts the action before room, sandbox and digest in the page', () => {
    start()
    inbox.deliver(approvalView())
    const action = byId(CONSENT_PAGE_IDS.action)
    for (const later of [
      CONSENT_PAGE_IDS.room,
      CONSENT_PAGE_IDS.sandboxMode,
      CONSENT_PAGE_IDS.digest,
    ]) {
      expect(action.compareDocumentPosition(byId(later)) & Node.DOCUMENT_POSITION_FOLLOWING).toBe(
        Node.DOCUMENT_POSITION_FOLLOWING,
      )
    }
  })

  it('shows a command line whose argument boundaries and shell are visible', () => {
    start()
    inbox.deliver(
      approvalView({
        action: {
          type: 'command',
          argv: ['rm', 'my notes.txt'],
          shell: true,
          directory: '/home/ada/project/docs',
          timeoutMs: 30_000,
        },
        alwaysAllow: { offered: false, reason: 'command-has-options' },
      }),
    )
    expect(text(CONSENT_PAGE_IDS.title)).toBe('Allow Assistant to run rm my notes.txt?')
    expect(body().textContent).toContain('/home/ada/project/docs')
    expect(body().textContent).toContain('30 s')
    expect(body().textContent).toContain(translate('en', 'consent.action.shell'))

    freshPage()
    start()
    inbox.deliver(
      approvalView({
        action: { type: 'command', argv: ['rm', 'my notes.txt'], shell: false, directory: '/p' },
      }),
    )
    expect(text(CONSENT_PAGE_IDS.title)).toContain("rm 'my notes.txt'")
  })

  it('shows a new file whole, numbered, when no change preview came with it', () => {
    start()
    inbox.deliver(
      approvalView({
        kind: 'apply-changes',
        toolName: 'write_file',
        action: {
          type: 'write',
          path: 'notes.txt',
          absolutePath: '/home/ada/project/notes.txt',
          content: 'first\nsecond\n',
        },
        alwaysAllow: { offered: true, scope: 'tool' },
      }),
    )
    expect(text(CONSENT_PAGE_IDS.title)).toBe('Allow Assistant to write notes.txt?')
    expect(body().textContent).toContain(
      translate('en', 'consent.action.contentWhole', { lines: '2' }),
    )
    const rows = [...body().querySelectorAll('tbody tr')].map((row) =>
      [...row.querySelectorAll('td')].map((cell) => cell.textContent),
    )
    expect(rows).toEqual([
      ['1', 'first'],
      ['2', 'second'],
    ])
  })

  it("asks about an external agent's command line by the agent's name, and says it runs it itself", () => {
    start()
    inbox.deliver(
      approvalView({
        agentLabel: 'Codex CLI',
        toolName: 'agent_command',
        sandboxMode: 'danger-full-access',
        action: {
          type: 'agent-command',
          commandLine: "/bin/bash -lc 'touch a.txt'",
          directory: '/home/ada/project',
        },
        alwaysAllow: { offered: false, reason: 'agent-command-uncontained' },
      }),
    )
    expect(text(CONSENT_PAGE_IDS.title)).toBe("Allow Codex CLI to run /bin/bash -lc 'touch a.txt'?")
    expect(body().textContent).toContain('/home/ada/project')
    expect(body().textContent).toContain(translate('en', 'consent.action.agentCommand'))
    // It runs outside Assent's sandbox: each run is the person's to allow.
    expect(text(CONSEQUENCE_IDS.alwaysAllow)).toBe(
      translate('en', 'consent.consequence.noAlwaysAllow.agent-command-uncontained'),
    )
  })

  it("shows each file an external agent changes with its diff first, and the agent's own text where there is no diff", () => {
    start()
    inbox.deliver(
      approvalView({
        kind: 'apply-changes',
        agentLabel: 'Codex over ACP',
        toolName: 'agent_file_change',
        action: {
          type: 'agent-file-changes',
          changes: [
            {
              path: '/p/notes.txt',
              change: 'update',
              movePath: null,
              fileChange: {
                path: '/p/notes.txt',
                kind: 'modify',
                truncated: false,
                hunks: [
                  {
                    oldStart: 4,
                    oldLines: 1,
                    newStart: 4,
                    newLines: 1,
                    lines: [
                      { op: 'remove', text: 'old' },
                      { op: 'add', text: 'new' },
                    ],
                  },
                ],
              },
              agentDiff: null,
            },
            {
              path: '/p/other.txt',
              change: 'update',
              movePath: '/p/moved.txt',
              agentDiff: ' keep\n-drop\n+add\n',
            },
          ],
        },
        alwaysAllow: { offered: false, reason: 'agent-change-not-grantable' },
      }),
    )
    expect(text(CONSENT_PAGE_IDS.title)).toBe('Allow Codex over ACP to change 2 files?')
    const rows = [...body().querySelectorAll('tbody tr.consent-line')].map((row) =>
      [...row.querySelectorAll('td')].map((cell) => cell.textContent),
    )
    expect(rows).toEqual([
      ['4', '', '−removed', 'old'],
      ['', '4', '+added', 'new'],
    ])
    const shown = body().textContent ?? ''
    expect(shown.indexOf('/p/notes.txt')).toBeLessThan(shown.indexOf('/p/other.txt'))
    expect(shown).toContain('/p/moved.txt')
    expect(shown).toContain(translate('en', 'consent.action.agentDiff'))
    expect(body().querySelector('pre')?.textContent).toBe(' keep\n-drop\n+add\n')
    expect(text(CONSEQUENCE_IDS.alwaysAllow)).toBe(
      translate('en', 'consent.consequence.noAlwaysAllow.agent-change-not-grantable'),
    )
  })

  it('names the one file an external agent changes in the question', () => {
    start()
    inbox.deliver(
      approvalView({
        kind: 'apply-changes',
        agentLabel: 'Codex CLI',
        toolName: 'agent_file_change',
        action: {
          type: 'agent-file-changes',
          changes: [{ path: '/p/new.txt', change: 'add', movePath: null, agentDiff: null }],
        },
        alwaysAllow: { offered: true, scope: 'agent-file' },
      }),
    )
    expect(text(CONSENT_PAGE_IDS.title)).toBe('Allow Codex CLI to change /p/new.txt?')
    expect(text(CONSEQUENCE_IDS.alwaysAllow)).toContain('(/p/new.txt)')
  })

  it('shows a change preview as hunks with old and new line numbers', () => {
    start()
    inbox.deliver(
      approvalView({
        kind: 'apply-changes',
        toolName: 'write_file',
        action: {
          type: 'write',
          path: 'notes.txt',
          absolutePath: '/home/ada/project/notes.txt',
          content: 'a\nB\nc\n',
          fileChange: {
            path: 'notes.txt',
            kind: 'modify',
            truncated: false,
            hunks: [
              {
                oldStart: 10,
                oldLines: 3,
                newStart: 10,
                newLines: 3,
                lines: [
                  { op: 'context', text: 'a' },
                  { op: 'remove', text: 'b' },
                  { op: 'add', text: 'B' },
                  { op: 'context', text: 'c' },
                ],
              },
            ],
          },
        },
      }),
    )
    const rows = [...body().querySelectorAll('tbody tr.consent-line')].map((row) =>
      [...row.querySelectorAll('td')].map((cell) => cell.textContent),
    )
    expect(rows).toEqual([
      ['10', '10', '', 'a'],
      ['11', '', '−removed', 'b'],
      ['', '11', '+added', 'B'],
      ['12', '12', '', 'c'],
    ])
    expect(body().querySelector('.consent-hunk')?.textContent).toBe('Lines 10–12')
    // Not cut: the whole new content is not repeated below.
    expect(body().textContent).not.toContain(translate('en', 'consent.action.truncated'))
  })

  it('says when a change preview was cut short, and shows the whole new content after it', () => {
    start()
    inbox.deliver(
      approvalView({
        kind: 'apply-changes',
        toolName: 'write_file',
        action: {
          type: 'write',
          path: 'big.txt',
          absolutePath: '/p/big.txt',
          content: 'x\ny\n',
          fileChange: {
            path: 'big.txt',
            kind: 'create',
            truncated: true,
            hunks: [
              {
                oldStart: 0,
                oldLines: 0,
                newStart: 1,
                newLines: 1,
                lines: [{ op: 'add', text: 'x' }],
              },
            ],
          },
        },
      }),
    )
    expect(body().textContent).toContain(translate('en', 'consent.action.newFileOne'))
    expect(body().textContent).toContain(translate('en', 'consent.action.truncated'))
    expect(body().querySelectorAll('table')).toHaveLength(2)
  })

  /** An MCP call on Notes, with `action` fields as given. */
  const mcpCall = (action: {
    toolDescription: string
    previewText: string | null
    serverFolder: string | null
  }) =>
    approvalView({
      kind: 'mcp-tool-call',
      toolName: 'write_note',
      action: { type: 'mcp', serverName: 'Notes', ...action },
      argumentsText: '{\n  "name": "plan.txt"\n}',
      alwaysAllow: { offered: true, scope: 'mcp-tool' },
    })

  it('shows an MCP call with its server, tool, arguments, what the server says and its preview', () => {
    start()
    const hostile = '<img src=x onerror=alert(1)>'
    inbox.deliver(
      mcpCall({
        toolDescription: `Writes a note ${hostile}`,
        previewText: 'plan.txt: absent -> "ship"',
        serverFolder: null,
      }),
    )
    expect(text(CONSENT_PAGE_IDS.kind)).toBe('MCP tool call')
    expect(text(CONSENT_PAGE_IDS.title)).toBe('Allow Notes to run write_note?')
    const shown = body().textContent ?? ''
    for (const part of ['Notes', 'write_note', '"name": "plan.txt"', hostile, 'plan.txt: absent']) {
      expect(shown).toContain(part)
    }
    expect(document.querySelectorAll('img')).toHaveLength(0)
    // No folder (a server over HTTP, or the built-in one): none is shown.
    expect(shown).not.toContain('Server works in')
  })

  it('shows the folder an MCP server works in, where its relative arguments lead', () => {
    start()
    inbox.deliver(
      mcpCall({ toolDescription: 'Writes a note', previewText: null, serverFolder: '/srv/notes' }),
    )
    expect(body().textContent).toContain('Server works in/srv/notes')
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
    expect(text(CONSENT_PAGE_IDS.escalation)).toBe('')
  })

  it('renders markup in the action as text and creates no element', () => {
    start()
    const hostile = '<img src=x onerror=alert(1)><script>alert(2)</script>'
    inbox.deliver(
      approvalView({
        action: { type: 'other' },
        argumentsText: hostile,
        toolName: hostile,
        roomLabel: hostile,
      }),
    )
    expect(body().textContent).toContain(hostile)
    expect(text(CONSENT_PAGE_IDS.room)).toBe(hostile)
    expect(document.querySelectorAll('img, script')).toHaveLength(0)
  })
})

import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { TEST_TIMEOUT_MS } from '../scripts/test-timing.ts'
import type { ConsentView } from '../src/common/consent-view.ts'
import { CONSENT_CLASSES, CONSENT_PAGE_IDS } from '../src/preload-protected/consent-page-ids.ts'
import type { ProtectedPage } from './support/cdp-protected-page.ts'
import {
  approvalView,
  axeViolations,
  chromiumReady,
  useConsentBrowser,
  waitForEnabled,
} from './support/consent-page-browser.ts'

// The redesigned window as a person sees it, in real Chromium: each case is
// laid out, measured (nothing cut sideways, the buttons in view), checked
// with axe, and pictured in the run's screenshot folder.

const WINDOW = { width: 560, height: 680 }
const NARROW = { width: 760, height: 600 }

const noteLines = Array.from({ length: 80 }, (_, i) => `line ${i + 1}: a note that goes on a while`)

const CASES: ReadonlyArray<{
  name: string
  view: ConsentView
  viewport?: { width: number; height: number }
  title: string
}> = [
  {
    name: 'protected-long-action',
    view: approvalView({
      kind: 'mcp-tool-call',
      toolName: 'write_note',
      action: {
        type: 'mcp',
        serverName: 'Notes',
        toolDescription: 'Writes a note to the notes folder.',
        previewText: 'plan.txt: absent -> 80 lines',
        serverFolder: null,
      },
      argumentsText: JSON.stringify({ name: 'plan.txt', lines: noteLines }, null, 2),
      alwaysAllow: { offered: true, scope: 'mcp-tool' },
    }),
    title: 'Allow Notes to run write_note?',
  },
  {
    name: 'protected-diff',
    view: approvalView({
      kind: 'apply-changes',
      toolName: 'write_file',
      action: {
        type: 'write',
        path: 'notes.txt',
        absolutePath: '/home/ada/project/notes.txt',
        content: '## Plan\n\n- ship on Monday\n- tell the team\n',
        fileChange: {
          path: 'notes.txt',
          kind: 'modify',
          truncated: false,
          hunks: [
            {
              oldStart: 1,
              oldLines: 3,
              newStart: 1,
              newLines: 4,
              lines: [
                { op: 'context', text: '## Plan' },
                { op: 'context', text: '' },
                { op: 'remove', text: '- ship on Friday' },
                { op: 'add', text: '- ship on Monday' },
                { op: 'add', text: '- tell the team' },
              ],
            },
          ],
        },
      },
      alwaysAllow: { offered: true, scope: 'tool' },
    }),
    title: 'Allow Assistant to write notes.txt?',
  },
  {
    name: 'protected-diff-dark',
    view: approvalView({
      theme: 'dark',
      kind: 'apply-changes',
      toolName: 'write_file',
      action: {
        type: 'write',
        path: 'notes.txt',
        absolutePath: '/home/ada/project/notes.txt',
        content: 'hello\u200B\n',
        fileChange: {
          path: 'notes.txt',
          kind: 'modify',
          truncated: true,
          hunks: [
            {
              oldStart: 4,
              oldLines: 1,
              newStart: 4,
              newLines: 1,
              lines: [
                { op: 'remove', text: 'hello' },
                { op: 'add', text: 'hello\u200B' },
              ],
            },
          ],
        },
      },
      alwaysAllow: { offered: true, scope: 'tool' },
    }),
    title: 'Allow Assistant to write notes.txt?',
  },
  {
    name: 'protected-always-allow-scope',
    view: approvalView({
      kind: 'apply-changes',
      toolName: 'delete_file',
      action: {
        type: 'delete',
        path: 'old.log',
        absolutePath: '/home/ada/project/old.log',
        recursive: false,
      },
      alwaysAllow: { offered: true, scope: 'path' },
    }),
    title: 'Allow Assistant to delete old.log?',
  },
  {
    name: 'protected-mode-change-full-access',
    view: {
      subject: 'mode-change',
      promptId: 'mode-1',
      roomLabel: 'Design review',
      fromMode: 'ask-for-approval',
      toMode: 'full-access',
      lang: 'en',
      theme: 'light',
      enableDelayMs: 600,
    },
    title: 'Give Design review full access?',
  },
  {
    name: 'deceptive-text',
    view: approvalView({
      kind: 'apply-changes',
      toolName: 'wr\u0456te_file',
      action: {
        type: 'write',
        path: 'invoice\u202Etxt.exe',
        absolutePath: '/home/ada/project/invoice\u202Etxt.exe',
        content: 'ok\u200B\n\u001B[2Jcleared\n',
      },
      alwaysAllow: { offered: true, scope: 'tool' },
    }),
    title: 'Allow Assistant to write invoice⟨U+202E⟩txt.exe?',
  },
  {
    name: 'protected-approval-zh-dark',
    view: approvalView({
      lang: 'zh-CN',
      theme: 'dark',
      agentLabel: '助手',
      action: {
        type: 'command',
        argv: ['npm', 'run', 'build', '--', '--watch'],
        shell: true,
        directory: '/home/ada/project',
        timeoutMs: 60_000,
      },
      alwaysAllow: { offered: false, reason: 'command-has-options' },
    }),
    title: '允许助手运行 npm run build -- --watch 吗？',
  },
  {
    name: 'protected-approval-narrow',
    view: approvalView(),
    viewport: NARROW,
    title: 'Allow Assistant to run git status?',
  },
]

interface Layout {
  title: string
  horizontalOverflow: boolean
  buttonsInView: boolean
  visibleButtons: number
  rawHidden: boolean
  escapesStyled: boolean
}

/** What a person would see go wrong: text cut sideways, buttons off screen,
 *  a hidden character rendered raw, an escape drawn like plain text. */
const measure = (consent: ProtectedPage) =>
  consent.page.evaluate(`(() => {
    const root = document.documentElement
    const heading = document.querySelector('section:not([hidden]) h1')
    const buttons = [...document.querySelectorAll('button')].filter((b) => !b.hidden)
    const escapes = [...document.querySelectorAll('.${CONSENT_CLASSES.escape}')]
    const text = document.body.innerText
    return {
      title: heading ? heading.textContent : '',
      horizontalOverflow: root.scrollWidth > root.clientWidth,
      buttonsInView: buttons.every((b) => {
        const r = b.getBoundingClientRect()
        return r.left >= 0 && r.right <= innerWidth && r.top >= 0 && r.bottom <= innerHeight
      }),
      visibleButtons: buttons.length,
      rawHidden: /[\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F\\u200B-\\u200F\\u202A-\\u202E\\u2066-\\u2069\\uFEFF]/.test(text),
      escapesStyled: escapes.every((e) =>
        getComputedStyle(e).backgroundColor !== getComputedStyle(e.parentElement).backgroundColor),
    }
  })()`) as Promise<Layout>

describe.skipIf(!chromiumReady)(
  'the protected window, laid out in Chromium',
  { timeout: TEST_TIMEOUT_MS },
  () => {
    const browser = useConsentBrowser()

    for (const { name, view, viewport, title } of CASES) {
      it(`lays out ${name}: the question as title, nothing cut, buttons in view, no axe violation`, async () => {
        const consent = await browser.open(viewport ?? WINDOW)
        await consent.show(view)
        await waitForEnabled(consent, view.subject === 'mode-change' ? 'cancel' : 'deny')
        const layout = await measure(consent)
        expect(layout).toEqual({
          title,
          horizontalOverflow: false,
          buttonsInView: true,
          visibleButtons:
            view.subject === 'approval' && !view.alwaysAllow.offered
              ? 2
              : view.subject === 'mode-change'
                ? 2
                : 3,
          rawHidden: false,
          escapesStyled: true,
        })
        expect(await axeViolations(consent)).toEqual([])
        await consent.page.screenshot({ path: join(browser.screenshots, `${name}.png`) })
      })
    }

    it('warns above the buttons about each kind of deceptive text it shows', async () => {
      const deceptive = CASES.find((entry) => entry.name === 'deceptive-text')
      if (!deceptive) throw new Error('no deceptive-text case')
      const consent = await browser.open(WINDOW)
      await consent.show(deceptive.view)
      await waitForEnabled(consent, 'deny')
      const notices = await consent.page.evaluate(
        `[...document.querySelectorAll('#${CONSENT_PAGE_IDS.notices} .${CONSENT_CLASSES.notice}')].map((n) => n.className)`,
      )
      expect(notices).toEqual([
        `${CONSENT_CLASSES.notice} ${CONSENT_CLASSES.notice}-direction`,
        `${CONSENT_CLASSES.notice} ${CONSENT_CLASSES.notice}-hidden`,
        `${CONSENT_CLASSES.notice} ${CONSENT_CLASSES.notice}-confusable`,
      ])
      const above = await consent.page.evaluate(`
        document.getElementById('${CONSENT_PAGE_IDS.notices}').getBoundingClientRect().bottom <=
        document.getElementById('assent-deny').getBoundingClientRect().top`)
      expect(above).toBe(true)
    })
  },
)

import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { TEST_TIMEOUT_MS } from '../scripts/test-timing.ts'
import type { Language, Theme } from '../src/common/consent-view.ts'
import { CONSENT_PAGE_IDS } from '../src/preload-protected/consent-page-ids.ts'
import {
  CONSEQUENCE_IDS,
  SERVER_TOOLS_ID,
} from '../src/preload-protected/consent-consequences-render.ts'
import type { ProtectedPage } from './support/cdp-protected-page.ts'
import {
  approvalView,
  axeViolations,
  chromiumReady,
  isDisabled,
  POLL,
  useConsentBrowser,
  waitForEnabled,
} from './support/consent-page-browser.ts'

// The footer (notices, scroll cue, buttons, what each choice does) holds
// text whose size the agent or an MCP server decides: tool names, a server
// name, a path. In real Chromium, at the window's size and wider, it must
// stay a bounded share of the window with every button in view, cut
// nothing without a visible scroll region, and leave the server's tool
// list to the scrolled action, which the scroll gate makes the person pass.

/** The most of the window the footer may take; the action keeps the rest. */
const FOOTER_MAX_SHARE = 0.45

const WINDOWS = [
  { width: 560, height: 680 },
  { width: 760, height: 600 },
] as const

/** `count` distinct tool names of exactly `length` characters. */
const toolNames = (count: number, length: number) =>
  Array.from({ length: count }, (_, i) => `tool_${String(i).padStart(2, '0')}_`.padEnd(length, 'x'))

const SMOKE_TOOLS = ['list_dir', 'read_file', 'write_file']
const MANY_TOOLS = toolNames(60, 40)

const mcpView = (
  tools: readonly string[],
  serverName = 'Workspace files (built in)',
  theme: Theme = 'light',
  lang: Language = 'en',
) =>
  approvalView({
    theme,
    lang,
    kind: 'mcp-tool-call',
    toolName: 'write_file',
    action: {
      type: 'mcp',
      serverName,
      toolDescription: 'Writes a file in the workspace.',
      previewText: null,
      serverFolder: null,
    },
    argumentsText: JSON.stringify({ path: 'server-wide-1.txt', content: 'first' }, null, 2),
    alwaysAllow: { offered: true, scope: 'mcp-tool' },
    serverAlwaysAllow: { offered: true, toolNames: [...tools] },
  })

interface FooterLayout {
  windowHeight: number
  footerHeight: number
  contentHeight: number
  buttons: number
  buttonsInView: boolean
  footerSpills: boolean
  /** Footer parts that overflow without being a visible, reachable scroll
   *  region: text cut silently. */
  silentCuts: string[]
  /** Footer parts that scroll, each with a drawn scrollbar and reachable
   *  by keyboard. */
  scrollRegions: string[]
}

const measureFooter = (consent: ProtectedPage) =>
  consent.page.evaluate(`(() => {
    const footer = document.getElementById('${CONSENT_PAGE_IDS.actions}')
    const content = document.getElementById('${CONSENT_PAGE_IDS.content}')
    const buttons = [...footer.querySelectorAll('button')].filter((b) => !b.hidden)
    const footerRect = footer.getBoundingClientRect()
    const name = (e) => e.id || e.className
    const silentCuts = []
    const scrollRegions = []
    for (const element of [footer, ...footer.querySelectorAll('*')]) {
      if (element.scrollHeight <= element.clientHeight + 1) continue
      const style = getComputedStyle(element)
      const scrolls = style.overflowY === 'auto' || style.overflowY === 'scroll'
      const borders = parseFloat(style.borderLeftWidth) + parseFloat(style.borderRightWidth)
      const scrollbar = element.offsetWidth - element.clientWidth - borders > 0
      if (scrolls && scrollbar && element.tabIndex >= 0) scrollRegions.push(name(element))
      else silentCuts.push(name(element))
    }
    return {
      windowHeight: innerHeight,
      footerHeight: footerRect.height,
      contentHeight: content.getBoundingClientRect().height,
      buttons: buttons.length,
      buttonsInView: buttons.every((b) => {
        const r = b.getBoundingClientRect()
        return r.left >= 0 && r.right <= innerWidth && r.top >= footerRect.top &&
          r.bottom <= Math.min(innerHeight, footerRect.bottom)
      }),
      footerSpills: footerRect.bottom > innerHeight + 1,
      silentCuts,
      scrollRegions,
    }
  })()`) as Promise<FooterLayout>

function expectBounded(layout: FooterLayout, buttons: number) {
  expect(layout.buttons).toBe(buttons)
  expect(layout.buttonsInView).toBe(true)
  expect(layout.footerSpills).toBe(false)
  expect(layout.silentCuts).toEqual([])
  const bound = Math.floor(layout.windowHeight * FOOTER_MAX_SHARE)
  expect(layout.footerHeight).toBeLessThanOrEqual(bound)
  expect(layout.contentHeight).toBeGreaterThanOrEqual(layout.windowHeight - bound)
}

/** The server's tools as the scrolled action lists them, and whether the
 *  list comes before the action's end marker (so the scroll gate covers it). */
const listedTools = (consent: ProtectedPage) =>
  consent.page.evaluate(`(() => {
    const list = document.getElementById('${SERVER_TOOLS_ID}')
    const end = document.getElementById('${CONSENT_PAGE_IDS.actionEnd}')
    const content = document.getElementById('${CONSENT_PAGE_IDS.content}')
    if (!list) return { names: [], inContent: false, beforeEnd: false }
    return {
      names: [...list.querySelectorAll('code')].map((code) => code.textContent),
      inContent: content.contains(list),
      beforeEnd: Boolean(list.compareDocumentPosition(end) & Node.DOCUMENT_POSITION_FOLLOWING),
    }
  })()`) as Promise<{ names: string[]; inContent: boolean; beforeEnd: boolean }>

const text = (consent: ProtectedPage, id: string) =>
  consent.page.evaluate(`document.getElementById('${id}').textContent`) as Promise<string>

const scrollToEnd = (consent: ProtectedPage) =>
  consent.page.evaluate(
    `(() => { const c = document.getElementById('${CONSENT_PAGE_IDS.content}'); c.scrollTop = c.scrollHeight })()`,
  )

describe.skipIf(!chromiumReady)(
  'the protected window footer, bounded whatever the agent sends',
  { timeout: TEST_TIMEOUT_MS },
  () => {
    const browser = useConsentBrowser()

    for (const size of WINDOWS) {
      for (const [label, tools] of [
        ['3 tools', SMOKE_TOOLS],
        ['60 tools of 40 characters', MANY_TOOLS],
      ] as const) {
        it(`keeps the footer under ${FOOTER_MAX_SHARE * 100} % of a ${size.width}×${size.height} window with every button in view, for an MCP server with ${label}, and lists every tool in the scrolled action`, async () => {
          const consent = await browser.open(size)
          await consent.show(mcpView(tools))
          await waitForEnabled(consent, 'deny')
          const layout = await measureFooter(consent)
          console.log(
            `footer ${size.width}×${size.height}, ${label}: ${layout.footerHeight.toFixed(0)} px of ${layout.windowHeight}`,
          )
          expectBounded(layout, 4)
          const listed = await listedTools(consent)
          expect(listed).toEqual({ names: tools, inContent: true, beforeEnd: true })
          // The line under the buttons counts the tools and names none of them.
          const serverLine = await text(consent, CONSEQUENCE_IDS.alwaysAllowServer)
          expect(serverLine).toContain(`the ${tools.length} tools`)
          for (const tool of tools) expect(serverLine).not.toContain(tool)
          await consent.page.screenshot({
            path: join(browser.screenshots, `footer-${size.width}-${tools.length}-tools.png`),
          })
        })
      }
    }

    it('keeps "Always allow every tool" off until the listed tools have been scrolled through', async () => {
      const consent = await browser.open(WINDOWS[0])
      await consent.show(mcpView(MANY_TOOLS))
      await waitForEnabled(consent, 'deny')
      expect(await isDisabled(consent, 'allow-always-server')).toBe(true)
      expect(await isDisabled(consent, 'allow-always')).toBe(true)
      await scrollToEnd(consent)
      await waitForEnabled(consent, 'allow-always-server')
      await expect.poll(() => isDisabled(consent, 'allow-always'), POLL).toBe(false)
    })

    it('shows every line under the buttons whole once the action has been scrolled through, for a server with 3 tools', async () => {
      const consent = await browser.open(WINDOWS[0])
      await consent.show(mcpView(SMOKE_TOOLS))
      await scrollToEnd(consent)
      await waitForEnabled(consent, 'allow-always-server')
      const cut = () =>
        consent.page.evaluate(`(() => {
          const lines = document.getElementById('${CONSENT_PAGE_IDS.consequences}')
          return lines.scrollHeight > lines.clientHeight + 1 || lines.classList.contains('consent-cut')
        })()`)
      await expect.poll(cut, POLL).toBe(false)
      expectBounded(await measureFooter(consent), 4)
    })

    it('puts a very long path and server name under the buttons in a visible scroll region, never cut silently', async () => {
      const longPath = `/home/ada/${'deeply-nested-folder/'.repeat(120)}old.log`
      const longServer = `Server ${'with a very long name '.repeat(40)}`
      for (const [view, buttons] of [
        [
          approvalView({
            kind: 'apply-changes',
            toolName: 'delete_file',
            action: { type: 'delete', path: 'old.log', absolutePath: longPath, recursive: false },
            alwaysAllow: { offered: true, scope: 'path' },
          }),
          3,
        ],
        [mcpView(MANY_TOOLS, longServer), 4],
      ] as const) {
        for (const size of WINDOWS) {
          const consent = await browser.open(size)
          await consent.show(view)
          await waitForEnabled(consent, 'deny')
          const layout = await measureFooter(consent)
          expectBounded(layout, buttons)
          expect(layout.scrollRegions).toEqual([CONSENT_PAGE_IDS.consequences])
          // Cut to fit, not shortened: the whole text is still there to scroll to.
          const line = await text(consent, CONSEQUENCE_IDS.alwaysAllowServer).catch(() => '')
          const always = await text(consent, CONSEQUENCE_IDS.alwaysAllow)
          expect(`${always} ${line}`).toContain(
            view.action.type === 'delete' ? longPath : longServer.trim(),
          )
          await consent.close()
        }
      }
    })

    it('bounds the footer in Chinese too, with no raw key, and no axe violation in the dark theme', async () => {
      const consent = await browser.open(WINDOWS[0])
      await consent.show(mcpView(MANY_TOOLS, '工作区文件', 'dark', 'zh-CN'))
      await waitForEnabled(consent, 'deny')
      expectBounded(await measureFooter(consent), 4)
      expect((await listedTools(consent)).names).toEqual(MANY_TOOLS)
      const body = (await consent.page.evaluate('document.body.innerText')) as string
      expect(body).not.toMatch(/consent\.[a-z]/)
      expect(await text(consent, CONSEQUENCE_IDS.alwaysAllowServer)).toContain('60 个工具')
      expect(await axeViolations(consent)).toEqual([])
      await scrollToEnd(consent)
      await waitForEnabled(consent, 'allow-always-server')
      await consent.page.screenshot({
        path: join(browser.screenshots, 'footer-60-tools-zh-dark.png'),
      })
    })

    for (const theme of ['light', 'dark'] as const) {
      it(`has no axe violation with 60 tools and a footer scroll region, ${theme}`, async () => {
        const consent = await browser.open(WINDOWS[0])
        await consent.show(
          mcpView(MANY_TOOLS, `Server ${'with a very long name '.repeat(20)}`, theme),
        )
        await waitForEnabled(consent, 'deny')
        expect(await axeViolations(consent)).toEqual([])
        await consent.page.screenshot({
          path: join(browser.screenshots, `footer-60-tools-${theme}.png`),
        })
      })
    }
  },
)

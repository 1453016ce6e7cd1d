import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { CaseDefinition } from '../case-context.ts'
import { WAIT_TIMEOUT_MS, waitFor } from '../workbench-ui.ts'
import { askFor, closedSoon, openReview } from './manual-cases.ts'

/** The file name the deceptive-text case writes: reads as "invoiceexe.txt"
 *  where the text's direction is honoured, and is really "invoice", U+202E
 *  (right-to-left override), "txt.exe". */
const DECEPTIVE_NAME = 'invoice\u202Etxt.exe'

/** File cases: what the protected window shows of a file write. They need
 *  approvals that ask (a room in ask-for-approval). */
export const fileCases: CaseDefinition[] = [
  {
    id: 'deceptive-text',
    title:
      'A file name with a hidden direction override is shown as a visible escape, with a warning',
    screenshots: ['deceptive-text.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const approval = await askFor(context, page, `write ${DECEPTIVE_NAME} quarterly numbers`)
      const consent = await openReview(context, page, approval.id)
      const shown = await consent.page.evaluate(() => ({
        text: document.body.innerText,
        escapes: [...document.querySelectorAll('.consent-escape')].map((e) => e.textContent),
        notices: [...document.querySelectorAll('.consent-notice')].map((e) => e.className),
      }))
      context.check(
        'the override is drawn as a visible escape',
        shown.escapes.includes('⟨U+202E⟩'),
        JSON.stringify(shown.escapes),
      )
      context.check(
        'the raw override character is nowhere in the window',
        !shown.text.includes('\u202E'),
      )
      context.check(
        'the window warns about direction-changing text above the buttons',
        shown.notices.some((name) => name.includes('consent-notice-direction')),
        JSON.stringify(shown.notices),
      )
      await context.screenshot(
        consent.page,
        'deceptive-text.png',
        'A write to invoice⟨U+202E⟩txt.exe: the override shown as an escape, and the warning',
      )
      await consent.page.click('#assent-deny')
      context.check('the window closes after Deny', await closedSoon(consent))
      context.check(
        'nothing was written',
        !existsSync(join(context.driver.workspace, DECEPTIVE_NAME)),
      )
    },
  },
  {
    id: 'protected-diff',
    title: 'Overwriting a file shows the numbered diff against its current content',
    screenshots: ['protected-diff.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const file = join(context.driver.workspace, 'plan.txt')
      const lines = Array.from({ length: 12 }, (_, i) => `step ${i + 1}`)
      await writeFile(file, `${lines.join('\n')}\n`)
      const approval = await askFor(context, page, 'write plan.txt step 1')
      const consent = await openReview(context, page, approval.id)
      const shown = await consent.page.evaluate(() => ({
        diff: document.querySelector('.consent-diff') !== null,
        removed: [...document.querySelectorAll('.consent-line-remove')].map(
          (row) => (row as HTMLElement).innerText,
        ),
        added: [...document.querySelectorAll('.consent-line-add')].map(
          (row) => (row as HTMLElement).innerText,
        ),
      }))
      context.check('the window draws a diff, not the whole content', shown.diff)
      context.check(
        'the removed lines are the current ones, numbered',
        shown.removed.length === 12 &&
          shown.removed.some((row) => /\b12\b/.test(row) && row.includes('step 12')),
        JSON.stringify(shown.removed.slice(-2)),
      )
      context.check(
        'the added line is the new content',
        shown.added.length === 1 && (shown.added[0] ?? '').includes('step 1'),
        JSON.stringify(shown.added),
      )
      await context.screenshot(
        consent.page,
        'protected-diff.png',
        'Overwriting plan.txt: the numbered diff against its current content',
      )
      // The diff is longer than the window: Allow stays off until the end of
      // the action has been in view.
      await consent.page.locator('#assent-action-end').scrollIntoViewIfNeeded()
      await consent.page.waitForSelector('#assent-allow-once:not([disabled])', {
        timeout: WAIT_TIMEOUT_MS,
      })
      await consent.page.click('#assent-allow-once')
      context.check('the window closes after Allow', await closedSoon(consent))
      // The tool may still be writing when the window closes: wait for the
      // content, and report what is there if it never arrives.
      const readNow = () => readFile(file, 'utf8').catch(() => '(missing)')
      const written = await waitFor(
        async () => ((await readNow()) === 'step 1' ? 'step 1' : undefined),
        'plan.txt with the allowed content',
      ).catch(readNow)
      context.check('the file holds exactly the allowed content', written === 'step 1', written)
    },
  },
  {
    id: 'sandboxed-command',
    title:
      'An allowed command runs in the OS sandbox: the window says what it can do, and it writes only inside the workspace',
    screenshots: ['sandboxed-command.png'],
    async run(context) {
      const page = await context.driver.workbench()
      const workspace = context.driver.workspace
      const escape = join(workspace, '..', 'escape.txt')
      const inside = join(workspace, 'inside.txt')
      const approval = await askFor(
        context,
        page,
        `run sh -c 'echo x > ../escape.txt; echo y > inside.txt'`,
      )
      const consent = await openReview(context, page, approval.id)
      const line = await consent.page.evaluate(() => {
        const element = document.getElementById('assent-containment')
        return {
          text: element?.textContent ?? '',
          hidden: element?.hidden ?? true,
          danger: element?.classList.contains('consent-containment-uncontained') ?? true,
        }
      })
      context.check(
        'the window shows the sandbox line: changes only in the workspace, no network, keys hidden',
        !line.hidden &&
          !line.danger &&
          line.text.includes(workspace) &&
          line.text.includes('no network') &&
          line.text.includes('keys'),
        line.text,
      )
      await context.screenshot(
        consent.page,
        'sandboxed-command.png',
        "Allowing sh -c 'echo x > ../escape.txt; echo y > inside.txt': the window's sandbox line says where it can change files",
      )
      await consent.page.click('#assent-allow-once')
      context.check('the window closes after Allow', await closedSoon(consent))
      // Made by the redirection before `echo` writes to it: read once it
      // holds something, so an empty file mid-write is never the answer.
      const written = await waitFor(async () => {
        const text = existsSync(inside) ? await readFile(inside, 'utf8') : ''
        return text === '' ? undefined : text
      }, 'inside.txt written by the allowed command').catch(() => '(missing)')
      context.check('inside.txt was written in the workspace', written === 'y\n', written)
      context.check(
        '../escape.txt, outside the workspace, was not written',
        !existsSync(escape),
        escape,
      )
    },
  },
]

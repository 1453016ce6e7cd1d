import { existsSync, readFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  buttonsEnabled,
  chromiumAvailable,
  startHostHarness,
  type HostHarness,
} from './support/cdp-host-harness.ts'
import { eventually } from './support/runtime-harness.ts'
import { scaledMs } from '../scripts/test-timing.ts'
import { pressEscapeToCancel } from '../scripts/smoke/consent-keys.ts'
import { CDP_PROTECTED_BINDING, CDP_PROTECTED_WORLD } from '../src/common/cdp-names.ts'
import { parseWorkbenchError } from '../src/common/workbench-error.ts'
import { CdpHost } from '../src/main/cdp/cdp-host.ts'
import { WINDOW_LEFT_PAGE } from '../src/main/core/consent-controller.ts'
import { testSecrets } from './support/test-secrets.ts'

const run = chromiumAvailable()
let h: HostHarness

beforeAll(async () => {
  if (run) h = await startHostHarness()
})
afterAll(async () => {
  await h?.close()
})

async function status(approvalId: string): Promise<string> {
  return (await h.host.services.client.getApproval(approvalId)).approval.status
}

describe.runIf(run)('the protected window on the CDP host (real Chromium)', () => {
  it('refuses a second host on the same data folder and keeps the first one working', async () => {
    await expect(
      CdpHost.start({
        dataDir: join(h.root, 'data'),
        secrets: testSecrets(join(h.root, 'data'), randomBytes(32)),
      }),
    ).rejects.toThrow(/is in use by another Assent/)
    await expect(h.gui('listRooms')).resolves.toMatchObject({ status: 200 })
  })

  it('allows only after a trusted click on "Allow once", and the tool really runs', async () => {
    const roomId = await h.createRoom()
    const approvalId = await h.pendingApproval(roomId, 'write allowed.txt via-window')
    const review = h.gui('reviewApproval', approvalId)
    const consent = await h.nextWindow()
    await buttonsEnabled(consent)
    await consent.page.click('#assent-allow-once')
    await expect(review).resolves.toMatchObject({ status: 'decided', decision: 'allow-once' })
    const path = join(h.workspace, 'allowed.txt')
    // The tool may still be writing when the file appears: wait for the content.
    await eventually(
      () => (existsSync(path) && readFileSync(path, 'utf8') === 'via-window') || undefined,
      'the file with the approved content',
    )
    expect(consent.channel.refusals).toEqual([])
  })

  it('has no assentGui and no binding in the protected window main world', async () => {
    const roomId = await h.createRoom()
    const approvalId = await h.pendingApproval(roomId, 'write probe.txt x')
    const review = h.gui('reviewApproval', approvalId)
    const consent = await h.nextWindow()
    await buttonsEnabled(consent)
    const globals = await consent.page.evaluate(() => ({
      gui: typeof (window as unknown as Record<string, unknown>).assentGui,
      send: typeof (window as unknown as Record<string, unknown>).assentProtectedSend,
      receive: typeof (window as unknown as Record<string, unknown>).__assentProtectedReceive,
    }))
    expect(globals).toEqual({ gui: 'undefined', send: 'undefined', receive: 'undefined' })
    // If the window is already gone, say why (the prompt's outcome).
    if (!consent.isVisible())
      expect.fail(`the window closed early: ${JSON.stringify(await review)}`)
    await pressEscapeToCancel(consent.page)
    await expect(review).resolves.toEqual({ status: 'cancelled' })
    expect(await status(approvalId)).toBe('pending')
  })

  it('ignores a scripted click from the page main world: the real Deny after it decides', async () => {
    const roomId = await h.createRoom()
    const approvalId = await h.pendingApproval(roomId, 'write scripted.txt x')
    const review = h.gui('reviewApproval', approvalId)
    const consent = await h.nextWindow()
    await buttonsEnabled(consent)
    await consent.page.evaluate(() => document.getElementById('assent-allow-once')?.click())
    await consent.page.evaluate(() =>
      document
        .getElementById('assent-allow-once')
        ?.dispatchEvent(new MouseEvent('click', { bubbles: true, detail: 1 })),
    )
    // No fixed wait: the scripted clicks and the real one reach main in
    // order through the same binding, so a scripted Allow that had been
    // taken would have decided first and the review would say allow-once.
    await consent.page.click('#assent-deny')
    await expect(review).resolves.toMatchObject({ status: 'decided', decision: 'deny' })
    expect(await status(approvalId)).toBe('denied')
    expect(existsSync(join(h.workspace, 'scripted.txt'))).toBe(false)
  })

  it('ignores a trusted click that lands before the buttons are enabled: the later Deny decides', async () => {
    // A long delay (scaled like every margin) makes "before" hold even on a
    // machine loaded enough that seconds pass between rendering and click.
    const slow = await startHostHarness({ enableDelayMs: scaledMs(10_000) })
    try {
      const roomId = await slow.createRoom()
      const approvalId = await slow.pendingApproval(roomId, 'write early.txt x')
      const review = slow.gui('reviewApproval', approvalId)
      const consent = await slow.nextWindow()
      await consent.page.waitForFunction(() => document.documentElement.dataset.theme !== undefined)
      await consent.page.click('#assent-allow-once', { force: true })
      // Still disabled after the click, so the click came before the delay.
      expect(
        await consent.page.locator('#assent-allow-once').isDisabled(),
        'the click landed before the enable delay ended (raise ASSENT_TIME_SCALE if not)',
      ).toBe(true)
      // The early Allow and the later Deny travel the same way in order: had
      // the early one been taken, the review would say allow-once.
      await buttonsEnabled(consent, 'assent-deny')
      await consent.page.click('#assent-deny')
      await expect(review).resolves.toMatchObject({ status: 'decided', decision: 'deny' })
      expect((await slow.host.services.client.getApproval(approvalId)).approval.status).toBe(
        'denied',
      )
    } finally {
      await slow.close()
    }
  })

  it('renders markup in the action as text', async () => {
    const roomId = await h.createRoom()
    const payload = '<img src=x onerror=alert(1)><script>window.pwned=1</script>'
    const approvalId = await h.pendingApproval(roomId, `write xss.txt ${payload}`)
    const review = h.gui('reviewApproval', approvalId)
    const consent = await h.nextWindow()
    await buttonsEnabled(consent)
    const page = await consent.page.evaluate(() => ({
      images: document.querySelectorAll('img').length,
      scripts: document.querySelectorAll('script').length,
      pwned: (window as unknown as Record<string, unknown>).pwned,
      text: document.body.textContent,
    }))
    expect(page.images).toBe(0)
    expect(page.scripts).toBe(0)
    expect(page.pwned).toBeUndefined()
    expect(page.text).toContain('<img src=x onerror=alert(1)>')
    await consent.page.click('#assent-deny')
    await review
  })

  it('blocks navigation and window.open from the protected window', async () => {
    const roomId = await h.createRoom()
    const approvalId = await h.pendingApproval(roomId, 'write nav.txt x')
    const review = h.gui('reviewApproval', approvalId)
    const consent = await h.nextWindow()
    await buttonsEnabled(consent)
    const url = consent.page.url()
    const blockedExample = () =>
      consent.blockedRequests.filter((blocked) => blocked.startsWith('https://example.com')).length
    await consent.page.evaluate(() => {
      location.href = 'https://example.com/'
    })
    // Waits for the router to have refused the navigation (the event), not
    // for a while: after it the page is still the consent page.
    await eventually(() => blockedExample() >= 1 || undefined, 'the refused navigation')
    expect(consent.page.url()).toBe(url)
    expect(await consent.page.locator('#assent-deny').count()).toBe(1)
    await consent.page.evaluate(() => void window.open('https://example.com/'))
    await eventually(() => blockedExample() >= 2 || undefined, "the popup's refused request")
    await eventually(() => consent.context.pages().length === 1 || undefined, 'the popup closed')
    expect(consent.page.url()).toBe(url)
    if (!consent.isVisible())
      expect.fail(`the window closed early: ${JSON.stringify(await review)}`)
    await pressEscapeToCancel(consent.page)
    await expect(review).resolves.toEqual({ status: 'cancelled' })
  })

  it('shows the prompt again in a reloaded protected window, which then decides as before', async () => {
    const roomId = await h.createRoom()
    const approvalId = await h.pendingApproval(roomId, 'write reloaded.txt again')
    const review = h.gui('reviewApproval', approvalId)
    const consent = await h.nextWindow()
    await buttonsEnabled(consent)
    await consent.page.reload()
    await eventually(
      () =>
        consent.page
          .evaluate(() => document.getElementById('assent-title')?.textContent ?? '')
          .then((title) => (title.includes('reloaded.txt') ? title : undefined)),
      'the prompt shown again after the reload',
    )
    await buttonsEnabled(consent)
    expect(await status(approvalId)).toBe('pending')
    await consent.page.click('#assent-allow-once')
    await expect(review).resolves.toMatchObject({ status: 'decided', decision: 'allow-once' })
  })

  it('closes a protected window that left its page, and says so to the card', async () => {
    const roomId = await h.createRoom()
    const approvalId = await h.pendingApproval(roomId, 'write navigated.txt away')
    const review = h.gui('reviewApproval', approvalId)
    const consent = await h.nextWindow()
    await buttonsEnabled(consent)
    // A navigation the browser starts (the address bar) to a page that
    // needs no request, so nothing can block it: the prompt is gone. The
    // window may close before the new page has loaded, ending the goto.
    await consent.page.goto('about:blank', { waitUntil: 'commit' }).catch(() => undefined)
    await expect(review).resolves.toEqual({ status: 'closed', reason: WINDOW_LEFT_PAGE })
    expect(consent.isVisible()).toBe(false)
    expect(await status(approvalId)).toBe('pending')
  })

  it('closes the browser context of a protected window the person closed', async () => {
    const roomId = await h.createRoom()
    const approvalId = await h.pendingApproval(roomId, 'write closed.txt by-hand')
    const review = h.gui('reviewApproval', approvalId)
    const consent = await h.nextWindow()
    await buttonsEnabled(consent)
    const browser = consent.context.browser()
    expect(browser?.contexts()).toContain(consent.context)
    // The window's own close, as the person closes it: not through main.
    await consent.page.close()
    await expect(review).resolves.toEqual({ status: 'cancelled' })
    await eventually(
      () => (browser?.contexts().includes(consent.context) ? undefined : true),
      "the closed window's browser context to close",
    )
    expect(await status(approvalId)).toBe('pending')
  })

  it('focuses the open window for a second review of the same approval', async () => {
    const roomId = await h.createRoom()
    const approvalId = await h.pendingApproval(roomId, 'write twice.txt x')
    const first = h.gui('reviewApproval', approvalId)
    const consent = await h.nextWindow()
    await buttonsEnabled(consent)
    const opened = h.host.windows.opened.length
    h.host.focus.focus('elsewhere')
    const second = h.gui('reviewApproval', approvalId)
    await eventually(() => consent.isFocused() || undefined, 'the first window to be focused again')
    expect(h.host.windows.opened).toHaveLength(opened)
    await consent.page.click('#assent-deny')
    const [a, b] = await Promise.all([first, second])
    expect(a).toEqual(b)
  })

  it('refuses forged decisions and non-allowlisted calls from the workbench', async () => {
    const roomId = await h.createRoom()
    const approvalId = await h.pendingApproval(roomId, 'write forged.txt x')
    const windowsBefore = h.host.windows.opened.length
    const forged = await h.page.evaluate(
      async ([id]) => {
        const gui = (
          window as unknown as {
            assentGui: Record<string, (...args: unknown[]) => Promise<unknown>>
          }
        ).assentGui
        const outcomes: string[] = []
        for (const attempt of [
          () => gui.reviewApproval!(id, { decision: 'allow', source: 'policy' }),
          () => gui.reviewApproval!(id, 'allow-once'),
          () => gui.requestModeChange!(id, 'full-access', { source: 'policy' }),
        ]) {
          outcomes.push(
            await attempt().then(
              () => 'resolved',
              (error: Error) => error.message,
            ),
          )
        }
        return outcomes
      },
      [approvalId] as const,
    )
    for (const outcome of forged) {
      expect(parseWorkbenchError(outcome)).toMatchObject({ code: 'invalid_arguments' })
    }
    const direct = await h.page.evaluate(
      (id) =>
        new Promise<string>((resolve) => {
          document.addEventListener('assent-gui:response', (event) =>
            resolve(String((event as CustomEvent).detail)),
          )
          document.dispatchEvent(
            new CustomEvent('assent-gui:request', {
              detail: JSON.stringify({
                id: 999,
                channel: 'relay',
                args: [
                  { method: 'POST', path: `/v1/approvals/${id}`, body: { decision: 'allow-once' } },
                ],
              }),
            }),
          )
        }),
      approvalId,
    )
    const answer = JSON.parse(direct) as { ok: boolean; error: string }
    expect(answer.ok).toBe(false)
    expect(parseWorkbenchError(answer.error)).toEqual({
      code: 'relay_refused',
      detail: `not allowed from the workbench: POST /v1/approvals/${approvalId}`,
    })
    expect(await status(approvalId)).toBe('pending')
    expect(h.host.windows.opened).toHaveLength(windowsBefore)
  })
  it("refuses a decision sent through the binding from any world but the main frame's preload world", async () => {
    const roomId = await h.createRoom()
    const approvalId = await h.pendingApproval(roomId, 'write subframe.txt x')
    const review = h.gui('reviewApproval', approvalId)
    const consent = await h.nextWindow()
    await buttonsEnabled(consent)
    const promptId = consent.promptId!
    // A second DevTools session plays a script that reached another world:
    // a same-origin subframe with its own world under the preload's name,
    // where the binding (scoped by world name only) is installed too.
    const cdp = await consent.context.newCDPSession(consent.page)
    const contexts: Array<{ id: number; name: string; frameId?: string }> = []
    cdp.on('Runtime.executionContextCreated', ({ context }) =>
      contexts.push({
        id: context.id,
        name: context.name,
        frameId: (context.auxData as { frameId?: string } | undefined)?.frameId,
      }),
    )
    await cdp.send('Runtime.enable')
    await cdp.send('Page.enable')
    await cdp.send('Runtime.evaluate', {
      expression: "document.body.append(document.createElement('iframe'))",
    })
    const tree = await cdp.send('Page.getFrameTree')
    const mainFrameId = tree.frameTree.frame.id
    const childFrameId = tree.frameTree.childFrames?.[0]?.frame.id
    if (!childFrameId) throw new Error('the subframe did not appear')
    const { executionContextId: childWorld } = await cdp.send('Page.createIsolatedWorld', {
      frameId: childFrameId,
      worldName: CDP_PROTECTED_WORLD,
    })
    const send = (contextId: number, answer: string) =>
      cdp.send('Runtime.evaluate', {
        contextId,
        expression: `typeof ${CDP_PROTECTED_BINDING} === 'function' && (${CDP_PROTECTED_BINDING}(${JSON.stringify(JSON.stringify({ promptId, answer }))}), true)`,
        returnByValue: true,
      })
    const refusalsBefore = consent.channel.refusals.length
    const sent = await send(childWorld, 'allow-once')
    // The binding really was there: only the sender check stands between.
    expect(sent.result.value).toBe(true)
    await eventually(
      () => consent.channel.refusals.length > refusalsBefore || undefined,
      'the refusal',
    )
    // The deny from the preload world below is the later positive step: had
    // the subframe's allow-once been taken, the review would say so.
    expect(await status(approvalId)).toBe('pending')
    expect(consent.isVisible()).toBe(true)
    // The same message from the main frame's preload world is accepted:
    // what was refused above was the sender, not the message.
    const preloadWorld = contexts.find(
      (context) => context.name === CDP_PROTECTED_WORLD && context.frameId === mainFrameId,
    )
    if (!preloadWorld) throw new Error("the main frame's preload world was not found")
    const refusals = consent.channel.refusals.length
    expect((await send(preloadWorld.id, 'deny')).result.value).toBe(true)
    await expect(review).resolves.toMatchObject({ status: 'decided', decision: 'deny' })
    expect(consent.channel.refusals).toHaveLength(refusals)
    expect(existsSync(join(h.workspace, 'subframe.txt'))).toBe(false)
    await cdp.detach().catch(() => undefined)
  })
})

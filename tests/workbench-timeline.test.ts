import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createPendingApprovals,
  decide,
  mapLimit,
  sendMessage,
  type RuntimeAccess,
} from '../scripts/bench/runtime-fixtures.ts'
import {
  chromiumAvailable,
  startHostHarness,
  type HostHarness,
} from './support/cdp-host-harness.ts'
import { eventually } from './support/runtime-harness.ts'
import { TimelineSchema } from '../src/contracts/room.ts'
import { TIMELINE_PAGE_TURNS } from '../src/runtime/rooms/room-timeline.ts'
import { WAIT_TIMEOUT_MS } from '../scripts/test-timing.ts'
import { RECENT } from '../scripts/smoke/workbench-ui.ts'
import { ID, seriousViolations } from './support/workbench-ui-helpers.ts'

// A long room in the built workbench on the CDP host (real Chromium, real
// layout, a real runtime): the timeline mounts only the entries near its
// viewport, yet the find bar's text, the keyboard and axe see the whole room.

const run = chromiumAvailable()
const DECIDED = 40

interface ListState {
  setSize: number
  mounted: number
  findTexts: number
  newestInView: boolean
}

describe.runIf(run)('the long-room timeline (real Chromium on the CDP host)', () => {
  let h: HostHarness
  let total = 0
  let runtime: RuntimeAccess

  beforeAll(async () => {
    h = await startHostHarness({ viewport: { width: 1280, height: 760 } })
    const roomId = await h.createRoom({ title: 'Long room' })
    await h.page.click(`[data-testid="room-link"][data-room-id="${roomId}"]`)
    runtime = {
      client: h.host.services.client,
      connection: () => {
        const current = h.host.services.supervisor.current
        if (!current) throw new Error('runtime not running')
        return current
      },
    }
    const approvals = await createPendingApprovals(runtime, [roomId], DECIDED, 'long')
    await mapLimit(approvals, 4, (approval) => decide(runtime, approval, 'deny'))
    // Every card decided and every turn finished: the runtime's timeline
    // stops growing, and the page shows all of it.
    const expected = await eventually(async () => {
      const timeline = await h.gui<{
        body: { turns: Array<{ status: string }>; messages: unknown[]; toolCalls: unknown[] }
      }>('timelinePage', roomId, RECENT)
      const { turns, messages, toolCalls } = timeline.body
      const done = turns.length === DECIDED && turns.every((turn) => turn.status === 'done')
      return done ? messages.length + toolCalls.length : undefined
    }, 'every turn finished')
    total = await eventually(async () => {
      const size = await h.page.evaluate(() =>
        Number(document.querySelector('.timeline__list > li')?.getAttribute('aria-setsize') ?? 0),
      )
      return size === expected ? size : undefined
    }, 'the whole room in the timeline')
  })
  afterAll(async () => {
    await h?.close()
  })

  const listState = () =>
    h.page.evaluate((): ListState => {
      const timeline = document.querySelector('[data-testid="timeline"]')!
      const entries = [...document.querySelectorAll('.timeline__list > li')]
      const newest = entries.find(
        (entry) => entry.getAttribute('aria-posinset') === entry.getAttribute('aria-setsize'),
      )
      const view = timeline.getBoundingClientRect()
      const box = newest?.getBoundingClientRect()
      return {
        setSize: Number(entries[0]?.getAttribute('aria-setsize') ?? 0),
        mounted: entries.length,
        findTexts: document.querySelectorAll('[data-testid="entry-find-text"]').length,
        newestInView: box !== undefined && box.bottom <= view.bottom + 1 && box.top >= view.top,
      }
    })

  it('mounts only the entries near the viewport, opens at the newest, and leaves the rest to the find bar', async () => {
    // The find layer is filled in the render after the entries are drawn.
    const state = await eventually(async () => {
      const current = await listState()
      return current.mounted + current.findTexts === total ? current : undefined
    }, 'every entry mounted or in the find layer')
    expect(state.setSize).toBe(total)
    expect(state.mounted).toBeLessThan(total / 2)
    expect(state.mounted + state.findTexts).toBe(total)
    expect(state.newestInView).toBe(true)
  })

  it('keeps the words of an entry that is not mounted findable and out of layout, and mounts it when the find bar matches them', async () => {
    const word = 'long0.txt'
    const mountedWith = (text: string) =>
      h.page.evaluate(
        (words) =>
          [...document.querySelectorAll('.timeline__list > li')].some((entry) =>
            entry.textContent?.includes(words),
          ),
        text,
      )
    expect(await mountedWith(word)).toBe(false)
    const fallback = await h.page.evaluate((text) => {
      const block = [
        ...document.querySelectorAll<HTMLElement>('[data-testid="entry-find-text"]'),
      ].find((element) => element.textContent?.includes(text))
      return block
        ? {
            hidden: block.getAttribute('hidden'),
            height: block.getBoundingClientRect().height,
            visible: block.checkVisibility(),
          }
        : undefined
    }, word)
    // hidden="until-found" is what the find bar searches and reveals
    // (Chromium's window.find does not search it, so the match itself is
    // stood in for by the event the browser sends before revealing).
    expect(fallback).toEqual({ hidden: 'until-found', height: 0, visible: false })
    await h.page.evaluate((text) => {
      const block = [
        ...document.querySelectorAll<HTMLElement>('[data-testid="entry-find-text"]'),
      ].find((element) => element.textContent?.includes(text))!
      block.dispatchEvent(new Event('beforematch'))
    }, word)
    await eventually(async () => (await mountedWith(word)) || undefined, 'the found entry mounted')
  })

  it('moves the keyboard to the first and back to the newest entry, mounting each', async () => {
    await h.page.focus('.timeline__list > li[tabindex="0"]')
    await h.page.keyboard.press('Home')
    await eventually(
      () =>
        h.page.evaluate(() => document.activeElement?.getAttribute('aria-posinset') === '1') ||
        undefined,
      'focus on the first entry',
    )
    await h.page.keyboard.press('End')
    await eventually(
      async () =>
        (await h.page.evaluate(() => document.activeElement?.getAttribute('aria-posinset'))) ===
          String(total) || undefined,
      'focus on the newest entry',
    )
    await h.page.keyboard.press('ArrowUp')
    await eventually(
      async () =>
        (await h.page.evaluate(() => document.activeElement?.getAttribute('aria-posinset'))) ===
          String(total - 1) || undefined,
      'focus on the entry before the newest',
    )
  })

  it('has no serious axe violation in the long room', async () => {
    expect(await seriousViolations(h.page)).toEqual([])
  })

  it('stays at the newest entry while a question opens below the timeline and closes into it', async () => {
    const newestInView = () =>
      eventually(async () => (await listState()).newestInView || undefined, 'the newest in view')
    // The person goes back to the bottom, as with the End key.
    await h.page.evaluate(() => {
      const timeline = document.querySelector('[data-testid="timeline"]')!
      timeline.scrollTop = timeline.scrollHeight
    })
    await newestInView()
    await h.page.fill(ID.input, 'ask Notes | Anything I should know?')
    await h.page.press(ID.input, 'Enter')
    const open = '[data-testid="open-requests"] [data-testid="question-card"]'
    await h.page.waitForSelector(open)
    // The open card takes its height from the timeline's viewport.
    await newestInView()
    const requestId = await h.page.getAttribute(open, 'data-request-id')
    await h.page.fill(`${open} textarea`, 'ship after lunch')
    await h.page.click(`${open} [data-testid="question-send"]`)
    await h.page.waitForSelector(
      `[data-testid="timeline"] [data-testid="question-card"][data-request-id="${requestId}"][data-outcome="answered"]`,
    )
    await newestInView()
  })

  it('opens a room longer than a page at its newest turns, and loads the earlier ones through main', async () => {
    const roomId = await h.createRoom({ title: 'Paged room' })
    const turns = TIMELINE_PAGE_TURNS + 5
    for (let index = 0; index < turns; index += 1) await sendMessage(runtime, roomId, 'list')
    const whole = await eventually(async () => {
      const current = await runtime.client.request(
        TimelineSchema,
        'GET',
        `/v1/rooms/${roomId}/timeline`,
      )
      const done = current.turns.filter((turn) => turn.status === 'done').length === turns
      return done ? current : undefined
    }, 'every turn of the paged room finished')
    // Watches every frame from the click on: what the timeline said of its
    // earlier turns, until it holds them all.
    const watched = h.page.evaluate(
      ({ room, ceilingMs }) =>
        new Promise<{ earlier: number[]; setSize: number }>((resolve, reject) => {
          const started = performance.now()
          const earlier: number[] = []
          const check = () => {
            const timeline = document.querySelector(
              `[data-testid="room-view"][data-room-id="${room}"] [data-testid="timeline"]`,
            )
            const value = timeline?.getAttribute('data-earlier-turns')
            if (value !== null && value !== undefined && Number(value) !== earlier.at(-1)) {
              earlier.push(Number(value))
            }
            if (earlier.length > 1 && earlier.at(-1) === 0) {
              const entry = document.querySelector('.timeline__list > li')
              resolve({ earlier, setSize: Number(entry?.getAttribute('aria-setsize') ?? 0) })
            } else if (performance.now() - started > ceilingMs) {
              reject(new Error(`the paged room never loaded whole: ${earlier.join(', ')}`))
            } else requestAnimationFrame(check)
          }
          requestAnimationFrame(check)
        }),
      { room: roomId, ceilingMs: WAIT_TIMEOUT_MS },
    )
    await h.page.click(`[data-testid="room-link"][data-room-id="${roomId}"]`)
    const seen = await watched
    expect(seen.earlier).toEqual([5, 0])
    expect(seen.setSize).toBe(whole.messages.length + whole.toolCalls.length)
    expect(await h.page.locator('[data-testid="timeline-earlier"]').count()).toBe(0)
  })
})

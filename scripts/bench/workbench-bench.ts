// The workbench with a long room: time until a room with many decided and
// some pending approvals is on screen after the room is opened (its newest
// entry and every open card shown; the timeline mounts only what is near its
// viewport),
// the page's JS heap, and frame gaps and long tasks while the timeline is
// scrolled with the mouse wheel. Runs on the CDP host (real Chromium).

import { mkdir, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Page } from 'playwright-core'
import { openRoom, type BenchHost } from './bench-host.ts'
import { awaitRoomShown, watchScrolling, type ScrollReport } from './page-probes.ts'
import {
  createPendingApprovals,
  decide,
  mapLimit,
  type PendingApproval,
  type RuntimeAccess,
} from './runtime-fixtures.ts'

export interface WorkbenchBenchOptions {
  decided: number
  pending: number
  /** Times the room is opened afresh (each a sample). */
  loads: number
  log: (line: string) => void
}

export interface WorkbenchBenchResult {
  cards: number
  /** Room link clicked → the room's newest entry and open cards on screen. */
  renderMs: number[]
  /** The same → every earlier turn loaded as well. */
  wholeMs: number[]
  /** JS heap used after the room is shown, after a garbage collection. */
  heapUsedBytes: number[]
  /** The same before any room was opened. */
  baseHeapUsedBytes: number
  scroll: ScrollReport[]
}

const TIMEOUT_MS = 60_000

export async function measureWorkbench(
  bench: BenchHost,
  options: WorkbenchBenchOptions,
): Promise<WorkbenchBenchResult> {
  const { page } = await bench.host.workbench()
  const cdp = await page.context().newCDPSession(page)
  try {
    await cdp.send('Performance.enable')
    const heapUsed = async () => {
      await cdp.send('HeapProfiler.collectGarbage')
      const { metrics } = await cdp.send('Performance.getMetrics')
      const value = metrics.find((metric) => metric.name === 'JSHeapUsedSize')?.value
      if (value === undefined) throw new Error('Chromium reported no JSHeapUsedSize')
      return value
    }

    const baseHeapUsedBytes = await heapUsed()
    const rooms = await makeLongRoom(bench, page, options)
    const cards = options.decided + options.pending

    const result: WorkbenchBenchResult = {
      cards,
      renderMs: [],
      wholeMs: [],
      heapUsedBytes: [],
      baseHeapUsedBytes,
      scroll: [],
    }
    for (let load = 1; load <= options.loads; load += 1) {
      const renderMs = await openLongRoom(page, rooms, options)
      result.renderMs.push(renderMs)
      // The scroll and the heap are those of the whole room: its earlier
      // turns load after the newest are drawn, when the page is idle.
      result.wholeMs.push(renderMs + (await awaitWholeTimeline(page)))
      result.heapUsedBytes.push(await heapUsed())
      result.scroll.push(await scrollTimeline(page))
      options.log(
        `workbench: load ${load}: ${cards} cards in ${Math.round(renderMs)} ms, ` +
          `the whole room in ${Math.round(result.wholeMs.at(-1) ?? 0)} ms`,
      )
    }
    return result
  } finally {
    await cdp.detach().catch(() => undefined)
  }
}

export interface LongRoom {
  /** An empty room to switch away to. */
  otherRoom: string
  roomId: string
}

/** The long room and an empty one, each opened through the room list as a
 *  person would; the long one filled through the runtime. */
export async function makeLongRoom(
  bench: BenchHost,
  page: Page,
  options: WorkbenchBenchOptions,
): Promise<LongRoom> {
  const { host } = bench
  const workspace = join(bench.workspace, 'long-room')
  await mkdir(workspace, { recursive: true })
  const runtime: RuntimeAccess = {
    client: host.services.client,
    connection: () => {
      const current = host.services.supervisor.current
      if (!current) throw new Error('runtime not running')
      return current
    },
  }
  const otherRoom = await openRoom(page, workspace, 'Other room')
  const roomId = await openRoom(page, workspace, 'Long room')
  await fillRoom(runtime, roomId, workspace, options)
  return { otherRoom, roomId }
}

/** Switches to the other room, then opens the long one from the room list:
 *  ms from the click until it is on screen (awaitRoomShown). */
export async function openLongRoom(
  page: Page,
  rooms: LongRoom,
  options: Pick<WorkbenchBenchOptions, 'decided' | 'pending'>,
): Promise<number> {
  await page.click(`[data-testid="room-link"][data-room-id="${rooms.otherRoom}"]`)
  await page.waitForSelector(`[data-testid="room-view"][data-room-id="${rooms.otherRoom}"]`)
  await sleep(200)
  const timing = page.evaluate(awaitRoomShown, {
    entries: options.decided,
    openCards: options.pending,
    timeoutMs: TIMEOUT_MS,
  })
  await page.click(`[data-testid="room-link"][data-room-id="${rooms.roomId}"]`)
  const { startedAt, renderedAt } = await timing
  return renderedAt - startedAt
}

/** Creates the room's approvals through the runtime and decides most of
 *  them (alternately allowed and denied) with consent tokens. */
async function fillRoom(
  runtime: RuntimeAccess,
  roomId: string,
  workspace: string,
  options: WorkbenchBenchOptions,
): Promise<void> {
  const all = await createPendingApprovals(
    runtime,
    [roomId],
    options.decided + options.pending,
    'w',
  )
  const toDecide: PendingApproval[] = all.slice(0, options.decided)
  await mapLimit(toDecide, 10, (approval, index) =>
    decide(runtime, approval, index % 2 === 0 ? 'allow-once' : 'deny'),
  )
  const allowed = Math.ceil(options.decided / 2)
  const deadline = Date.now() + TIMEOUT_MS
  while ((await readdir(workspace)).length < allowed) {
    if (Date.now() > deadline) throw new Error('the allowed writes never finished')
    await sleep(50)
  }
  options.log(
    `workbench: ${options.decided} decided and ${options.pending} pending approvals ready`,
  )
}

/** Ms until the timeline holds every earlier turn of the room. */
async function awaitWholeTimeline(page: Page): Promise<number> {
  const started = performance.now()
  await page.waitForSelector('[data-testid="timeline"][data-earlier-turns="0"]', {
    timeout: TIMEOUT_MS,
  })
  return performance.now() - started
}

/** Wheels the timeline from the bottom to the top and back while the page
 *  records frame gaps and long tasks. */
export async function scrollTimeline(page: Page): Promise<ScrollReport> {
  const timeline = page.locator('[data-testid="timeline"]')
  const box = await timeline.boundingBox()
  if (!box) throw new Error('the timeline is not on screen')
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
  const report = page.evaluate(watchScrolling, { selector: '[data-testid="timeline"]' })
  await page.waitForFunction(
    () => (globalThis as { assentBenchScrolling?: boolean }).assentBenchScrolling === true,
  )
  for (const direction of [-1, 1]) {
    for (let step = 0; step < 40; step += 1) {
      await page.mouse.wheel(0, direction * 600)
      await sleep(16)
    }
  }
  await page.evaluate(() => {
    ;(globalThis as { assentBenchScrolling?: boolean }).assentBenchScrolling = false
  })
  return report
}

// Consent latency on the CDP host (real Chromium, main's core, the runtime
// child process), and the same consent page loaded in a bare browser context
// as the floor. See docs/benchmarks.md for what each figure includes.

import { randomUUID } from 'node:crypto'
import { watch } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { ProtectedWindow } from '../../src/main/core/host-port.ts'
import { CONSENT_ORIGIN, CONSENT_URL, routeOnly } from '../../src/main/cdp/asset-router.ts'
import { builtAssets } from '../../src/main/cdp/built-assets.ts'
import type { CdpHost } from '../../src/main/cdp/cdp-host.ts'
import { CONSENT_CSP, type CdpProtectedWindow } from '../../src/main/cdp/protected-windows.ts'
import { BENCH_THEME, BENCH_TIMEOUT_MS, openRoom, type BenchHost } from './bench-host.ts'
import {
  consentRendered,
  epochNow,
  nextFrame,
  reviewOutcome,
  sendAndAwaitCard,
  startReview,
} from './page-probes.ts'

export interface ConsentLatencyOptions {
  runs: number
  log: (line: string) => void
}

export interface ConsentLatencyResult {
  chromiumVersion: string
  /** (a) sendMessage called in the workbench → new card on screen. */
  cardVisibleMs: number[]
  /** Part of (a): sendMessage called → main forwards approval.requested to
   *  the workbench (runtime, policy, approval commit, event stream). */
  cardEventAtMainMs: number[]
  /** (b) reviewApproval called → consent view on screen. */
  windowRenderedMs: number[]
  /** Part of (b): the host opening the window (context, page, CDP session,
   *  preload, navigation to the loaded page). */
  windowOpenMs: number[]
  /** Part of (b): window opened → view delivered and on screen. */
  viewDeliveredMs: number[]
  /** (c) trusted click on Allow once → the allowed file created on disk. */
  clickToToolMs: number[]
  /** Part of (c): click → main's consent controller has the decision
   *  (preload, CDP binding, sender checks). */
  clickToMainMs: number[]
  /** Part of (c): POST /v1/approvals/:id with the token, sent → answered
   *  (verify, commit with the audit event). */
  decideRequestMs: number[]
  /** Part of (c): decision answered → file created (the tool starting). */
  decidedToFileMs: number[]
  /** Floor for (b): new context + page + goto of the consent page with the
   *  same route fulfilment, no preload, no runtime, until its first frame. */
  barePageLoadMs: number[]
  /** Parts of the floor. */
  bareNewContextMs: number[]
  bareNewPageMs: number[]
  bareGotoMs: number[]
}

/** Node-clock times of the steps main takes, recorded by thin wrappers. */
interface MainMarks {
  eventForwarded: Map<string, number>
  decisionReceived: number[]
  decideSent: number[]
  decideAnswered: number[]
}

interface OpenTiming {
  openStartedAt: number
  openedAt: number
  renderedAt: Promise<number>
}

export async function measureConsentLatency(
  bench: BenchHost,
  options: ConsentLatencyOptions,
): Promise<ConsentLatencyResult> {
  const { host } = bench
  const workspace = join(bench.workspace, 'latency')
  await mkdir(workspace, { recursive: true })
  const timings = instrumentWindowOpening(host)
  const workbench = await host.workbench()
  const marks = instrumentMain(host, workbench)
  const { page } = workbench
  const roomId = await openRoom(page, workspace, 'Latency')
  const result: ConsentLatencyResult = {
    chromiumVersion: host.chromiumVersion,
    cardVisibleMs: [],
    cardEventAtMainMs: [],
    windowRenderedMs: [],
    windowOpenMs: [],
    viewDeliveredMs: [],
    clickToToolMs: [],
    clickToMainMs: [],
    decideRequestMs: [],
    decidedToFileMs: [],
    barePageLoadMs: [],
    bareNewContextMs: [],
    bareNewPageMs: [],
    bareGotoMs: [],
  }
  // One unmeasured run first: the first window pays for code caches.
  for (let run = 0; run <= options.runs; run += 1) {
    // Between two prompts a person reads for seconds: by then main has the
    // next protected window prepared (main/core/spare-window.ts).
    await host.windows.spareReady()
    const sample = await consentRun(host, page, roomId, workspace, timings, marks, `b${run}.txt`)
    if (run === 0) continue
    for (const key of Object.keys(sample) as Array<keyof RunSample>) {
      result[key].push(sample[key])
    }
    options.log(
      `consent: run ${run}: card ${sample.cardVisibleMs.toFixed(0)} ms, window ` +
        `${sample.windowRenderedMs.toFixed(0)} ms, click → tool ${sample.clickToToolMs.toFixed(0)} ms`,
    )
  }
  for (let run = 0; run <= options.runs; run += 1) {
    const load = await barePageLoad(host)
    if (run === 0) continue
    result.barePageLoadMs.push(load.totalMs)
    result.bareNewContextMs.push(load.newContextMs)
    result.bareNewPageMs.push(load.newPageMs)
    result.bareGotoMs.push(load.gotoMs)
  }
  return result
}

/**
 * Records, for each protected window the host opens, when opening started
 * and ended, and when the page reported its view on screen (all on this
 * process's clock). It wraps the factory's `open` and the window's `show`
 * without changing what they do; the render probe runs after `show` has
 * delivered the view.
 */
function instrumentWindowOpening(host: CdpHost): OpenTiming[] {
  const timings: OpenTiming[] = []
  const open = host.windows.open.bind(host.windows)
  host.windows.open = async (promptId, size): Promise<ProtectedWindow> => {
    const openStartedAt = epochNow()
    const window = (await open(promptId, size)) as CdpProtectedWindow
    const openedAt = epochNow()
    let rendered: (at: number) => void = () => undefined
    let failed: (error: Error) => void = () => undefined
    const renderedAt = new Promise<number>((resolve, reject) => {
      rendered = resolve
      failed = reject
    })
    renderedAt.catch(() => undefined)
    timings.push({ openStartedAt, openedAt, renderedAt })
    const show = window.show.bind(window)
    window.show = async (view) => {
      const probe = window.page.evaluate(consentRendered, {
        theme: BENCH_THEME,
        timeoutMs: BENCH_TIMEOUT_MS,
      })
      // Taken here when the page's report arrives, not in the page: see
      // consentRun on why no span mixes two processes' clocks.
      probe.then(() => rendered(epochNow()), failed)
      await show(view)
    }
    return window
  }
  return timings
}

/**
 * Records when main forwards approval.requested to the workbench, receives
 * a decision from a protected window, and sends and gets the answer to the
 * decision request. Each wrapper calls through unchanged.
 */
function instrumentMain(
  host: CdpHost,
  workbench: { send(event: { type: string; data: unknown }): void },
): MainMarks {
  const marks: MainMarks = {
    eventForwarded: new Map(),
    decisionReceived: [],
    decideSent: [],
    decideAnswered: [],
  }
  const send = workbench.send.bind(workbench)
  workbench.send = (event) => {
    const approval = (event.data as { approval?: { id?: unknown } } | undefined)?.approval
    if (event.type === 'approval.requested' && typeof approval?.id === 'string') {
      marks.eventForwarded.set(approval.id, epochNow())
    }
    send(event)
  }
  const controller = host.services.controller
  const handleDecision = controller.handleDecision.bind(controller)
  controller.handleDecision = (promptId, answer, window) => {
    marks.decisionReceived.push(epochNow())
    handleDecision(promptId, answer, window)
  }
  const client = host.services.client
  const decideApproval = client.decideApproval.bind(client)
  client.decideApproval = async (...args) => {
    marks.decideSent.push(epochNow())
    const response = await decideApproval(...args)
    marks.decideAnswered.push(epochNow())
    return response
  }
  return marks
}

interface RunSample {
  cardVisibleMs: number
  cardEventAtMainMs: number
  windowRenderedMs: number
  windowOpenMs: number
  viewDeliveredMs: number
  clickToToolMs: number
  clickToMainMs: number
  decideRequestMs: number
  decidedToFileMs: number
}

async function consentRun(
  host: CdpHost,
  page: Page,
  roomId: string,
  workspace: string,
  timings: OpenTiming[],
  marks: MainMarks,
  fileName: string,
): Promise<RunSample> {
  // Every span that crosses processes is timed on this process's clock
  // alone, from the call that starts it to the mark or report that ends it,
  // so it includes the DevTools messages to and from the page (well under a
  // millisecond on a quiet machine). Converting a page's times instead
  // needs the clocks' offset, which is off by up to half a round trip; on a
  // busy machine that was more than a click's few milliseconds to main, and
  // spans came out negative.

  // (a) the agent asks: the message goes out from the workbench page.
  const sendCalledAt = epochNow()
  const card = await page.evaluate(sendAndAwaitCard, {
    roomId,
    text: `write ${fileName} x`,
    clientRequestId: randomUUID(),
    timeoutMs: BENCH_TIMEOUT_MS,
  })

  // (b) "Review" clicked: the bridge call main receives from the card.
  const windowsBefore = timings.length
  const reviewCalledAt = epochNow()
  await page.evaluate(startReview, card.approvalId)
  const timing = await waitFor(() => timings[windowsBefore], 'a protected window')
  const renderedAt = await timing.renderedAt
  const consent = host.windows.opened.at(-1)
  if (!consent) throw new Error('the host lists no protected window')

  // (c) a trusted click on "Allow once", once the enable delay has passed:
  // the pointer goes down on the button, and the click is the release.
  const allow = consent.page.locator('#assent-allow-once:not([disabled])')
  await allow.waitFor({ timeout: BENCH_TIMEOUT_MS })
  await allow.scrollIntoViewIfNeeded()
  const box = await allow.boundingBox()
  if (!box) throw new Error('"Allow once" has no box on screen')
  await consent.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2)
  await consent.page.mouse.down()
  const created = fileCreated(workspace, fileName)
  const clickAt = epochNow()
  await consent.page.mouse.up()
  const createdAt = await created
  const outcome = (await page.evaluate(reviewOutcome)) as { status?: string } | undefined
  if (outcome?.status !== 'decided') throw new Error(`the review ended ${JSON.stringify(outcome)}`)

  const forwardedAt = marks.eventForwarded.get(card.approvalId)
  const receivedAt = marks.decisionReceived.at(-1)
  const sentAt = marks.decideSent.at(-1)
  const answeredAt = marks.decideAnswered.at(-1)
  if (!forwardedAt || !receivedAt || !sentAt || !answeredAt) {
    throw new Error('main skipped a step the bench records')
  }
  return {
    // Within the workbench page, on its own clock.
    cardVisibleMs: card.visibleAt - card.startedAt,
    cardEventAtMainMs: forwardedAt - sendCalledAt,
    windowRenderedMs: renderedAt - reviewCalledAt,
    windowOpenMs: timing.openedAt - timing.openStartedAt,
    viewDeliveredMs: renderedAt - timing.openedAt,
    clickToToolMs: createdAt - clickAt,
    clickToMainMs: receivedAt - clickAt,
    decideRequestMs: answeredAt - sentAt,
    decidedToFileMs: createdAt - answeredAt,
  }
}

/** Resolves with the time `name` appears in `folder` (inotify, not polling). */
function fileCreated(folder: string, name: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const watcher = watch(folder, (_event, changed) => {
      if (changed !== name) return
      const at = epochNow()
      watcher.close()
      clearTimeout(timer)
      resolve(at)
    })
    const timer = setTimeout(() => {
      watcher.close()
      reject(new Error(`${name} was never written`))
    }, BENCH_TIMEOUT_MS)
  })
}

/** The floor: the consent page in a bare context with the same routing. */
async function barePageLoad(host: CdpHost) {
  const assets = builtAssets()
  const startedAt = epochNow()
  const context = await host.browser.newContext({
    viewport: { width: 560, height: 680 },
    serviceWorkers: 'block',
    acceptDownloads: false,
    permissions: [],
  })
  try {
    await routeOnly(context, {
      origin: CONSENT_ORIGIN,
      root: assets.rendererRoot,
      pathPrefix: '/consent/',
      csp: CONSENT_CSP,
    })
    const contextAt = epochNow()
    const page = await context.newPage()
    const pageAt = epochNow()
    await page.goto(CONSENT_URL)
    await page.evaluate(nextFrame)
    // When the page's report of its first frame arrives (see consentRun).
    const frameAt = epochNow()
    return {
      totalMs: frameAt - startedAt,
      newContextMs: contextAt - startedAt,
      newPageMs: pageAt - contextAt,
      gotoMs: frameAt - pageAt,
    }
  } finally {
    await context.close()
  }
}

async function waitFor<T>(read: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + BENCH_TIMEOUT_MS
  for (;;) {
    const value = read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

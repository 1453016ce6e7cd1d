// Turns each measurement's raw samples into the figures of
// bench-results.json: units, goals, and the ratios to their limits.

import type { CommandSandboxBenchResult } from './command-sandbox-bench.ts'
import type { GatewayBenchResult } from './gateway-bench.ts'
import type { ConsentLatencyResult } from './consent-latency-bench.ts'
import { SAME_POLICY_CLIENTS, type DecisionBenchResult } from './decision-bench.ts'
import { figure, ratios } from './figures.ts'
import { DECISION_STEPS } from './same-rows-limit.ts'
import type { MeasuredFigure } from './results-schema.ts'
import { percentile } from './stats.ts'
import { MAX_USED_NONCES } from '../../src/consent/consent-token.ts'
import {
  LARGE_LEDGER_NONCES,
  SMALL_LEDGER_NONCES,
  type TokenBenchResult,
  type VerifyPauseResult,
} from './token-bench.ts'
import type { WorkbenchBenchResult } from './workbench-bench.ts'

const MIB = 1024 * 1024

export function tokenFigures(result: TokenBenchResult): MeasuredFigure[] {
  const pairs = result.rounds.map((round) => round.tokenPairsPerSec)
  const hmacs = result.rounds.map((round) => round.hmacOpsPerSec)
  const small = result.rounds.map((round) => round.smallLedgerPairsPerSec)
  const large = result.rounds.map((round) => round.largeLedgerPairsPerSec)
  return [
    figure({
      id: 'tokens.mint-verify-per-sec',
      section: 'tokens',
      label: 'consent tokens minted + verified',
      unit: 'pairs/s',
      samples: pairs,
      note: 'fresh grant objects per pair; one verifier at its default capacity, about 30 000 live nonces, one expiring per pair',
    }),
    figure({
      id: 'tokens.raw-hmac-per-sec',
      section: 'tokens',
      label: `raw HMAC-SHA256, ${result.signedStringBytes} B, KeyObject key`,
      unit: 'ops/s',
      samples: hmacs,
    }),
    figure({
      id: 'tokens.raw-hmac-base64url-per-sec',
      section: 'tokens',
      label: 'raw HMAC-SHA256, same input, digest as base64url',
      unit: 'ops/s',
      samples: result.rounds.map((round) => round.hmacBase64urlOpsPerSec),
      note: 'Node 24 makes the text digest cheaper than the Buffer one; tokens take it, the goal is stated in the Buffer one',
    }),
    figure({
      id: 'tokens.raw-hmac-buffer-key-per-sec',
      section: 'tokens',
      label: 'raw HMAC-SHA256, same input, Buffer key',
      unit: 'ops/s',
      samples: result.rounds.map((round) => round.hmacBufferKeyOpsPerSec),
      note: 'Node re-imports a Buffer key on every createHmac; the limit above is the KeyObject one',
    }),
    figure({
      id: 'tokens.mint-verify-cost-in-hmacs',
      section: 'tokens',
      label: 'one mint + verify, in raw HMACs (KeyObject)',
      unit: 'HMACs',
      samples: ratios(hmacs, pairs),
      goal: { comparison: 'at-most', target: 2.5, text: 'mint + verify ≤ 2.5 raw HMACs' },
    }),
    figure({
      id: 'tokens.cost-flatness',
      section: 'tokens',
      label: `cost at ${LARGE_LEDGER_NONCES} live nonces ÷ cost at ${SMALL_LEDGER_NONCES}`,
      unit: 'ratio',
      samples: ratios(small, large),
      goal: { comparison: 'at-most', target: 1.1, text: 'cost flat in the ledger’s size: ≤ 1.1' },
      note: `per round, the same pairs against two verifiers of one capacity; the large one held ${result.largeLedgerSize} nonces at the end`,
    }),
  ]
}

export function verifyPauseFigures(result: VerifyPauseResult): MeasuredFigure[] {
  return [
    figure({
      id: 'tokens.verify-pause-max-ms',
      section: 'tokens',
      label: `longest single verify while ${MAX_USED_NONCES} nonces expire at once`,
      unit: 'ms',
      samples: result.longestMs,
      goal: { comparison: 'at-most', target: 5, text: 'no verify over 5 ms' },
      note: `each sample: the longest of ${result.calls.join(' / ')} timed verify calls until every expired entry was forgotten`,
    }),
  ]
}

export function ledgerFigures(deltas: readonly number[], capacity: number): MeasuredFigure[] {
  return [
    figure({
      id: 'memory.ledger-heap-mib',
      section: 'memory',
      label: `verifier ledger at capacity (${capacity} nonces), heap + array buffers`,
      unit: 'MiB',
      samples: deltas.map((bytes) => bytes / MIB),
    }),
    figure({
      id: 'memory.ledger-bytes-per-nonce',
      section: 'memory',
      label: 'verifier ledger, memory per burned nonce',
      unit: 'B',
      samples: deltas.map((bytes) => bytes / capacity),
      goal: { comparison: 'at-most', target: 160, text: '≤ 160 B per nonce' },
    }),
  ]
}

export function decisionFigures(result: DecisionBenchResult): MeasuredFigure[] {
  const figures = [...result.decisionsPerSec].map(([clients, samples]) =>
    figure({
      id: `decisions.per-sec.${clients}-client${clients === 1 ? '' : 's'}`,
      section: 'decisions',
      label: `allow-once decisions, ${clients} concurrent client${clients === 1 ? '' : 's'}`,
      unit: 'decisions/s',
      samples,
      note: `${result.perRound} decisions per round; the allowed writes run in the runtime meanwhile`,
    }),
  )
  return [
    ...figures,
    figure({
      id: `decisions.same-rows-per-sec.${SAME_POLICY_CLIENTS}-clients`,
      section: 'decisions',
      label: `the limit: the same decisions' rows, bare node:sqlite, ${SAME_POLICY_CLIENTS} clients, the store's policy`,
      unit: 'decisions/s',
      samples: result.sameRowsPerSec,
      note: `what each 10-client round wrote (${DECISION_STEPS.length} transactions a decision), written again into a copy of the database in the same transactions (WAL, NORMAL, group commit), right after that round`,
    }),
    figure({
      id: `decisions.bare-http-exchanges-per-sec.${SAME_POLICY_CLIENTS}-clients`,
      section: 'decisions',
      label: `a floor part: main's client and a bare node:http server, a decision's request and answer, ${SAME_POLICY_CLIENTS} clients`,
      unit: 'exchanges/s',
      samples: result.httpExchangesPerSec,
    }),
    figure({
      id: `decisions.bare-file-writes-per-sec.${SAME_POLICY_CLIENTS}-clients`,
      section: 'decisions',
      label: `a floor part: the write tool's file write with its fsyncs, bare, ${SAME_POLICY_CLIENTS} clients`,
      unit: 'writes/s',
      samples: result.fileWritesPerSec,
    }),
    figure({
      id: `decisions.floor-per-sec.${SAME_POLICY_CLIENTS}-clients`,
      section: 'decisions',
      label:
        'the floor: those rows, that exchange and that write, one after the other, per decision',
      unit: 'decisions/s',
      samples: result.floorPerSec,
      note: '1 / (1/rows + 1/exchange + 1/write), each measured right after the 10-client round',
    }),
    figure({
      id: 'decisions.per-decision-floor',
      section: 'decisions',
      label: `decisions/s at ${SAME_POLICY_CLIENTS} clients ÷ that floor, per round`,
      unit: 'ratio',
      samples: result.perDecisionFloor,
      goal: {
        comparison: 'at-least',
        target: 0.6,
        text: '≥ 0.6 of what a decision must do (its HTTP exchange, its rows, its file write), done bare',
      },
    }),
  ]
}

export function consentFigures(result: ConsentLatencyResult): MeasuredFigure[] {
  const latency = (
    id: string,
    label: string,
    samples: number[],
    goal?: { target: number; text: string },
    note?: string,
  ) =>
    figure({
      id: `consent.${id}`,
      section: 'consent-latency',
      label,
      unit: 'ms',
      samples,
      ...(goal ? { goal: { comparison: 'at-most', ...goal } } : {}),
      ...(note ? { note } : {}),
    })
  return [
    latency('card-visible-ms', '(a) agent asks → card visible', result.cardVisibleMs, {
      target: 100,
      text: 'card visible ≤ 100 ms p50',
    }),
    latency(
      'card-event-at-main-ms',
      '  part: → approval.requested reaches main',
      result.cardEventAtMainMs,
    ),
    latency(
      'window-rendered-ms',
      '(b) Review → protected window rendered',
      result.windowRenderedMs,
      {
        target: 300,
        text: 'window rendered ≤ 300 ms p50',
      },
    ),
    latency('window-open-ms', '  part: host opens the window', result.windowOpenMs),
    latency('view-delivered-ms', '  part: window open → view on screen', result.viewDeliveredMs),
    latency('bare-page-load-ms', 'floor: consent page in a bare context', result.barePageLoadMs),
    latency('bare-new-context-ms', '  part: newContext', result.bareNewContextMs),
    latency('bare-new-page-ms', '  part: newPage', result.bareNewPageMs),
    latency('bare-goto-ms', '  part: goto → first frame', result.bareGotoMs),
    figure({
      id: 'consent.window-over-floor',
      section: 'consent-latency',
      label: '(b) ÷ floor, per run',
      unit: 'ratio',
      samples: ratios(result.windowRenderedMs, result.barePageLoadMs),
    }),
    latency(
      'click-to-tool-ms',
      '(c) trusted click → tool started',
      result.clickToToolMs,
      {
        target: 30,
        text: 'click → tool start ≤ 30 ms p50',
      },
      'the click event’s timestamp in the consent page → the allowed file appears (inotify)',
    ),
    latency('click-to-main-ms', '  part: click → main has the decision', result.clickToMainMs),
    latency('decide-request-ms', '  part: POST decision → answered', result.decideRequestMs),
    latency('decided-to-file-ms', '  part: answered → file created', result.decidedToFileMs),
  ]
}

export function workbenchFigures(
  result: WorkbenchBenchResult,
  provisional: boolean,
): MeasuredFigure[] {
  const longest = result.scroll.map((scroll) => Math.max(...scroll.frameGapsMs))
  const longTasks = result.scroll.flatMap((scroll) => scroll.longTasksMs)
  const common = { section: 'workbench', provisional } as const
  return [
    figure({
      ...common,
      id: 'workbench.room-render-ms',
      label: `room with ${result.cards} cards: click → newest entry and open cards on screen`,
      unit: 'ms',
      samples: result.renderMs,
      goal: { comparison: 'at-most', target: 200, text: 'a 500-card room in ≤ 200 ms' },
    }),
    figure({
      ...common,
      id: 'workbench.whole-room-ms',
      label: `the same room: click → every earlier turn loaded too`,
      unit: 'ms',
      samples: result.wholeMs,
      note: 'the room opens at its newest turns; the pages above load while the page is idle',
    }),
    figure({
      ...common,
      id: 'workbench.js-heap-mib',
      label: `workbench JS heap with that room open (after GC)`,
      unit: 'MiB',
      samples: result.heapUsedBytes.map((bytes) => bytes / MIB),
      note: `${(result.baseHeapUsedBytes / MIB).toFixed(1)} MiB before any room was opened`,
    }),
    figure({
      ...common,
      id: 'workbench.scroll-longest-frame-ms',
      label: 'scrolling the timeline: longest frame gap',
      unit: 'ms',
      samples: longest,
      goal: { comparison: 'at-most', target: 50, text: 'longest frame ≤ 50 ms while scrolling' },
      note:
        `${longTasks.length} long task(s) over 50 ms in ${result.scroll.length} scroll pass(es)` +
        (longTasks.length > 0 ? `, longest ${Math.max(...longTasks).toFixed(0)} ms` : ''),
    }),
    figure({
      ...common,
      id: 'workbench.scroll-frame-gap-p95-ms',
      label: 'scrolling the timeline: frame gap p95',
      unit: 'ms',
      samples: result.scroll.map((scroll) => percentile(scroll.frameGapsMs, 95)),
    }),
  ]
}

/** A difference of two medians can come out at or below zero when the
 *  machine's noise exceeds it (a busy machine slowed the other half of the
 *  round more); a figure is positive, so such a round counts as 1 µs, and
 *  the figure's note says so. */
const AT_LEAST_A_MICROSECOND = 0.001
const positive = (values: readonly number[]) =>
  values.map((value) => Math.max(value, AT_LEAST_A_MICROSECOND))

export function commandFigures(result: CommandSandboxBenchResult): MeasuredFigure[] {
  return [
    figure({
      id: 'commands.sandbox-start-overhead-ms',
      section: 'commands',
      label: '`true` through run_command: p50 in the sandbox (bubblewrap) − p50 outside it',
      unit: 'ms',
      samples: positive(result.overheadMs),
      goal: { comparison: 'at-most', target: 15, text: '≤ 15 ms per command' },
      note: `per round, ${result.pairsPerRound} of each, alternating, in one process; a round at or below 0 counts as 0.001`,
    }),
    figure({
      id: 'commands.sandboxed-true-p50-ms',
      section: 'commands',
      label: '`true` through run_command in the sandbox, p50',
      unit: 'ms',
      samples: result.sandboxedP50Ms,
    }),
    figure({
      id: 'commands.bare-true-p50-ms',
      section: 'commands',
      label: '`true` through run_command outside the sandbox (full access), p50',
      unit: 'ms',
      samples: result.bareP50Ms,
    }),
  ]
}

export function gatewayFigures(result: GatewayBenchResult): MeasuredFigure[] {
  const perRound = `per round, after ${result.warmupCalls} untimed calls of each: ${result.callsPerRound} calls of each kind in a phase of its own, direct and through the gateway alternating, one SDK client each over stdio; a round at or below 0 counts as 0.001`
  return [
    figure({
      id: 'gateway.added-latency-ms',
      section: 'gateway',
      label: 'assent-gateway: added latency, a call the policy runs without asking, p50',
      unit: 'ms',
      samples: positive(result.unaskedAddedP50Ms),
      goal: { comparison: 'at-most', target: 1, text: '≤ 1 ms p50' },
      note: perRound,
    }),
    figure({
      id: 'gateway.added-latency-p99-ms',
      section: 'gateway',
      label: 'assent-gateway: added latency, a call the policy runs without asking, p99',
      unit: 'ms',
      samples: positive(result.unaskedAddedP99Ms),
      goal: { comparison: 'at-most', target: 5, text: '≤ 5 ms p99' },
      note: perRound,
    }),
    figure({
      id: 'gateway.granted-added-latency-ms',
      section: 'gateway',
      label: 'assent-gateway: added latency, a call an "always allow" grant answers, p50',
      unit: 'ms',
      samples: positive(result.grantedAddedP50Ms),
      goal: { comparison: 'at-most', target: 3, text: '≤ 3 ms p50' },
      note: `${perRound}; the gateway asks the runtime, which finds the grant and records the call`,
    }),
    figure({
      id: 'gateway.direct-call-ms',
      section: 'gateway',
      label: 'the same read called directly, p50',
      unit: 'ms',
      samples: result.directP50Ms,
    }),
    figure({
      id: 'gateway.rss-mib',
      section: 'gateway',
      label: 'assent-gateway resident memory, idle (tools listed, no call yet)',
      unit: 'MiB',
      samples: result.idleRssBytes.map((bytes) => bytes / MIB),
      note: 'two stdio servers behind it; their processes are not counted',
    }),
  ]
}

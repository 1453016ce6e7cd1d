import type { ConsentView } from '../../src/common/consent-view.ts'
import { ConsentTokenVerifier } from '../../src/consent/consent-token.ts'
import type { ConsentBinding } from '../../src/contracts/consent.ts'
import { FakeWindow, FakeWindows } from './fake-protected-windows.ts'
import {
  ConsentController,
  type ConsentControllerOptions,
} from '../../src/main/core/consent-controller.ts'
import type { ProtectedWindow, ShowHow, ViewShown } from '../../src/main/core/host-port.ts'
import type { RuntimeConnection } from '../../src/main/core/runtime-supervisor.ts'
import { FakeRuntimeClient } from './fake-runtime-client.ts'

/** The consent key of every harness's runtime instance. */
export const CONSENT_KEY = Buffer.alloc(32, 0x5a)

/** A recording window whose `show` can be held (a page still drawing) or
 *  made to fail (the window died before it could show anything); a held
 *  page reports it drew the view when it is let go. */
export class ScriptedWindow extends FakeWindow {
  beforeShown: (() => Promise<void>) | undefined

  override async show(view: ConsentView, how?: ShowHow): Promise<ViewShown | void> {
    const shown = await super.show(view, how)
    if (!this.beforeShown) return shown
    await this.beforeShown()
    return this.drawnAt ? { drawnAtMs: this.drawnAt() } : shown
  }
}

/** A window from a host with none of the optional abilities: no focus or
 *  reset events, no attention request, no refusal signal, no drawn time. */
export class BareWindow implements ProtectedWindow {
  readonly promptId: string
  readonly views: ConsentView[] = []
  closed = false
  focusCount = 0
  private readonly closedListeners: Array<() => void> = []

  constructor(promptId: string) {
    this.promptId = promptId
  }
  async show(view: ConsentView): Promise<void> {
    this.views.push(view)
  }
  focus() {
    this.focusCount += 1
  }
  close() {
    if (this.closed) return
    this.closed = true
    for (const listener of this.closedListeners) listener()
  }
  isVisible() {
    return !this.closed
  }
  isFocused() {
    return !this.closed
  }
  onClosed(listener: () => void) {
    this.closedListeners.push(listener)
  }
}

/** FakeWindows that also records the size each window was asked for and
 *  makes scripted windows, so a test can hold or fail a `show`. */
export class ScriptedWindows extends FakeWindows {
  readonly sizes: Array<{ width: number; height: number }> = []
  declare opened: ScriptedWindow[]
  /** Runs on each window as it opens, before anything is shown in it. */
  prepare: (window: ScriptedWindow) => void = () => undefined

  override async open(promptId: string, size?: { width: number; height: number }) {
    if (size) this.sizes.push(size)
    const window = new ScriptedWindow(promptId)
    this.prepare(window)
    this.opened.push(window)
    return window
  }
  override last(): ScriptedWindow {
    return super.last() as ScriptedWindow
  }
}

/** Lets every pending callback of the fakes run: they answer at once, so a
 *  few turns of the event loop finish whatever a call started. */
export async function settle(): Promise<void> {
  for (let turn = 0; turn < 8; turn += 1) await new Promise((resolve) => setImmediate(resolve))
}

/** The value `promise` has settled with after `settle()`, or 'pending'. */
export async function stateOf<T>(promise: Promise<T>): Promise<T | 'pending'> {
  let settled: { value: T } | undefined
  promise.then(
    (value) => (settled = { value }),
    () => undefined,
  )
  await settle()
  return settled ? settled.value : 'pending'
}

/** Whether `token` verifies for `binding` at `nowMs` under the key. */
export function tokenFits(token: string | null, binding: ConsentBinding, nowMs: number): boolean {
  const verifier = new ConsentTokenVerifier({
    key: CONSENT_KEY,
    now: () => nowMs,
    maxUsedNonces: 8,
  })
  return verifier.verify(token, binding)
}

export interface ConsentHarness {
  controller: ConsentController
  runtime: FakeRuntimeClient
  windows: ScriptedWindows
  /** The runtime now; undefined while it is down. */
  connection: RuntimeConnection | undefined
  /** The wall clock (`now`) and the monotonic clock, both set by the test. */
  clock: { wall: number; monotonic: number }
  diagnostics: string[]
}

/**
 * A controller with fake windows and a fake runtime, clocks the test moves
 * and buttons enabled at once unless `options` says otherwise; `options`
 * replaces any option (give a key `undefined` to leave it to the default).
 */
export function consentHarness(options: Partial<ConsentControllerOptions> = {}): ConsentHarness {
  const runtime = new FakeRuntimeClient()
  const windows = new ScriptedWindows()
  const diagnostics: string[] = []
  const harness: ConsentHarness = {
    runtime,
    windows,
    diagnostics,
    clock: { wall: 50_000, monotonic: 1_000 },
    connection: {
      port: 1,
      instanceId: 'instance-1',
      bearerToken: 'bearer',
      consentKey: CONSENT_KEY,
    },
    controller: undefined as unknown as ConsentController,
  }
  harness.controller = new ConsentController({
    client: runtime.client,
    connection: () => harness.connection,
    windows,
    preferences: () => ({ lang: 'en', theme: 'light' }),
    now: () => harness.clock.wall,
    monotonicNow: () => harness.clock.monotonic,
    enableDelayMs: 0,
    onDiagnostic: (message) => diagnostics.push(message),
    ...options,
  })
  return harness
}

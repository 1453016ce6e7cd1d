import type { Page } from 'playwright-core'
import type { RuntimeClient } from '../../../src/main/core/runtime-client.ts'
import type { RuntimeConnection } from '../../../src/main/core/runtime-supervisor.ts'

/** One protected window as the scenario sees it. */
export interface SmokeConsentWindow {
  page: Page
  isOpen(): boolean
  /** Closes the window itself, as the title bar's close button does
   *  (no button in the page is pressed). */
  close(): Promise<void>
}

/**
 * What a smoke case may do with a host. The CDP host and the Electron host
 * each implement it; cases never know which one runs them. `runtime` is
 * main's own client (the scenario plays main's part for the forged-token
 * checks, which need the bearer token and consent key only main holds).
 */
export interface SmokeDriver {
  readonly host: 'cdp' | 'electron'
  readonly versions: { electron?: string; chromium?: string; node: string; app: string }
  readonly workspace: string
  readonly outsideDir: string
  workbench(): Promise<Page>
  nextConsentWindow(timeoutMs?: number): Promise<SmokeConsentWindow>
  /** Protected windows shown to the person and still open (a prepared,
   *  hidden spare is not one). */
  openConsentWindows(): Promise<SmokeConsentWindow[]>
  /** How many protected windows were handed to prompts since the start: a
   *  window that opened and closed again between two looks still counts. */
  consentWindowsOpened(): Promise<number>
  runtime(): Promise<{ client: RuntimeClient; connection: RuntimeConnection }>
  reloadWorkbench(): Promise<Page>
  restartRuntime(options?: { approvalTtlMs?: number; questionPhaseMs?: number }): Promise<void>
  setViewport(size: { width: number; height: number }): Promise<void>
  /** Waits until the windows that closed during a case have finished
   *  closing (their browser contexts are gone), so the next case starts on
   *  a quiet host: Playwright Test starts tracing every live context at the
   *  start of a case and fails on one that is half closed. */
  settle?(): Promise<void>
  /** Processes and ports this run started, checked after `close()`. */
  owned(): { pids: number[]; ports: number[] }
  close(): Promise<void>
}

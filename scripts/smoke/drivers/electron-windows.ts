/**
 * Which Electron window is which, decided from facts main reports (pure, so
 * it is unit-tested without an Electron binary). Main keeps a prepared,
 * hidden protected window ready; on a review it shows that one and prepares
 * the next about 500 ms later. So "the next new window" is the spare, not
 * the prompt's window: the prompt's window is the one the smoke port says
 * the prompt was handed, and only shown protected windows count as open.
 */

/** One BrowserWindow as main sees it (`BrowserWindow.getAllWindows()`). */
export interface WindowFacts {
  windowId: number
  visible: boolean
  url: string
}

/** A prompt and the BrowserWindow it was handed (the smoke port's log). */
export interface OpenedRecord {
  promptId: string
  windowId: number
}

export type PromptWindow =
  | { state: 'not-yet' }
  | { state: 'hidden'; record: OpenedRecord; window: WindowFacts }
  | { state: 'shown'; record: OpenedRecord; window: WindowFacts }
  /** Handed out and already gone (e.g. it expired before we looked). */
  | { state: 'closed'; record: OpenedRecord }

/** The window of the `index`-th prompt (in the order prompts opened). */
export function promptWindowAt(
  opened: readonly OpenedRecord[],
  index: number,
  windows: readonly WindowFacts[],
): PromptWindow {
  const record = opened[index]
  if (!record) return { state: 'not-yet' }
  return promptWindowOf(record, windows)
}

/** The window shown for prompt `promptId`, whatever else is open. */
export function promptWindowFor(
  opened: readonly OpenedRecord[],
  promptId: string,
  windows: readonly WindowFacts[],
): PromptWindow {
  const record = opened.find((entry) => entry.promptId === promptId)
  if (!record) return { state: 'not-yet' }
  return promptWindowOf(record, windows)
}

function promptWindowOf(record: OpenedRecord, windows: readonly WindowFacts[]): PromptWindow {
  const window = windows.find((candidate) => candidate.windowId === record.windowId)
  if (!window) return { state: 'closed', record }
  return { state: window.visible ? 'shown' : 'hidden', record, window }
}

/** Protected windows a person can see: handed to a prompt, still there and
 *  visible. A spare (never handed out) is not one, visible or not. */
export function visibleConsentWindows(
  opened: readonly OpenedRecord[],
  windows: readonly WindowFacts[],
): WindowFacts[] {
  const handedOut = new Set(opened.map((entry) => entry.windowId))
  return windows.filter((window) => handedOut.has(window.windowId) && window.visible)
}

/** The workbench: exactly the window main says it is, never a consent
 *  window (a bug that made them one must not go unnoticed). */
export function workbenchWindow(
  workbenchId: number | undefined,
  opened: readonly OpenedRecord[],
  windows: readonly WindowFacts[],
): WindowFacts | undefined {
  if (workbenchId === undefined) return undefined
  if (opened.some((entry) => entry.windowId === workbenchId)) return undefined
  return windows.find((window) => window.windowId === workbenchId)
}

import type { WorkbenchChannel, WorkbenchEvent } from '../common/assent-gui.ts'

/** How the workbench preload reaches main: Electron IPC or the CDP host's
 *  binding. Both carry plain JSON values only. */
export interface WorkbenchTransport {
  invoke(channel: WorkbenchChannel, args: unknown[]): Promise<unknown>
  onEvent(listener: (event: WorkbenchEvent) => void): () => void
}

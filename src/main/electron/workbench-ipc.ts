import type { IpcMain } from 'electron'
import type { WorkbenchChannel } from '../../common/assent-gui.ts'
import { WORKBENCH_CHANNELS } from '../../common/ipc-channels.ts'
import { encodeWorkbenchError, workbenchError } from '../../common/workbench-error.ts'
import { validateSender, type ExpectedSender } from '../core/sender-validator.ts'

export interface WorkbenchIpcOptions {
  ipc: Pick<IpcMain, 'handle'>
  /** Who may call: the workbench window's webContents, main frame and page,
   *  or `undefined` while no workbench window exists (every call refused). */
  expectedSender: () => ExpectedSender | undefined
  /**
   * Where a call goes once its sender is validated: `relay` to the renderer
   * relay's allowlist, `review` and `mode` to the consent controller, which
   * only ever opens the protected window, `preferences` to the language and
   * theme the protected window uses (MainServices.handleWorkbenchCall).
   */
  handle: (channel: WorkbenchChannel, args: unknown) => Promise<unknown>
  onRefused?: (channel: string, reason: string) => void
}

/** Registers the workbench's IPC handlers. Every one validates its sender
 *  first; a refused call reaches nothing behind it. */
export function registerWorkbenchIpc(options: WorkbenchIpcOptions): void {
  for (const [name, channel] of Object.entries(WORKBENCH_CHANNELS) as Array<
    [WorkbenchChannel, string]
  >) {
    options.ipc.handle(channel, async (event, args: unknown) => {
      const expected = options.expectedSender()
      const verdict = expected
        ? validateSender({ event, expected })
        : { ok: false as const, reason: 'no workbench window' }
      if (!verdict.ok) {
        options.onRefused?.(channel, verdict.reason)
        throw new Error(
          encodeWorkbenchError(
            workbenchError('sender_refused', `${channel} is for the workbench page only`),
          ),
        )
      }
      return options.handle(name, args)
    })
  }
}

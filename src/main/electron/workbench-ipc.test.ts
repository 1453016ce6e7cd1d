import { describe, expect, it } from 'vitest'
import type { WorkbenchChannel } from '../../common/assent-gui.ts'
import { IPC } from '../../common/ipc-channels.ts'
import { parseWorkbenchError } from '../../common/workbench-error.ts'
import { pageOf, type ExpectedSender } from '../core/sender-validator.ts'
import { WORKBENCH_SITE } from '../core/page-sites.ts'
import { registerWorkbenchIpc, type WorkbenchIpcOptions } from './workbench-ipc.ts'

type Handler = (event: unknown, args: unknown) => Promise<unknown>

/**
 * A stand-in for Electron's `ipcMain` (the binary cannot run here) that keeps
 * the registered handlers so the test can call them with crafted events.
 */
function setup(expectedSender?: () => ExpectedSender | undefined) {
  const handlers = new Map<string, Handler>()
  const calls: Array<[WorkbenchChannel, unknown]> = []
  const refused: string[] = []
  const mainFrame = { url: WORKBENCH_SITE.pageUrl, parent: null }
  const expected: ExpectedSender = {
    webContentsId: 1,
    mainFrame: () => mainFrame,
    ...pageOf(WORKBENCH_SITE.pageUrl),
  }
  const ipc = {
    handle: (channel: string, handler: Handler) => {
      handlers.set(channel, handler)
    },
  } as unknown as WorkbenchIpcOptions['ipc']
  registerWorkbenchIpc({
    ipc,
    expectedSender: expectedSender ?? (() => expected),
    handle: async (channel, args) => {
      calls.push([channel, args])
      return { status: 200, body: null }
    },
    onRefused: (channel, reason) => refused.push(`${channel}: ${reason}`),
  })
  const workbenchEvent = { sender: { id: 1 }, senderFrame: mainFrame }
  return { handlers, calls, refused, workbenchEvent, mainFrame }
}

describe('registerWorkbenchIpc', () => {
  it('registers the relay, review, reject, form, mode-change, webhook and preferences channels', () => {
    const { handlers } = setup()
    expect([...handlers.keys()].sort()).toEqual(
      [
        IPC.relayCall,
        IPC.reviewApproval,
        IPC.rejectApprovalForMessage,
        IPC.openSensitiveForm,
        IPC.requestModeChange,
        IPC.requestApproverWebhook,
        IPC.setPreferences,
      ].sort(),
    )
  })

  it('passes a call from the workbench page to its handler', async () => {
    const { handlers, calls, workbenchEvent } = setup()
    const request = [{ method: 'GET', path: '/v1/rooms' }]
    await handlers.get(IPC.relayCall)?.(workbenchEvent, request)
    await handlers.get(IPC.reviewApproval)?.(workbenchEvent, ['ap_1'])
    await handlers.get(IPC.rejectApprovalForMessage)?.(workbenchEvent, ['ap_2'])
    await handlers.get(IPC.requestModeChange)?.(workbenchEvent, ['room_1', 'full-access'])
    await handlers.get(IPC.requestApproverWebhook)?.(workbenchEvent, ['room_1', null])
    await handlers.get(IPC.setPreferences)?.(workbenchEvent, [{ lang: 'en', theme: 'dark' }])
    expect(calls).toEqual([
      ['relay', request],
      ['review', ['ap_1']],
      ['reject', ['ap_2']],
      ['mode', ['room_1', 'full-access']],
      ['webhook', ['room_1', null]],
      ['preferences', [{ lang: 'en', theme: 'dark' }]],
    ])
  })

  it('refuses a call from another window, a subframe or another page, and calls nothing', async () => {
    const { handlers, calls, refused, mainFrame } = setup()
    const events = [
      { sender: { id: 2 }, senderFrame: mainFrame },
      { sender: { id: 1 }, senderFrame: { url: WORKBENCH_SITE.pageUrl, parent: mainFrame } },
      { sender: { id: 1 }, senderFrame: null },
    ]
    const channels = [
      IPC.relayCall,
      IPC.reviewApproval,
      IPC.rejectApprovalForMessage,
      IPC.openSensitiveForm,
      IPC.requestModeChange,
      IPC.requestApproverWebhook,
      IPC.setPreferences,
    ]
    for (const channel of channels) {
      for (const event of events) {
        const error: unknown = await handlers
          .get(channel)?.(event, ['x'])
          .then(
            () => undefined,
            (thrown: unknown) => thrown,
          )
        // The page words the code; the English detail is never matched.
        expect(parseWorkbenchError((error as Error).message)).toEqual({
          code: 'sender_refused',
          detail: `${channel} is for the workbench page only`,
        })
      }
    }
    expect(calls).toEqual([])
    expect(refused).toHaveLength(channels.length * events.length)
  })

  it('refuses every call while there is no workbench window', async () => {
    const { handlers, calls, workbenchEvent } = setup(() => undefined)
    await expect(handlers.get(IPC.relayCall)?.(workbenchEvent, [])).rejects.toThrow(
      /"code":"sender_refused"/,
    )
    expect(calls).toEqual([])
  })
})

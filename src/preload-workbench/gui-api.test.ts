import { describe, expect, it } from 'vitest'
import type { WorkbenchChannel } from '../common/assent-gui.ts'
import { createAssentGui } from './gui-api.ts'

function recording() {
  const calls: Array<[WorkbenchChannel, unknown[]]> = []
  const gui = createAssentGui({
    invoke: async (channel, args) => {
      calls.push([channel, args])
      return null
    },
    onEvent: () => () => {},
  })
  return { gui, calls }
}

describe('createAssentGui', () => {
  it('sends the preferences on their own channel, extra arguments included for main to refuse', async () => {
    const { gui, calls } = recording()
    await gui.setPreferences({ lang: 'zh-CN', theme: 'dark' })
    await (gui.setPreferences as (...args: unknown[]) => Promise<unknown>)(
      { lang: 'en', theme: 'light' },
      { decision: 'allow-once' },
    )
    expect(calls).toEqual([
      ['preferences', [{ lang: 'zh-CN', theme: 'dark' }]],
      ['preferences', [{ lang: 'en', theme: 'light' }, { decision: 'allow-once' }]],
    ])
  })

  it('keeps reviews, mode changes and webhook changes on their channels', async () => {
    const { gui, calls } = recording()
    await gui.reviewApproval('ap_1')
    await gui.requestModeChange('room_1', 'full-access')
    await gui.requestApproverWebhook('room_1', 'https://approver.example/decide')
    expect(calls).toEqual([
      ['review', ['ap_1']],
      ['mode', ['room_1', 'full-access']],
      ['webhook', ['room_1', 'https://approver.example/decide']],
    ])
  })

  it('passes a rejection for a message on its own channel, extras included for main to refuse', async () => {
    const { gui, calls } = recording()
    await gui.rejectApprovalForMessage('ap_1')
    await (gui.rejectApprovalForMessage as (...args: unknown[]) => Promise<unknown>)(
      'ap_1',
      'allow-once',
    )
    expect(calls).toEqual([
      ['reject', ['ap_1']],
      ['reject', ['ap_1', 'allow-once']],
    ])
  })

  it('answers input requests through the relay only', async () => {
    const { gui, calls } = recording()
    await gui.inputRequests('room_1')
    await gui.respondToInput('in_1', { action: 'dismiss' })
    await gui.keepWaiting('in_1')
    expect(calls).toEqual([
      ['relay', [{ method: 'GET', path: '/v1/rooms/room_1/input-requests' }]],
      [
        'relay',
        [
          {
            method: 'POST',
            path: '/v1/input-requests/in_1/response',
            body: { action: 'dismiss' },
          },
        ],
      ],
      ['relay', [{ method: 'POST', path: '/v1/input-requests/in_1/keep-waiting' }]],
    ])
  })

  it("reads a room's approver webhook through the relay, never setting one", async () => {
    const { gui, calls } = recording()
    await gui.approverWebhook('room_1')
    expect(calls).toEqual([
      ['relay', [{ method: 'GET', path: '/v1/rooms/room_1/approver-webhook' }]],
    ])
  })

  it("revokes one MCP server's grants through the relay with an encoded id", async () => {
    const { gui, calls } = recording()
    await gui.revokeServerGrants('room_1', 'notes/../x')
    expect(calls).toEqual([
      ['relay', [{ method: 'DELETE', path: '/v1/rooms/room_1/mcp-servers/notes%2F..%2Fx/grants' }]],
    ])
  })

  it('reads a page of the timeline through the relay, every part of its path encoded', async () => {
    const { gui, calls } = recording()
    await gui.timelinePage('room_1', { kind: 'recent' })
    await gui.timelinePage('room_1', { kind: 'from', turnId: 'turn_1' })
    await gui.timelinePage('room_1', { kind: 'before', turnId: '../../approvals/ap_1' })
    const forged = { kind: '../../../approvals', turnId: 'ap_1' } as unknown as {
      kind: 'before'
      turnId: string
    }
    await gui.timelinePage('room_1', forged)
    expect(calls.map(([, [request]]) => (request as { path: string }).path)).toEqual([
      '/v1/rooms/room_1/timeline/recent',
      '/v1/rooms/room_1/timeline/from/turn_1',
      '/v1/rooms/room_1/timeline/before/..%2F..%2Fapprovals%2Fap_1',
      '/v1/rooms/room_1/timeline/..%2F..%2F..%2Fapprovals/ap_1',
    ])
    expect(calls.every(([channel]) => channel === 'relay')).toBe(true)
  })
})

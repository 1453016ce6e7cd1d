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

  it('keeps reviews and mode changes on their channels', async () => {
    const { gui, calls } = recording()
    await gui.reviewApproval('ap_1')
    await gui.requestModeChange('room_1', 'full-access')
    expect(calls).toEqual([
      ['review', ['ap_1']],
      ['mode', ['room_1', 'full-access']],
    ])
  })

  it("revokes one MCP server's grants through the gateway with an encoded id", async () => {
    const { gui, calls } = recording()
    await gui.revokeServerGrants('room_1', 'notes/../x')
    expect(calls).toEqual([
      [
        'gateway',
        [{ method: 'DELETE', path: '/v1/rooms/room_1/mcp-servers/notes%2F..%2Fx/grants' }],
      ],
    ])
  })
})

import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { FileSecretStore } from './file-secret-store.ts'
import { MainServices } from './main-services.ts'
import { RollbackAnchorKeeper } from './rollback-anchor-keeper.ts'
import { mcpConfigPathFromEnv } from './mcp-config-path.ts'
import type { RuntimeProcess } from './runtime-launcher.ts'

describe('mcpConfigPathFromEnv', () => {
  it('takes an absolute ASSENT_MCP_CONFIG, and nothing when it is unset or empty', () => {
    expect(mcpConfigPathFromEnv({ ASSENT_MCP_CONFIG: '/etc/assent/mcp.json' })).toBe(
      '/etc/assent/mcp.json',
    )
    expect(mcpConfigPathFromEnv({})).toBeUndefined()
    expect(mcpConfigPathFromEnv({ ASSENT_MCP_CONFIG: '' })).toBeUndefined()
  })

  it('refuses a relative path instead of guessing what it is relative to', () => {
    expect(() => mcpConfigPathFromEnv({ ASSENT_MCP_CONFIG: 'mcp.json' })).toThrow(
      /must be an absolute path/,
    )
  })
})

describe('MainServices with an mcp.json of its own', () => {
  it('hands its path to the runtime with the other start settings', async () => {
    const sent: unknown[] = []
    const runtime: RuntimeProcess = {
      pid: 1,
      send(message) {
        sent.push(message)
        // Answer as a runtime does, so the start completes.
        queueMicrotask(() => listener?.({ type: 'ready', port: 1, instanceId: 'i-1' }))
      },
      onMessage(next) {
        listener = next
      },
      onExit() {},
      kill() {},
    }
    let listener: ((message: unknown) => void) | undefined
    const main = new MainServices({
      launcher: { launch: () => runtime },
      dataDir: '/data',
      integrityKey: randomBytes(32),
      rollbackAnchor: new RollbackAnchorKeeper(new FileSecretStore(), '/data'),
      mcpConfigPath: '/etc/assent/mcp.json',
      windows: { open: () => Promise.reject(new Error('no windows here')) },
      notifier: { send: () => {} },
      preferences: () => ({ lang: 'en', theme: 'light' }),
    })
    await main.supervisor.start()
    expect(sent).toHaveLength(1)
    expect(sent[0]).toMatchObject({
      type: 'init',
      dataDir: '/data',
      rollbackAnchor: null,
      mcpConfigPath: '/etc/assent/mcp.json',
    })
  })
})

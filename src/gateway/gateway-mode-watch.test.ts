import { afterEach, describe, expect, it } from 'vitest'
import type { GatewayMode } from '../contracts/mcp-gateway.ts'
import { McpRefusal } from '../runtime/mcp/mcp-refusal.ts'
import { GatewayModeWatch } from './gateway-mode-watch.ts'

/** A runtime the watch polls: each poll waits for the test to answer it
 *  (`answer`) or fail it (`fail`). */
class ScriptedRuntime {
  readonly seen: Array<string | null> = []
  private next: { resolve: (mode: GatewayMode) => void; reject: (error: Error) => void }[] = []

  poll = (seen: string | null, signal: AbortSignal): Promise<GatewayMode> => {
    this.seen.push(seen)
    return new Promise((resolve, reject) => {
      this.next.push({ resolve, reject })
      signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true })
    })
  }

  async answer(mode: GatewayMode): Promise<void> {
    ;(await this.waiting()).resolve(mode)
  }

  async fail(why: string): Promise<void> {
    ;(await this.waiting()).reject(new Error(why))
  }

  private async waiting() {
    for (let turn = 0; turn < 500 && this.next.length === 0; turn += 1) {
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
    const next = this.next.shift()
    if (next === undefined) throw new Error('the watch sent no poll')
    return next
  }
}

const ASKS: GatewayMode = { revision: 'r1', neverAsks: false }
const PLAN: GatewayMode = { revision: 'r2', neverAsks: true }

let watch: GatewayModeWatch | undefined
afterEach(() => watch?.close())

function started(runtime: ScriptedRuntime, log: string[] = []): GatewayModeWatch {
  watch = new GatewayModeWatch({ poll: runtime.poll, log: (line) => log.push(line), retryMinMs: 1 })
  watch.start()
  return watch
}

async function refusalOf(run: () => Promise<void> | void): Promise<McpRefusal | undefined> {
  try {
    await run()
    return undefined
  } catch (error) {
    if (error instanceof McpRefusal) return error
    throw error
  }
}

describe('the gateway mode watch', () => {
  it('holds a call until the first answer, then runs it in a mode that asks', async () => {
    const runtime = new ScriptedRuntime()
    const modes = started(runtime)
    let done = false
    const call = Promise.resolve(modes.mayRun('docs__read')).then(() => (done = true))
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(done).toBe(false)
    await runtime.answer(ASKS)
    await call
    expect(done).toBe(true)
    expect(runtime.seen[0]).toBeNull()
  })

  it('refuses every call in plan, from what it holds, and runs them again after', async () => {
    const runtime = new ScriptedRuntime()
    const modes = started(runtime)
    await runtime.answer(PLAN)
    const refusal = await refusalOf(() => modes.mayRun('docs__read'))
    expect(refusal?.data).toEqual({ reason: 'not_allowed', detail: 'not_offered_in_plan' })
    expect(refusal?.message).toContain('docs__read')
    // The next poll carries what it saw, and the runtime answers a change.
    await runtime.answer(ASKS)
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(runtime.seen).toEqual([null, 'r2', 'r1'])
    expect(modes.mayRun('docs__read')).toBeUndefined()
  })

  it('refuses while the runtime cannot confirm the mode, says why, and recovers', async () => {
    const runtime = new ScriptedRuntime()
    const log: string[] = []
    const modes = started(runtime, log)
    await runtime.answer(ASKS)
    await runtime.fail('connect ECONNREFUSED 127.0.0.1:4000')
    await new Promise((resolve) => setTimeout(resolve, 5))
    const refusal = await refusalOf(() => modes.mayRun('docs__read'))
    expect(refusal?.data).toEqual({ reason: 'not_allowed', detail: 'mode_unknown' })
    expect(refusal?.message).toContain("Assent's runtime cannot confirm the gateway room's mode")
    expect(refusal?.message).toContain('ECONNREFUSED')
    expect(log.some((line) => line.includes('cannot confirm'))).toBe(true)
    // After an error it asks with nothing seen, so the runtime answers at once.
    await runtime.answer(ASKS)
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect(runtime.seen).toEqual([null, 'r1', null, 'r1'])
    expect(modes.mayRun('docs__read')).toBeUndefined()
  })

  it('refuses a call that waited for a first poll that failed', async () => {
    const runtime = new ScriptedRuntime()
    const modes = started(runtime)
    const call = refusalOf(() => modes.mayRun('docs__read'))
    await runtime.fail('no gateway-connection.json')
    expect((await call)?.data.detail).toBe('mode_unknown')
  })

  it('refuses everything once closed', async () => {
    const runtime = new ScriptedRuntime()
    const modes = started(runtime)
    await runtime.answer(ASKS)
    modes.close()
    expect((await refusalOf(() => modes.mayRun('docs__read')))?.data.detail).toBe('mode_unknown')
  })
})

import { EventEmitter } from 'node:events'
import { describe, expect, it } from 'vitest'
import {
  SMOKE_PORT_EVENT,
  SmokeWindowLog,
  offerSmokePort,
  smokeAttached,
  smokePortFor,
  type SmokePort,
} from './smoke-port.ts'

const CONSENT_KEY = Buffer.alloc(32, 7)

function port(): SmokePort {
  const log = new SmokeWindowLog()
  log.record('p1', 2)
  log.record('p2', 3)
  const restarts: unknown[] = []
  return Object.assign(
    smokePortFor(
      {
        supervisor: {
          current: {
            port: 4100,
            instanceId: 'i-1',
            bearerToken: 'bearer',
            consentKey: CONSENT_KEY,
          },
          pid: 321,
        },
        restartRuntime: async (update) => {
          restarts.push(update)
        },
      },
      log,
      () => 1,
    ),
    { restarts },
  )
}

describe('the smoke port (development builds only)', () => {
  it('is offered to nobody when the smoke installed no listener before main ran', () => {
    const target = new EventEmitter()
    expect(smokeAttached(target)).toBe(false)
    expect(offerSmokePort(port(), target)).toBe(false)
  })

  it('is handed, frozen, to the listener the smoke installed', () => {
    const target = new EventEmitter()
    const received: SmokePort[] = []
    target.once(SMOKE_PORT_EVENT, (given: SmokePort) => received.push(given))
    expect(smokeAttached(target)).toBe(true)
    expect(offerSmokePort(port(), target)).toBe(true)
    expect(received).toHaveLength(1)
    expect(Object.isFrozen(received[0])).toBe(true)
  })

  it("reports the runtime connection with the consent key as base64url, and the prompts' windows in order", async () => {
    const smoke = port() as SmokePort & { restarts: unknown[] }
    expect(smoke.connection()).toEqual({
      port: 4100,
      instanceId: 'i-1',
      bearerToken: 'bearer',
      consentKey: CONSENT_KEY.toString('base64url'),
    })
    expect(smoke.consentWindows()).toEqual([
      { promptId: 'p1', windowId: 2 },
      { promptId: 'p2', windowId: 3 },
    ])
    expect(smoke.workbenchWindowId()).toBe(1)
    expect(smoke.runtime()).toEqual({ pid: 321, port: 4100 })
    await smoke.restartRuntime(5_000)
    await smoke.restartRuntime(undefined, 2_000)
    expect(smoke.restarts).toEqual([{ approvalTtlMs: 5_000 }, { questionPhaseMs: 2_000 }])
  })

  it('refuses the connection while the runtime is not running', () => {
    const smoke = smokePortFor(
      {
        supervisor: { current: undefined, pid: undefined },
        restartRuntime: async () => {},
      },
      new SmokeWindowLog(),
      () => undefined,
    )
    expect(() => smoke.connection()).toThrow(/not running/)
    expect(smoke.runtime()).toEqual({})
  })
})

import { describe, expect, it } from 'vitest'
import {
  breakdown,
  CATEGORIES,
  type CpuProfile,
  type CpuProfileNode,
} from './profile-categories.ts'

const SRC = 'file:///repo/src'

/** A profile whose nodes form chains from the root; `samples` names the
 *  node sampled at each tick, 100 µs apart. */
function profileOf(
  chains: Record<string, Array<[functionName: string, url: string]>>,
  samples: string[],
): CpuProfile {
  const nodes: CpuProfileNode[] = [{ id: 1, callFrame: { functionName: '(root)', url: '' } }]
  const leafOf = new Map<string, number>()
  for (const [name, frames] of Object.entries(chains)) {
    let parent = nodes[0]!
    for (const [functionName, url] of frames) {
      const node: CpuProfileNode = { id: nodes.length + 1, callFrame: { functionName, url } }
      parent.children = [...(parent.children ?? []), node.id]
      nodes.push(node)
      parent = node
    }
    leafOf.set(name, parent.id)
  }
  return {
    nodes,
    startTime: 1_000,
    endTime: 1_000 + samples.length * 100,
    samples: samples.map((name) => leafOf.get(name)!),
    timeDeltas: samples.map(() => 100),
  }
}

const CHAINS = {
  idle: [['(idle)', '']],
  gc: [['(garbage collector)', '']],
  auditInsert: [
    ['append', `${SRC}/runtime/store/audit-log.ts`],
    ['run', ''],
  ],
  auditHmac: [
    ['append', `${SRC}/runtime/store/audit-log.ts`],
    ['digest', 'node:internal/crypto/hash'],
  ],
  storeGet: [
    ['decide', `${SRC}/runtime/gate/approval-gate.ts`],
    ['get', `${SRC}/runtime/store/approval-repository.ts`],
  ],
  verify: [
    ['handle', `${SRC}/runtime/server/routes/approval-routes.ts`],
    ['verify', `${SRC}/consent/consent-token.ts`],
    ['digest', 'node:internal/crypto/hash'],
  ],
  zod: [
    ['readJsonBody', `${SRC}/runtime/server/http-kit.ts`],
    ['parse', 'file:///repo/node_modules/zod/v4/core/schemas.js'],
  ],
  http: [['parserOnHeadersComplete', 'node:_http_common']],
  sandbox: [
    ['checkToolAccess', `${SRC}/runtime/policy/sandbox.ts`],
    ['realpath', 'node:internal/fs/promises'],
    ['realpath', ''],
  ],
  program: [['(program)', '']],
} satisfies Record<string, Array<[string, string]>>

describe('breakdown of a CPU profile', () => {
  it('charges a native SQLite call to SQLite even when the audit log made it', () => {
    const result = breakdown(profileOf(CHAINS, ['auditInsert', 'auditHmac']), 0, 1e9)
    expect(result.busyUs['SQLite statements']).toBe(100)
    expect(result.busyUs['audit hashing and MAC']).toBe(100)
  })

  it('charges each sample to the frame nearest it that names a category', () => {
    const result = breakdown(
      profileOf(CHAINS, ['storeGet', 'verify', 'zod', 'http', 'sandbox', 'gc', 'program']),
      0,
      1e9,
    )
    expect(result.busyUs).toMatchObject({
      'SQLite statements': 100,
      'consent token verify': 100,
      'parsing (zod, JSON)': 100,
      'HTTP (node:http, net, streams, router)': 100,
      filesystem: 100,
      'garbage collection': 100,
      'native and program': 100,
    })
    expect(result.totalBusyUs).toBe(700)
  })

  it('counts idle time apart from busy time', () => {
    const result = breakdown(profileOf(CHAINS, ['idle', 'idle', 'verify']), 0, 1e9)
    expect(result.idleUs).toBe(200)
    expect(result.totalBusyUs).toBe(100)
  })

  it('counts only the samples inside the window', () => {
    // Samples land at 1 100, 1 200, 1 300 and 1 400 µs.
    const profile = profileOf(CHAINS, ['gc', 'verify', 'verify', 'gc'])
    const result = breakdown(profile, 1_150, 1_350)
    expect(result.busyUs['consent token verify']).toBe(200)
    expect(result.busyUs['garbage collection']).toBe(0)
    expect(result.totalBusyUs).toBe(200)
  })

  it('reports every category, so a table of them has no gaps', () => {
    const result = breakdown(profileOf(CHAINS, ['verify']), 0, 1e9)
    expect(Object.keys(result.busyUs).sort()).toEqual([...CATEGORIES].sort())
  })
})

// Folds a V8 CPU profile (`node --cpu-prof`) into the few categories a
// decision's cost is discussed in. Pure: the profile is data.

export interface CpuProfileNode {
  id: number
  callFrame: { functionName: string; url: string }
  children?: number[]
}

export interface CpuProfile {
  nodes: CpuProfileNode[]
  /** Microseconds, on the monotonic clock `process.hrtime` reads. */
  startTime: number
  endTime: number
  samples: number[]
  timeDeltas: number[]
}

export const CATEGORIES = [
  'HTTP (node:http, net, streams, router)',
  'parsing (zod, JSON)',
  'consent token verify',
  'audit hashing and MAC',
  'SQLite statements',
  'events',
  'agent, tools and sandbox',
  'filesystem',
  'crypto (other)',
  'garbage collection',
  'other JavaScript',
  'native and program',
] as const
export type Category = (typeof CATEGORIES)[number]

const IDLE = '(idle)'

// Checked from the sampled frame towards the root; the first frame that
// matches decides, so a native SQLite call made by the audit log counts as
// SQLite, the HMAC it computes counts as audit, and a realpath the sandbox
// asks for counts as filesystem.
const RULES: ReadonlyArray<[Category, (frame: CpuProfileNode['callFrame']) => boolean]> = [
  ['filesystem', (f) => /^node:(fs|internal\/fs)/.test(f.url)],
  ['SQLite statements', (f) => f.url.includes('/runtime/store/') && !isAudit(f.url)],
  ['audit hashing and MAC', (f) => isAudit(f.url)],
  ['consent token verify', (f) => f.url.includes('/src/consent/')],
  ['parsing (zod, JSON)', (f) => f.url.includes('/node_modules/zod/') || isJson(f)],
  ['events', (f) => f.url.includes('/runtime/events/')],
  ['HTTP (node:http, net, streams, router)', (f) => f.url.includes('/runtime/server/')],
  [
    'agent, tools and sandbox',
    (f) =>
      /\/runtime\/(agent|tools|gate|policy|domain|rooms|concurrency)\//.test(f.url) ||
      f.url.includes('/src/common/'),
  ],
]

// Node's own HTTP and crypto code, when no frame above names a part of the
// runtime (Node's HTTP parser calling into the router is the router's).
const FALLBACK_RULES: typeof RULES = [
  [
    'HTTP (node:http, net, streams, router)',
    (f) => /^node:(_http|http|net|stream|internal\/(http|streams|stream_base|net))/.test(f.url),
  ],
  ['crypto (other)', (f) => /^node:(crypto|internal\/crypto)/.test(f.url)],
]

/** The category of a sample, from its frames, the sampled one first. */
function categoryOfChain(chain: ReadonlyArray<CpuProfileNode['callFrame']>): Category | 'idle' {
  const [leaf, caller] = chain
  if (!leaf) return 'native and program'
  if (leaf.functionName === IDLE) return 'idle'
  if (leaf.functionName === '(garbage collector)') return 'garbage collection'
  if (
    leaf.url === '' &&
    SQLITE_NATIVE.has(leaf.functionName) &&
    caller?.url.includes('/runtime/store/')
  ) {
    return 'SQLite statements'
  }
  const hit = firstMatch(chain, RULES) ?? firstMatch(chain, FALLBACK_RULES)
  if (hit) return hit
  return chain.some((frame) => frame.url !== '') ? 'other JavaScript' : 'native and program'
}

function firstMatch(
  chain: ReadonlyArray<CpuProfileNode['callFrame']>,
  rules: typeof RULES,
): Category | undefined {
  for (const frame of chain) {
    const rule = rules.find(([, matches]) => matches(frame))
    if (rule) return rule[0]
  }
  return undefined
}

function isAudit(url: string): boolean {
  return url.includes('/store/audit-') || url.includes('/store/integrity-mac')
}

function isJson(frame: CpuProfileNode['callFrame']): boolean {
  return frame.url === '' && (frame.functionName === 'parse' || frame.functionName === 'stringify')
}

// SQLite's native calls have no URL; they are known by their caller.
const SQLITE_NATIVE = new Set(['run', 'get', 'all', 'exec', 'prepare', 'iterate'])

export interface ProfileBreakdown {
  /** Busy (non-idle) sampled time per category, in microseconds. */
  busyUs: Record<Category, number>
  totalBusyUs: number
  idleUs: number
}

/**
 * Busy time per category for the samples taken between `fromUs` and `toUs`
 * (the profile's own clock). Each sample is charged the time since the one
 * before it (its entry in V8's `timeDeltas`).
 */
export function breakdown(profile: CpuProfile, fromUs: number, toUs: number): ProfileBreakdown {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id)
  const categoryOf = new Map<number, Category | 'idle'>()
  const classify = (id: number): Category | 'idle' => {
    let category = categoryOf.get(id)
    if (category === undefined) {
      const chain: Array<CpuProfileNode['callFrame']> = []
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        chain.push(byId.get(at)!.callFrame)
      }
      category = categoryOfChain(chain)
      categoryOf.set(id, category)
    }
    return category
  }

  const busyUs = Object.fromEntries(CATEGORIES.map((name) => [name, 0])) as Record<Category, number>
  let idleUs = 0
  let at = profile.startTime
  for (let index = 0; index < profile.samples.length; index += 1) {
    const spent = profile.timeDeltas[index] ?? 0
    at += spent
    if (at < fromUs || at >= toUs) continue
    const category = classify(profile.samples[index]!)
    if (category === 'idle') idleUs += Math.max(0, spent)
    else busyUs[category] += Math.max(0, spent)
  }
  const totalBusyUs = Object.values(busyUs).reduce((sum, value) => sum + value, 0)
  return { busyUs, totalBusyUs, idleUs }
}
